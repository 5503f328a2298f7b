package sim_test

import (
	"testing"
	"time"

	"swiftpaxos/check"
	"swiftpaxos/replica"
	"swiftpaxos/sim"
)

// crashAllOptions: durable replicas under strong writes to many keys (so
// that the fast path is common), with slow syncs and one whole-cluster
// crash early in the run.
func crashAllOptions(seed uint64, p sim.Protocol) sim.Options {
	return sim.Options{
		Seed: seed, N: 3, Sessions: 4, Protocol: p, Durable: true,
		Workload: sim.Workload{Ops: 60, Pendings: 4, Keys: 40, WeakRatio: 10, WeakWrites: 50, Writes: 80},
		Faults: sim.Faults{MinDelay: 100 * time.Microsecond, MaxDelay: time.Millisecond,
			CrashAlls: 1, CrashWithin: 150 * time.Millisecond, RestartAfter: 200 * time.Millisecond,
			SyncDelay: 6 * time.Millisecond},
	}
}

// requireDurabilityCaught requires that, under mutation m, some seed of
// crashAllOptions within maxSeeds breaks the durability rule, for each
// protocol. Lost state can also stall a run for good: such a seed is
// passed over after 30 s of virtual time (a correct run ends well
// before).
func requireDurabilityCaught(t *testing.T, maxSeeds int, m replica.Mutation) {
	forEachProtocol(t, func(t *testing.T, p sim.Protocol) {
		sim.RequireViolation(t, maxSeeds, func(seed uint64) sim.Options {
			o := crashAllOptions(seed, p)
			o.Mutation, o.Deadline = m, 30*time.Second
			return o
		}, check.RuleDurability)
	})
}

// TestCrashAllCorrectBuildPasses: the seeds the mutation tests search
// pass without a mutation.
func TestCrashAllCorrectBuildPasses(t *testing.T) {
	forEachProtocol(t, func(t *testing.T, p sim.Protocol) {
		for seed := uint64(1); seed <= 20; seed++ {
			res, err := sim.Run(crashAllOptions(seed, p))
			if f := sim.Failure(res, err); f != "" {
				t.Fatalf("correct build, seed %d: %s", seed, f)
			}
		}
	})
}

// TestMutationEarlyRecordAckIsCaught: a witness that acknowledges a record
// before it is on disk lets a strong write complete on the fast path with
// records a whole-cluster crash erases; a new leader whose log lacks the
// write then cannot replay it, and the checker finds it lost.
func TestMutationEarlyRecordAckIsCaught(t *testing.T) {
	requireDurabilityCaught(t, 300, replica.Mutation{EarlyRecordAck: true})
}

// TestMutationEarlyAcceptAckIsCaught: followers that acknowledge entries
// before they are on disk let the leader commit, and answer, writes a
// whole-cluster crash erases from every log.
func TestMutationEarlyAcceptAckIsCaught(t *testing.T) {
	requireDurabilityCaught(t, 300, replica.Mutation{EarlyAcceptAck: true})
}

// TestMutationUnsyncedSelfCountIsCaught: a leader that counts its own
// entries before they are on disk commits with one other copy on disk;
// losing that one in a whole-cluster crash loses the write.
func TestMutationUnsyncedSelfCountIsCaught(t *testing.T) {
	requireDurabilityCaught(t, 600, replica.Mutation{UnsyncedSelfCount: true})
}

func TestDurableRunReplays(t *testing.T) {
	forEachProtocol(t, func(t *testing.T, p sim.Protocol) {
		var crashAll sim.Config
		for _, cfg := range sim.Configs(p.Name) {
			if cfg.Name == "crash-all" {
				crashAll = cfg
			}
		}
		sim.RequireReplay(t, crashAll.Make(7, 3, p))
	})
}
