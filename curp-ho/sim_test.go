package curpho_test

import (
	"testing"
	"time"

	"swiftpaxos/check"
	"swiftpaxos/client"
	curpho "swiftpaxos/curp-ho"
	"swiftpaxos/replica"
	"swiftpaxos/sim"
)

func protocol(m curpho.Mutation) sim.Protocol {
	return sim.Protocol{
		Name:    curpho.Name,
		Replica: func() replica.Policy { return curpho.NewReplicaPolicyWith(m) },
		Client:  func() client.Policy { return curpho.NewClientPolicyWith(m) },
	}
}

// TestSuite runs every configuration of the simulation suite (sim.Configs:
// the core mix, failover, leader crashes, harsh faults, client crashes,
// many sessions and keys, leader partitions, and all of them at once).
// scripts/soak.sh runs the same configurations with many more seeds.
func TestSuite(t *testing.T) {
	sim.RunSuite(t, protocol(curpho.Mutation{}))
}

func TestSameSeedReplays(t *testing.T) {
	sim.RequireReplay(t, sim.Configs(curpho.Name)[0].Make(42, 3, protocol(curpho.Mutation{})))
}

// TestMutationNoBarrierIsCaught: without the leader barrier (PROTOCOL.md
// 5.4, the reference's bug) a strong read can be ordered before its own
// session's earlier weak write and miss it.
func TestMutationNoBarrierIsCaught(t *testing.T) {
	sim.RequireViolation(t, 300, func(seed uint64) sim.Options {
		return sim.Configs(curpho.Name)[0].Make(seed, 3, protocol(curpho.Mutation{NoBarrier: true}))
	})
}

// rmwLagOptions: strong CASes and INCRs contending on two keys (and two
// counters) with PUTs and DELETEs, no GET, and execution lag, so that the
// applied store is often behind the log at the leader when a CAS or an
// INCR arrives.
func rmwLagOptions(seed uint64) sim.Options {
	o := sim.Configs(curpho.Name)[0].Make(seed, 3, protocol(curpho.Mutation{}))
	o.Sessions = 4
	o.Workload = sim.Workload{Ops: 40, Pendings: 2, Keys: 2, WeakRatio: 30, WeakWrites: 100, Writes: 100, RMW: 60, Deletes: 30}
	o.Faults = sim.Faults{MinDelay: 100 * time.Microsecond, MaxDelay: 3 * time.Millisecond, ApplyLag: 5 * time.Millisecond}
	return o
}

// TestMutationSpeculateFromStoreCASIsCaught: a CAS's or an INCR's
// speculative result computed from the applied store instead of the
// log-prefix overlay (PROTOCOL.md 3.5) is the outcome of the wrong state
// once execution lags commitment: a fast-path CAS reports an outcome its
// execution contradicts, an INCR a stale new value. The same options pass
// unmutated.
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

// TestMutationAcceptWeakRMWIsCaught: a hostile client (sim.Workload
// WeakRMW, past the client library's refusal) sends weak CASes and INCRs,
// and the replicas admit them (PROTOCOL.md 1.2 forbids it). The weak
// write's acknowledgement (CausalReply, sent before the write
// is even ordered) carries no result, so the session
// records the outcome it was handed, "not applied, absent", which nobody
// computed; the checker finds a CAS that the log applied and the client
// was told did not. A weak CAS is also history-invalid in itself, so only
// the log mismatch counts here. Correct replicas drop such requests and
// the sessions never complete them: that run never finishes, and is not
// tested here (replica/datamodel_test.go tests the refusal).
func TestMutationAcceptWeakRMWIsCaught(t *testing.T) {
	sim.RequireViolation(t, 50, func(seed uint64) sim.Options {
		o := sim.Configs(curpho.Name)[0].Make(seed, 3, protocol(curpho.Mutation{}))
		o.Workload.WeakRMW = 30
		o.Mutation = replica.Mutation{AcceptWeakRMW: true}
		return o
	}, check.RuleLogMismatch)
}
