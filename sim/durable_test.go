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

// TestMutationEarlyRecordAckIsCaught: a witness that acknowledges a record
// before it is on disk lets a strong write complete on the fast path with
// records a whole-cluster crash erases; a new leader whose log lacks the
// write then cannot replay it, and the checker finds it lost. The correct
// build passes the same seeds.
func TestMutationEarlyRecordAckIsCaught(t *testing.T) {
	forEachProtocol(t, func(t *testing.T, p sim.Protocol) {
		for seed := uint64(1); seed <= 20; seed++ {
			res, err := sim.Run(crashAllOptions(seed, p))
			if f := sim.Failure(res, err); f != "" {
				t.Fatalf("correct build, seed %d: %s", seed, f)
			}
		}
		sim.RequireViolation(t, 300, func(seed uint64) sim.Options {
			o := crashAllOptions(seed, p)
			o.Mutation = replica.Mutation{EarlyRecordAck: true}
			return o
		}, check.RuleDurability)
	})
}

// TestMutationEarlyAcceptAckIsCaught: followers that acknowledge entries
// before they are on disk let the leader commit, and answer, writes a
// whole-cluster crash erases from every log.
func TestMutationEarlyAcceptAckIsCaught(t *testing.T) {
	forEachProtocol(t, func(t *testing.T, p sim.Protocol) {
		sim.RequireViolation(t, 300, func(seed uint64) sim.Options {
			o := crashAllOptions(seed, p)
			o.Mutation = replica.Mutation{EarlyAcceptAck: true}
			// Lost entries can also stall a run for good; such a seed is
			// passed over sooner (a correct run ends in well under 30 s).
			o.Deadline = 30 * time.Second
			return o
		}, check.RuleDurability)
	})
}

// TestMutationUnsyncedSelfCountIsCaught: a leader that counts its own
// entries before they are on disk commits with one other copy on disk;
// losing that one in a whole-cluster crash loses the write.
func TestMutationUnsyncedSelfCountIsCaught(t *testing.T) {
	forEachProtocol(t, func(t *testing.T, p sim.Protocol) {
		sim.RequireViolation(t, 600, func(seed uint64) sim.Options {
			o := crashAllOptions(seed, p)
			o.Mutation = replica.Mutation{UnsyncedSelfCount: true}
			return o
		}, check.RuleDurability)
	})
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
