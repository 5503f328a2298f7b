package bench

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// zipfProb is P(k) ∝ 1/(k+1)^s over [0, n), computed independently.
func zipfProb(n int, s float64, k int) float64 {
	var h float64
	for i := 1; i <= n; i++ {
		h += math.Pow(float64(i), -s)
	}
	return math.Pow(float64(k+1), -s) / h
}

// TestZipfTableProbabilities: the alias table gives every key its
// probability, for several sizes and skews, to within the 32-bit coins'
// quantum (2^-32 of a slot's 1/n, a few times over) and rounding.
func TestZipfTableProbabilities(t *testing.T) {
	for _, n := range []int{1, 3, 1000, 5000} {
		for _, s := range []float64{0, 0.5, 0.99, 1.2, 3} {
			tab, err := NewZipfTable(int64(n), s)
			require.NoError(t, err)
			var sum float64
			for k := range int64(n) {
				p := tab.Prob(k)
				sum += p
				if k < 10 || k%97 == 0 {
					want := zipfProb(n, s, int(k))
					require.InDelta(t, want, p, 1e-9*want+0x1p-29/float64(n), "n=%d s=%v k=%d", n, s, k)
				}
			}
			assert.InDelta(t, 1, sum, 1e-9, "n=%d s=%v", n, s)
		}
	}
}

func TestZipfDrawsMatchDistribution(t *testing.T) {
	const keys, n = 1000, 1_000_000
	for _, s := range []float64{0.99, 0.5} {
		g := newGen(t, WorkloadParams{KeySpace: keys, ZipfSkew: s, HotKey: 1 << 20}, 0, 99)
		counts := make([]int, keys)
		for range n {
			k := g.keys.next(g.rng) // the generator's key source, minus the rest of the mix
			if k < 0 || k >= keys {
				t.Fatalf("key %d out of range", k)
			}
			counts[k]++
		}
		for _, k := range []int{0, 1, 2, 3, 4, 9, 99} {
			p := zipfProb(keys, s, k)
			sigma := math.Sqrt(p * (1 - p) / n)
			assert.InDelta(t, p, share(counts[k], n), 5*sigma, "s=%v key %d", s, k)
		}
		// The head of the distribution: the ten hottest keys together.
		var head, want float64
		for k := range 10 {
			head += share(counts[k], n)
			want += zipfProb(keys, s, k)
		}
		assert.InDelta(t, want, head, 0.003, "s=%v top-10 mass", s)
	}
}

func TestZipfZeroSkewIsUniform(t *testing.T) {
	tab, err := NewZipfTable(100, 0)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 200_000
	counts := make([]int, 100)
	for range n {
		counts[tab.Key(rng.Uint64())]++
	}
	for k, c := range counts {
		assert.InDelta(t, 0.01, share(c, n), 0.0015, "key %d", k)
	}
	// Below MinZipfSkew the generator does not build a table at all.
	w, err := NewWorkload(WorkloadParams{KeySpace: 100, ZipfSkew: 0.005, CommandSize: 1})
	require.NoError(t, err)
	assert.Nil(t, w.zipf)
}

// TestZipfKeyEdges: the extreme draws land in the key space; a table of
// one key gives it always.
func TestZipfKeyEdges(t *testing.T) {
	tab, err := NewZipfTable(10, 1)
	require.NoError(t, err)
	for _, r := range []uint64{0, 1, math.MaxUint64 / 2, math.MaxUint64 - 1, math.MaxUint64} {
		k := tab.Key(r)
		assert.True(t, k >= 0 && k < 10, "r=%x gives key %d", r, k)
	}
	assert.Equal(t, int64(0), tab.Key(0), "the first slot is the hottest key's")
	one, err := NewZipfTable(1, 0.99)
	require.NoError(t, err)
	for _, r := range []uint64{0, 12345, math.MaxUint64} {
		assert.Equal(t, int64(0), one.Key(r))
	}
}

// TestZipfTableShared: the threads of a process share one read-only table.
func TestZipfTableShared(t *testing.T) {
	w, err := NewWorkload(WorkloadParams{KeySpace: 1_000_000, ZipfSkew: 0.99, CommandSize: 1})
	require.NoError(t, err)
	a := w.Generator(ThreadID{Alias: "c", Thread: 0}, 1)
	b := w.Generator(ThreadID{Alias: "c", Thread: 1}, 2)
	za, ok := a.keys.(zipfKeys)
	require.True(t, ok, "keys are %T", a.keys)
	zb := b.keys.(zipfKeys)
	assert.Same(t, w.zipf, za.t)
	assert.Same(t, za.t, zb.t)
	assert.Equal(t, int64(1_000_000), za.t.Keys())
}

// BenchmarkZipfKey draws keys of the default workload (a million keys,
// skew 0.99) from the alias table, and by a binary search of the
// cumulative distribution for comparison.
func BenchmarkZipfKey(b *testing.B) {
	tab, err := NewZipfTable(1_000_000, 0.99)
	require.NoError(b, err)
	cdf := zipfWeights(1_000_000, 0.99)
	for k := 1; k < len(cdf); k++ {
		cdf[k] += cdf[k-1]
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var sink int64
	b.Run("alias", func(b *testing.B) {
		for range b.N {
			sink += tab.Key(rng.Uint64())
		}
	})
	b.Run("search", func(b *testing.B) {
		for range b.N {
			u := rng.Float64() * cdf[len(cdf)-1]
			sink += int64(sort.Search(len(cdf), func(k int) bool { return u < cdf[k] }))
		}
	})
	_ = sink
}

// BenchmarkZipfTable is the cost of building the table at the default
// million keys, which every benchmark client pays once before it starts.
func BenchmarkZipfTable(b *testing.B) {
	for range b.N {
		if _, err := NewZipfTable(1_000_000, 0.99); err != nil {
			b.Fatal(err)
		}
	}
}

// TestZipfWeightsAreExact: the series that replace math.Pow past the first
// keys agree with it to a relative 1e-13 everywhere, for the skews users
// choose.
func TestZipfWeightsAreExact(t *testing.T) {
	const n = 1 << 20
	for _, s := range []float64{0.01, 0.5, 0.99, 1, 1.5, 3} {
		w := zipfWeights(n, s)
		worst := 0.0
		for k := range w {
			want := math.Pow(float64(k+1), -s)
			worst = max(worst, math.Abs(w[k]-want)/want)
		}
		require.Less(t, worst, 1e-13, "s=%v", s)
	}
}
