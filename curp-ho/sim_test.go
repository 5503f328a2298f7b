package curpho_test

import (
	"testing"
	"time"

	"swiftpaxos/client"
	curpho "swiftpaxos/curp-ho"
	"swiftpaxos/replica"
	"swiftpaxos/replica/sim"
)

func protocol(m curpho.Mutation) sim.Protocol {
	return sim.Protocol{
		Name:    curpho.Name,
		Replica: func() replica.Policy { return curpho.NewReplicaPolicyWith(m) },
		Client:  func() client.Policy { return curpho.NewClientPolicyWith(m) },
	}
}

// options: weak writes and strong reads colliding on three hot keys, from
// the same and from different sessions, under the core fault mix.
func options(seed uint64, n int) sim.Options {
	return sim.Options{
		Seed: seed, N: n, Sessions: 4, Protocol: protocol(curpho.Mutation{}), Faults: sim.FaultMix,
		Workload: sim.Workload{Ops: 60, Pendings: 3, Keys: 3, WeakRatio: 50, WeakWrites: 60, Writes: 30},
	}
}

func TestSimulation(t *testing.T) {
	sim.CheckSeeds(t, []int{3, 5}, 300, options)
}

func TestSameSeedReplays(t *testing.T) {
	sim.RequireReplay(t, options(42, 3))
}

// TestMutationNoBarrierIsCaught: without the leader barrier (PROTOCOL.md
// 5.4, the reference's bug) a strong read can be ordered before its own
// session's earlier weak write and miss it.
func TestMutationNoBarrierIsCaught(t *testing.T) {
	sim.RequireViolation(t, 300, func(seed uint64) sim.Options {
		o := options(seed, 3)
		o.Protocol = protocol(curpho.Mutation{NoBarrier: true})
		return o
	})
}

// TestFailover: the fault mix plus crashes of up to f replicas, the leader
// included, and partitions that isolate the leader.
func TestFailover(t *testing.T) {
	sim.CheckSeeds(t, []int{3, 5}, 500, func(seed uint64, n int) sim.Options {
		o := options(seed, n)
		o.Faults = sim.FailoverMix(n)
		return o
	})
}

// crashOptions: weak writes followed by strong operations of the same
// session on other keys and reads of hot keys, with a leader crash. Random
// runs like these rarely build the interleavings where the causal-deps and
// ReadDep checks of PROTOCOL.md 5.8 matter, because recovery and the
// clients' re-sends repair most of them; scenario_test.go builds them
// directly.
func crashOptions(seed uint64, n int, m curpho.Mutation) sim.Options {
	o := options(seed, n)
	o.Protocol = protocol(m)
	o.Sessions = 6
	o.Workload = sim.Workload{Ops: 80, Pendings: 4, Keys: 6, WeakRatio: 60, WeakWrites: 70, Writes: 30}
	o.Faults = sim.Faults{MinDelay: 100 * time.Microsecond, MaxDelay: 4 * time.Millisecond,
		Crashes: 1, CrashWithin: 100 * time.Millisecond, CrashLeader: true}
	return o
}

// TestLeaderCrashWorkload: the workload of the mutation tests, unmutated,
// must stay correct and live.
func TestLeaderCrashWorkload(t *testing.T) {
	sim.CheckSeeds(t, []int{5}, 300, func(seed uint64, n int) sim.Options {
		return crashOptions(seed, n, curpho.Mutation{})
	})
}

// TestHarshFaults: connection losses between a session's weak writes and
// the witnesses, and two crashes starting with the leader. It found the
// witness-flush path bypassing the barrier and recovery replaying writes
// whose predecessors were lost.
func TestHarshFaults(t *testing.T) {
	sim.CheckSeeds(t, []int{5}, 200, func(seed uint64, n int) sim.Options {
		o := options(seed, n)
		o.Sessions = 6
		o.Workload = sim.Workload{Ops: 60, Pendings: 3, Keys: 4, WeakRatio: 50, WeakWrites: 80, Writes: 50}
		o.Faults = sim.HarshMix()
		return o
	})
}
