package bench

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/client"
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// samples returns n log-normal-ish latencies between ~50 µs and ~1 s.
func samples(seed uint64, n int) []time.Duration {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(50e3 * (1 + rng.ExpFloat64()*rng.ExpFloat64()*100))
	}
	return out
}

func histOf(ds []time.Duration) *LatencyHistogram {
	var h LatencyHistogram
	for _, d := range ds {
		h.Record(d)
	}
	return &h
}

// sortedElement is element i of the sorted sample, in ms at µs resolution.
func sortedElement(ds []time.Duration, i int) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[i].Microseconds()) / 1000
}

func TestHistogramMergeIsExact(t *testing.T) {
	all := samples(1, 40_000)
	one := histOf(all)
	var merged LatencyHistogram
	for i := range 4 {
		require.NoError(t, merged.Merge(histOf(all[i*10_000:(i+1)*10_000])))
	}
	assert.True(t, one.h.Equals(merged.h))
	assert.Equal(t, one.Stats(), merged.Stats())
	assert.Equal(t, int64(40_000), merged.Count())
}

func TestStatsFollowSortedSampleRule(t *testing.T) {
	for _, n := range []int{1, 2, 10, 999, 1000, 12_345} {
		ds := samples(uint64(n), n)
		st := histOf(ds).Stats()
		require.Equal(t, int64(n), st.Count)
		for _, c := range []struct {
			got float64
			idx int
		}{{st.P50Ms, n / 2}, {st.P99Ms, n * 99 / 100}, {st.P999Ms, min(n*999/1000, n-1)}} {
			want := sortedElement(ds, c.idx)
			assert.InEpsilon(t, want, c.got, 0.001, "n=%d element %d", n, c.idx)
		}
	}
	// Exact on a small sample: 1..10 ms, median is element 5 = 6 ms.
	var h LatencyHistogram
	for i := 1; i <= 10; i++ {
		h.Record(time.Duration(i) * time.Millisecond)
	}
	st := h.Stats()
	assert.InDelta(t, 6, st.P50Ms, 0.01)
	assert.InDelta(t, 10, st.P99Ms, 0.01)
	assert.InDelta(t, 10, st.P999Ms, 0.01)
	assert.InDelta(t, 5.5, st.MeanMs, 0.01)
}

func TestHistogramClampsOutOfRange(t *testing.T) {
	var h LatencyHistogram
	h.Record(0)
	h.Record(2 * time.Minute)
	assert.Equal(t, int64(2), h.Count())
	assert.InDelta(t, 60_000, h.Stats().P999Ms, 60)
}

func TestProcessResultsJSONRoundTrip(t *testing.T) {
	var r ProcessResults
	r.Alias, r.Protocol, r.Ops, r.Timeline, r.Complete = "client0", "curpht", 3000, []int64{1000, 2000}, true
	for i, c := range []Class{StrongWrite, StrongRead, WeakRead} {
		*r.Latency.Of(c) = *histOf(samples(uint64(i), 1000))
	}
	path := filepath.Join(t.TempDir(), "results-client0.json")
	require.NoError(t, WriteResults(path, &r))
	got, err := ReadResults(path)
	require.NoError(t, err)
	for c := range numClasses {
		assert.Equal(t, r.Latency.Of(c).Stats(), got.Latency.Of(c).Stats(), "%s", c)
	}
	assert.True(t, r.Latency.StrongRead.h.Equals(got.Latency.StrongRead.h))
	assert.Zero(t, got.Latency.WeakWrite.Count())
	assert.Equal(t, r.Timeline, got.Timeline)

	// snake_case field names, and a corrupted histogram is rejected.
	b, err := json.Marshal(r)
	require.NoError(t, err)
	for _, k := range []string{`"throughput_ops"`, `"duration_s"`, `"fast_path"`, `"latency_us"`, `"strong_write"`, `"significant_figures"`} {
		assert.Contains(t, string(b), k)
	}
	bad := strings.Replace(string(b), `"total":1000`, `"total":999`, 1)
	require.NotEqual(t, string(b), bad)
	assert.ErrorContains(t, json.Unmarshal([]byte(bad), &ProcessResults{}), "total says 999")
}

