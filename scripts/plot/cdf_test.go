package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/client/bench"
)

// sampleHistogram records n pseudo-random latencies with a long tail.
func sampleHistogram(seed uint64, n int) *bench.LatencyHistogram {
	rng := rand.New(rand.NewPCG(seed, 1))
	var h bench.LatencyHistogram
	for range n {
		us := 300 + rng.ExpFloat64()*900
		if rng.IntN(100) == 0 {
			us *= 20
		}
		h.Record(time.Duration(us) * time.Microsecond)
	}
	return &h
}

func TestExactCDFMatchesStats(t *testing.T) {
	for _, n := range []int{1, 2, 7, 1000, 20001} {
		h := sampleHistogram(uint64(n), n)
		pts, total, err := exactCDF(h)
		require.NoError(t, err)
		require.Equal(t, int64(n), total)
		assert.Equal(t, 0.0, pts[0].Frac)
		assert.Equal(t, 1.0, pts[len(pts)-1].Frac)
		// The first point is the lower end of the first bucket, which is
		// its upper end too when the bucket is 1 µs wide.
		assert.GreaterOrEqual(t, pts[1].Ms, pts[0].Ms)
		for i := 1; i < len(pts); i++ {
			if i > 1 {
				assert.Greater(t, pts[i].Ms, pts[i-1].Ms, "latencies increase")
			}
			assert.Greater(t, pts[i].Frac, pts[i-1].Frac, "only non-empty buckets")
		}
		// The curve goes through summary.json's percentiles (PROTOCOL.md
		// 8.3: median = element n/2, P99 = element 99n/100, P99.9 =
		// element min(999n/1000, n-1)).
		s := h.Stats()
		N := int64(n)
		assert.Equal(t, s.P50Ms, elementMs(pts, N, N/2), "P50, n=%d", n)
		assert.Equal(t, s.P99Ms, elementMs(pts, N, N*99/100), "P99, n=%d", n)
		assert.Equal(t, s.P999Ms, elementMs(pts, N, min(N*999/1000, N-1)), "P99.9, n=%d", n)
	}
}

func TestExactCDFEmpty(t *testing.T) {
	pts, n, err := exactCDF(&bench.LatencyHistogram{})
	require.NoError(t, err)
	assert.Zero(t, n)
	assert.Empty(t, pts)
}

func TestTailPoints(t *testing.T) {
	// 4 samples: 1 ms, 2 ms, 2 ms, 8 ms.
	pts := []cdfPoint{{0.9, 0}, {1, 0.25}, {2, 0.75}, {8, 1}}
	assert.Equal(t, []cdfPoint{
		{Ms: 1, Frac: 1},       // quantiles from 0: 1 ms
		{Ms: 2, Frac: 4.0 / 3}, // from 0.25 (x = 1/(1-0.25))
		{Ms: 8, Frac: 4},       // from 0.75
		{Ms: 8, Frac: 4},       // up to the largest sample, q = 3/4: x = n
	}, tailPoints(pts, 4))
}

func TestLoadRunMergesProcesses(t *testing.T) {
	dir := t.TempDir()
	var all bench.ClassHistograms
	for i, alias := range []string{"client0", "client1"} {
		r := bench.ProcessResults{Alias: alias, Protocol: "curpht", Complete: true}
		r.Latency.StrongRead = *sampleHistogram(uint64(10+i), 500)
		r.Latency.WeakWrite = *sampleHistogram(uint64(20+i), 50)
		require.NoError(t, all.Merge(&r.Latency))
		require.NoError(t, bench.WriteResults(filepath.Join(dir, "results-"+alias+".json"), &r))
	}
	got, err := loadRun(dir)
	require.NoError(t, err)
	assert.Equal(t, "curpht", got.Protocol)
	assert.Equal(t, filepath.Base(dir), got.Label)
	assert.Equal(t, int64(1000), got.Latency.StrongRead.Count())
	assert.Equal(t, int64(100), got.Latency.WeakWrite.Count())
	assert.Equal(t, all.StrongRead.Stats(), got.Latency.StrongRead.Stats())

	_, err = loadRun(filepath.Join(dir, "missing"))
	require.Error(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "results-bad.json"), []byte("{"), 0o644))
	_, err = loadRun(dir)
	require.Error(t, err)
}
