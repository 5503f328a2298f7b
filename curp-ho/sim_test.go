package curpho_test

import (
	"testing"

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
	sim.CheckSeeds(t, []int{3, 5}, options)
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