// TestMergeResultsGlobalPercentiles: a launcher that averages per-process
// medians reports 5.5 ms here; the true global median is 1 ms.
func TestMergeResultsGlobalPercentiles(t *testing.T) {
	mk := func(alias string, n int, lat time.Duration, startMs int64, tput float64, tl []int64) ProcessResults {
		r := ProcessResults{Alias: alias, Protocol: "curpht", Threads: 2, Ops: int64(n), DurationS: float64(n) / tput,
			ThroughputOps: tput, StartUnixMs: startMs, Timeline: tl, Complete: true, FastPath: int64(n)}
		for range n {
			r.Latency.StrongRead.Record(lat)
		}
		return r
	}
	a := mk("client0", 300, time.Millisecond, 10_000, 1000, []int64{100, 200})
	b := mk("client1", 100, 10*time.Millisecond, 11_200, 500, []int64{60, 40})
	require.InDelta(t, 1, a.Latency.StrongRead.Stats().P50Ms, 0.01)
	require.InDelta(t, 10, b.Latency.StrongRead.Stats().P50Ms, 0.01)

	s, err := MergeResults([]ProcessResults{a, b})
	require.NoError(t, err)
	assert.InDelta(t, 1, s.Strong.Reads.P50Ms, 0.01, "global median (mean of medians would be 5.5)")
	assert.InDelta(t, 1, s.Strong.All.P50Ms, 0.01)
	assert.InDelta(t, 10, s.Strong.All.P99Ms, 0.01)
	assert.InDelta(t, (300*1+100*10)/400.0, s.Strong.All.MeanMs, 0.01)
	assert.Equal(t, int64(400), s.Ops)
	assert.Equal(t, int64(400), s.Strong.Count)
	assert.InDelta(t, 1, s.Strong.Share, 1e-9)
	assert.Zero(t, s.Weak.Count)
	// One throughput: client0 runs 10.0-10.3 s and client1 11.2-11.4 s;
	// the sum of their rates (1500 ops/s) would count them as together.
	assert.InDelta(t, 1.4, s.DurationS, 1e-9)
	assert.InDelta(t, 400/1.4, s.ThroughputOps, 1e-9)
	assert.Equal(t, 4, s.Threads)
	assert.Equal(t, "curpht", s.Protocol)
	assert.True(t, s.Complete)
	// client1 started 1.2 s later: its seconds shift by one.
	assert.Equal(t, []int64{100, 260, 40}, s.Timeline)
	assert.Equal(t, int64(10_000), s.StartUnixMs)

	// The fast and slow counts shift the same way, and every timeline has
	// the same length.
	a.TimelineFast, a.TimelineSlow = []int64{90}, []int64{10, 200}
	b.TimelineFast, b.TimelineSlow = []int64{0, 40}, []int64{60}
	s, err = MergeResults([]ProcessResults{a, b})
	require.NoError(t, err)
	assert.Equal(t, []int64{90, 0, 40}, s.TimelineFast)
	assert.Equal(t, []int64{10, 260, 0}, s.TimelineSlow)
	assert.Equal(t, []int64{100, 260, 40}, s.Timeline)

	b.Complete, b.Error = false, "thread 0: no reply within replyTimeout"
	s, err = MergeResults([]ProcessResults{a, b})
	require.NoError(t, err)
	assert.False(t, s.Complete)
	var out bytes.Buffer
	require.NoError(t, s.WriteText(&out))
	assert.Contains(t, out.String(), "INCOMPLETE RUN: client1")
}

func TestSummaryText(t *testing.T) {
	var r ProcessResults
	r.Alias, r.Protocol, r.Threads, r.Ops, r.DurationS, r.ThroughputOps, r.Complete = "client0", "curpht", 2, 4, 2, 2, true
	r.FastPath, r.SlowPath = 3, 1
	for _, c := range []struct {
		c  Class
		ms int
	}{{StrongWrite, 4}, {StrongRead, 2}, {WeakWrite, 1}, {WeakRead, 1}} {
		r.Latency.Of(c.c).Record(time.Duration(c.ms) * time.Millisecond)
	}
	s, err := MergeResults([]ProcessResults{r})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, s.WriteText(&out))
	text := out.String()
	for _, want := range []string{
		"Total operations: 4", "Duration:         2.000 s", "Throughput:       2.0 ops/s",
		"Strong operations: 2 (50.0%)", "writes: 1, reads: 1", "Weak operations: 2 (50.0%)",
		"mean", "median", "P99", "P99.9",
		"fast path: 3, slow path: 1 (fast-path share 75.0%)",
	} {
		assert.Contains(t, text, want)
	}
	assert.NotContains(t, text, "INCOMPLETE")
	assert.NotContains(t, text, "Per process")
}

func TestClassOf(t *testing.T) {
	op := func(l wire.Level, o kvs.Op) client.Op { return client.Op{Level: l, Command: kvs.Command{Op: o}} }
	assert.Equal(t, StrongWrite, ClassOf(op(wire.Strong, kvs.OpPut)))
	assert.Equal(t, StrongRead, ClassOf(op(wire.Strong, kvs.OpGet)))
	assert.Equal(t, WeakWrite, ClassOf(op(wire.Weak, kvs.OpPut)))
	assert.Equal(t, WeakRead, ClassOf(op(wire.Weak, kvs.OpGet)))
	assert.Equal(t, WeakRead, ClassOf(op(wire.Weak, kvs.OpScan)))
}
