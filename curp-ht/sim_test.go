package curpht_test

import (
	"testing"
	"time"

	"swiftpaxos/check"
	"swiftpaxos/client"
	curpht "swiftpaxos/curp-ht"
	"swiftpaxos/replica"
	"swiftpaxos/sim"
)

var protocol = sim.Protocol{Name: curpht.Name, Replica: curpht.NewReplicaPolicy, Client: curpht.NewClientPolicy}

func options(seed uint64, n int) sim.Options {
	return sim.Configs(curpht.Name)[0].Make(seed, n, protocol)
}

// TestSuite runs every configuration of the simulation suite (sim.Configs:
// the core mix, failover, leader crashes, harsh faults, client crashes,
// many sessions and keys, leader partitions, and all of them at once).
// scripts/soak.sh runs the same configurations with many more seeds.
func TestSuite(t *testing.T) {
	sim.RunSuite(t, protocol)
}

func TestSameSeedReplays(t *testing.T) {
	sim.RequireReplay(t, options(42, 3))
}

// TestMutationSpeculateFromStoreIsCaught: the reference's speculation
// from the applied store (PROTOCOL.md 3.5) returns stale fast-path reads
// once execution lags commitment.
func TestMutationSpeculateFromStoreIsCaught(t *testing.T) {
	sim.RequireViolation(t, 200, func(seed uint64) sim.Options {
		o := options(seed, 3)
		o.Mutation = replica.Mutation{SpeculateFromStore: true}
		o.Sessions = 6
		o.Workload = sim.Workload{Ops: 60, Pendings: 4, Keys: 2, WeakRatio: 50, WeakWrites: 80, Writes: 20}
		o.Faults = sim.Faults{MinDelay: 100 * time.Microsecond, MaxDelay: 3 * time.Millisecond, ApplyLag: 5 * time.Millisecond}
		return o
	})
}

// rmwLagOptions: strong CASes and INCRs contending on two keys (and two
// counters) with PUTs and DELETEs, and execution lag, so that the applied
// store is often behind the log at the leader when a CAS or an INCR
// arrives.
func rmwLagOptions(seed uint64) sim.Options {
	o := options(seed, 3)
	o.Sessions = 4
	o.Workload = sim.Workload{Ops: 40, Pendings: 2, Keys: 2, WeakRatio: 30, WeakWrites: 100, Writes: 100, RMW: 60, Deletes: 30}
	o.Faults = sim.Faults{MinDelay: 100 * time.Microsecond, MaxDelay: 3 * time.Millisecond, ApplyLag: 5 * time.Millisecond}
	return o
}

// TestMutationSpeculateFromStoreCASIsCaught: a CAS's or an INCR's
// speculative result computed from the applied store instead of the
// log-prefix overlay (PROTOCOL.md 3.5) is the outcome of the wrong state
// once execution lags commitment: a fast-path CAS reports an outcome its
// execution contradicts, an INCR a stale new value. The workload has no
// GET, so no read can be what is caught (that is
// TestMutationSpeculateFromStoreIsCaught); the same options pass unmutated.
func TestMutationSpeculateFromStoreCASIsCaught(t *testing.T) {
	sim.CheckSeeds(t, []int{3}, 5, func(seed uint64, _ int) sim.Options { return rmwLagOptions(seed) })
	mutated := func(seed uint64) sim.Options {
		o := rmwLagOptions(seed)
		o.Mutation = replica.Mutation{SpeculateFromStore: true}
		return o
	}
	// A fast-path CAS whose outcome its execution contradicts.
	sim.RequireViolation(t, 200, mutated, check.RuleLogMismatch)
	// An INCR (or a CAS) whose result fits no order of the key.
	sim.RequireViolation(t, 200, mutated, check.RuleLinearizability)
}

// TestMutationIgnoreCacheIsCaught: weak reads answered by a replica that
// has not applied the session's own committed write, without the cache
// merge (PROTOCOL.md 4.6), break read-your-writes.
func TestMutationIgnoreCacheIsCaught(t *testing.T) {
	sim.RequireViolation(t, 200, func(seed uint64) sim.Options {
		o := options(seed, 3)
		o.ClientMutation = client.Mutation{IgnoreCache: true}
		return o
	})
}

// crashOptions: many non-conflicting strong writes, so that fast paths
// complete before commitment, and a leader crash in the middle.
func crashOptions(seed uint64, n int) sim.Options {
	o := options(seed, n)
	o.Workload = sim.Workload{Ops: 80, Pendings: 4, Keys: 40, WeakRatio: 20, WeakWrites: 50, Writes: 70}
	o.Faults = sim.Faults{MinDelay: 100 * time.Microsecond, MaxDelay: 3 * time.Millisecond,
		Crashes: 1, CrashWithin: 100 * time.Millisecond, CrashLeader: true}
	return o
}

// TestMutationNoWitnessReplayIsCaught: a new leader that does not replay
// witness records (the reference's CURP-HT recovery) loses strong writes
// that completed on the fast path.
func TestMutationNoWitnessReplayIsCaught(t *testing.T) {
	sim.RequireViolation(t, 200, func(seed uint64) sim.Options {
		o := crashOptions(seed, 3)
		o.Mutation = replica.Mutation{NoWitnessReplay: true}
		return o
	})
}

// TestMutationAcceptWeakRMWIsCaught: a hostile client (sim.Workload
// WeakRMW, past the client library's refusal) sends weak CASes and INCRs,
// and the replicas admit them (PROTOCOL.md 1.2 forbids it). The weak
// write's acknowledgement (WeakReply, sent at commit, before
// execution) carries no result, so the session
// records the outcome it was handed, "not applied, absent", which nobody
// computed; the checker finds a CAS that the log applied and the client
// was told did not. A weak CAS is also history-invalid in itself, so only
// the log mismatch counts here. Correct replicas drop such requests and
// the sessions never complete them: that run never finishes, and is not
// tested here (replica/datamodel_test.go tests the refusal).
func TestMutationAcceptWeakRMWIsCaught(t *testing.T) {
	sim.RequireViolation(t, 50, func(seed uint64) sim.Options {
		o := options(seed, 3)
		o.Workload.WeakRMW = 30
		o.Mutation = replica.Mutation{AcceptWeakRMW: true}
		return o
	}, check.RuleLogMismatch)
}
