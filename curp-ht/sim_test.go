package curpht_test

import (
	"testing"
	"time"

	"swiftpaxos/client"
	curpht "swiftpaxos/curp-ht"
	"swiftpaxos/curp-ht/htreplica"
	"swiftpaxos/replica"
	"swiftpaxos/sim"
)

var protocol = sim.Protocol{Name: curpht.Name, Replica: htreplica.NewPolicy, Client: curpht.NewClientPolicy}

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

// TestMutationSpeculateFromStoreCASIsCaught: sim.RequireSpeculatedCASCaught.
func TestMutationSpeculateFromStoreCASIsCaught(t *testing.T) {
	sim.RequireSpeculatedCASCaught(t, protocol)
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

// TestMutationAcceptWeakRMWIsCaught: sim.RequireWeakRMWCaught.
func TestMutationAcceptWeakRMWIsCaught(t *testing.T) {
	sim.RequireWeakRMWCaught(t, protocol)
}

// TestMutationUnconfirmedLeaderReadIsCaught:
// sim.RequireUnconfirmedLeaderReadCaught.
func TestMutationUnconfirmedLeaderReadIsCaught(t *testing.T) {
	sim.RequireUnconfirmedLeaderReadCaught(t, protocol)
}

// TestMutationLeaseWithoutPromiseIsCaught:
// sim.RequireLeaseWithoutPromiseCaught.
func TestMutationLeaseWithoutPromiseIsCaught(t *testing.T) {
	sim.RequireLeaseWithoutPromiseCaught(t, protocol)
}

// TestMutationLeaderReadDependencyIsCaught:
// sim.RequireLeaderReadDependencyCaught.
func TestMutationLeaderReadDependencyIsCaught(t *testing.T) {
	sim.RequireLeaderReadDependencyCaught(t, protocol)
}

// TestMutationUnorderedPipelineIsCaught: sim.RequireUnorderedPipelineCaught.
func TestMutationUnorderedPipelineIsCaught(t *testing.T) {
	sim.RequireUnorderedPipelineCaught(t, protocol)
}
