package curpht_test

import (
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	curpht "swiftpaxos/curp-ht"
	"swiftpaxos/replica"
	"swiftpaxos/replica/sim"
)

var (
	seeds    = flag.Int("seeds", 300, "seeds per cluster size")
	onlySeed = flag.Uint64("seed", 0, "replay only this seed")
)

var protocol = sim.Protocol{Name: curpht.Name, Replica: curpht.NewReplicaPolicy, Client: curpht.NewClientPolicy}

// faultMix is the core fault mix: reordering across connections, long
// delays, dropped connections and healing partitions.
var faultMix = sim.Faults{
	MinDelay: 100 * time.Microsecond, MaxDelay: 3 * time.Millisecond,
	LongDelayProb: 0.01, LongDelay: 40 * time.Millisecond,
	DropProb:       0.002,
	PartitionEvery: 400 * time.Millisecond, PartitionFor: 300 * time.Millisecond,
	ApplyLag: 2 * time.Millisecond,
}

func options(seed uint64, n int) sim.Options {
	return sim.Options{
		Seed: seed, N: n, Sessions: 4, Protocol: protocol, Faults: faultMix,
		Workload: sim.Workload{Ops: 60, Pendings: 3, Keys: 3, WeakRatio: 50, WeakWrites: 50, Writes: 50},
	}
}

func seedList() []uint64 {
	if *onlySeed != 0 {
		return []uint64{*onlySeed}
	}
	l := make([]uint64, *seeds)
	for i := range l {
		l[i] = uint64(i + 1)
	}
	return l
}

func TestSimulation(t *testing.T) {
	for _, n := range []int{3, 5} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			t.Parallel()
			fast, slow := 0, 0
			for _, seed := range seedList() {
				res, err := sim.Run(options(seed, n))
				require.NoError(t, err, "replay with -run 'TestSimulation/n=%d' -seed %d", n, seed)
				require.Empty(t, res.Report.Violations, "seed %d (replay with -run 'TestSimulation/n=%d' -seed %d): %v", seed, n, seed, res.Report.Violations)
				fast += res.Fast
				slow += res.Slow
			}
			t.Logf("n=%d: %d seeds, strong fast path %d, slow path %d", n, len(seedList()), fast, slow)
			require.Positive(t, fast, "no strong operation took the fast path")
			require.Positive(t, slow, "no strong operation took the slow path")
		})
	}
}

// TestSameSeedReplays runs one seed twice and requires identical runs.
func TestSameSeedReplays(t *testing.T) {
	a, err := sim.Run(options(42, 3))
	require.NoError(t, err)
	b, err := sim.Run(options(42, 3))
	require.NoError(t, err)
	require.Equal(t, a.History, b.History)
	require.Equal(t, a.Logs, b.Logs)
	require.Equal(t, a.Messages, b.Messages)
}

// mutationCaught runs seeds of a deliberately broken core until the checker
// reports a violation.
func mutationCaught(t *testing.T, m replica.Mutation, maxSeeds int) {
	t.Helper()
	for seed := uint64(1); seed <= uint64(maxSeeds); seed++ {
		o := options(seed, 3)
		o.Mutation = m
		o.Sessions = 6
		o.Workload = sim.Workload{Ops: 60, Pendings: 4, Keys: 2, WeakRatio: 50, WeakWrites: 80, Writes: 20}
		o.Faults = sim.Faults{MinDelay: 100 * time.Microsecond, MaxDelay: 3 * time.Millisecond, ApplyLag: 5 * time.Millisecond}
		res, err := sim.Run(o)
		if err != nil {
			continue
		}
		if len(res.Report.Violations) > 0 {
			t.Logf("seed %d: %v", seed, res.Report.Violations[0])
			return
		}
	}
	t.Fatalf("mutation %+v not caught in %d seeds", m, maxSeeds)
}

func TestMutationSpeculateFromStoreIsCaught(t *testing.T) {
	mutationCaught(t, replica.Mutation{SpeculateFromStore: true}, 200)
}
