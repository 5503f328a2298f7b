package client

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

func TestZipfTableProbabilities(t *testing.T) {
	for _, s := range []float64{0, 0.5, 0.99, 1.2} {
		tab, err := NewZipfTable(1000, s)
		require.NoError(t, err)
		var sum float64
		for k := range int64(1000) {
			sum += tab.Prob(k)
		}
		assert.InDelta(t, 1, sum, 1e-9, "s=%v", s)
		for _, k := range []int{0, 1, 9, 99, 999} {
			assert.InDelta(t, zipfProb(1000, s, k), tab.Prob(int64(k)), 1e-12, "s=%v k=%d", s, k)
		}
	}
}

func TestZipfDrawsMatchDistribution(t *testing.T) {
	const keys, n = 1000, 1_000_000
	for _, s := range []float64{0.99, 0.5} {
		g := newGen(t, WorkloadParams{KeySpace: keys, ZipfSkew: s, HotKey: -1}, 0, 99)
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
		counts[tab.Key(rng.Float64())]++
	}
	for k, c := range counts {
		assert.InDelta(t, 0.01, share(c, n), 0.0015, "key %d", k)
	}
	// Below MinZipfSkew the generator does not build a table at all.
	w, err := NewWorkload(WorkloadParams{KeySpace: 100, ZipfSkew: 0.005, CommandSize: 1})
	require.NoError(t, err)
	assert.Nil(t, w.zipf)
}

func TestZipfKeyEdges(t *testing.T) {
	tab, err := NewZipfTable(10, 1)
	require.NoError(t, err)
	assert.Equal(t, int64(0), tab.Key(0))
	assert.Equal(t, int64(9), tab.Key(math.Nextafter(1, 0)))
	one, err := NewZipfTable(1, 0.99)
	require.NoError(t, err)
	assert.Equal(t, int64(0), one.Key(0.7))
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

// The guided search finds the key a search of the whole table finds: for
// random draws and for draws on and just below every cumulative
// probability, at several skews and sizes.
func TestZipfGuideMatchesFullSearch(t *testing.T) {
	full := func(tab *ZipfTable, u float64) int64 {
		return int64(sort.Search(len(tab.cdf), func(k int) bool { return u < tab.cdf[k] }))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		n int64
		s float64
	}{{1, 0.99}, {3, 0}, {1000, 0.99}, {200_000, 0.99}, {50_000, 1.5}, {70_000, 0}} {
		tab, err := NewZipfTable(c.n, c.s)
		require.NoError(t, err)
		us := []float64{0, math.Nextafter(1, 0)}
		for range 20_000 {
			us = append(us, rng.Float64())
		}
		for k := int64(0); k < c.n && k < 5000; k++ {
			us = append(us, tab.cdf[k], math.Nextafter(tab.cdf[k], 0))
		}
		for _, u := range us {
			if u >= 1 {
				continue
			}
			require.Equal(t, full(tab, u), tab.Key(u), "n %d s %v u %v", c.n, c.s, u)
		}
	}
}

// BenchmarkZipfKey draws keys of the default workload (a million keys,
// skew 0.99): guided, and by a search of the whole table for comparison.
func BenchmarkZipfKey(b *testing.B) {
	tab, err := NewZipfTable(1_000_000, 0.99)
	require.NoError(b, err)
	rng := rand.New(rand.NewPCG(1, 2))
	var sink int64
	b.Run("guided", func(b *testing.B) {
		for range b.N {
			sink += tab.Key(rng.Float64())
		}
	})
	b.Run("full-search", func(b *testing.B) {
		for range b.N {
			u := rng.Float64()
			sink += int64(sort.Search(len(tab.cdf), func(k int) bool { return u < tab.cdf[k] }))
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
