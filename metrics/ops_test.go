package metrics

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"
)

// Every observation lands under its labels, the threads' counts add up,
// and the pairs that cannot occur are not exported.
func TestOpsObserve(t *testing.T) {
	reg := prometheus.NewRegistry()
	o := NewOps(reg)
	a, b := o.Thread(), o.Thread()
	a.Observe(LevelStrong, KindPut, PathFast, time.Millisecond)
	b.Observe(LevelStrong, KindPut, PathFast, 3*time.Millisecond)
	a.Observe(LevelWeak, KindGet, PathWeak, time.Millisecond)
	b.Observe(LevelWeak, KindScan, PathFailed, 0)
	var nilOps *Ops
	nilOps.Thread().Observe(LevelStrong, KindGet, PathSlow, time.Second) // off: nothing

	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counts, hists := map[string]float64{}, map[string]*dto.Histogram{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			key := ""
			for _, l := range m.GetLabel() {
				key += l.GetValue() + " "
			}
			switch f.GetName() {
			case Namespace + "_client_operations_total":
				counts[key] = m.GetCounter().GetValue()
			case Namespace + "_client_operation_latency_seconds":
				hists[key] = m.GetHistogram()
			}
		}
	}
	// 2 levels x 3 kinds: strong has fast, slow, failed; weak has weak, failed.
	if len(counts) != 3*3+3*2 || len(hists) != 6 {
		t.Fatalf("%d operation series and %d latency series, want 15 and 6", len(counts), len(hists))
	}
	for key, want := range map[string]float64{"put strong fast ": 2, "get weak weak ": 1, "scan weak failed ": 1, "get strong slow ": 0} {
		if counts[key] != want {
			t.Errorf("%q = %v, want %v", key, counts[key], want)
		}
	}
	h := hists["put strong "]
	if h.GetSampleCount() != 2 || h.GetSampleSum() != 0.004 {
		t.Errorf("strong put latency: count %d, sum %v; want 2, 0.004", h.GetSampleCount(), h.GetSampleSum())
	}
	if n := hists["scan weak "].GetSampleCount(); n != 0 {
		t.Errorf("a failed operation has no latency, got %d observations", n)
	}
}

// The histogram puts every duration in the bucket Prometheus's own
// histogram, with the same bounds, puts it in.
func TestHistogramMatchesPrometheus(t *testing.T) {
	reg := prometheus.NewRegistry()
	o := NewOps(reg)
	th := o.Thread()
	want := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "want", Buckets: latencyBuckets})
	rng := rand.New(rand.NewPCG(1, 2))
	obs := func(d time.Duration) {
		th.Observe(LevelWeak, KindGet, PathWeak, d)
		want.Observe(d.Seconds())
	}
	for i := range nBounds + 1 {
		bound := firstBound << i
		obs(bound - 1)
		obs(bound)
		obs(bound + 1)
	}
	obs(0)
	for range 10000 {
		obs(time.Duration(rng.Int64N(int64(8 * time.Second))))
		obs(time.Duration(rng.Int64N(int64(time.Millisecond))))
	}
	var w dto.Metric
	if err := want.Write(&w); err != nil {
		t.Fatal(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != Namespace+"_client_operation_latency_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			if m.GetLabel()[0].GetValue() != "get" || m.GetLabel()[1].GetValue() != "weak" {
				continue
			}
			g := m.GetHistogram()
			if g.GetSampleCount() != w.GetHistogram().GetSampleCount() {
				t.Fatalf("count %d, want %d", g.GetSampleCount(), w.GetHistogram().GetSampleCount())
			}
			for i, b := range w.GetHistogram().GetBucket() {
				gb := g.GetBucket()[i]
				if gb.GetUpperBound() != b.GetUpperBound() || gb.GetCumulativeCount() != b.GetCumulativeCount() {
					t.Errorf("bucket %d: le %v has %d, want le %v with %d", i, gb.GetUpperBound(), gb.GetCumulativeCount(),
						b.GetUpperBound(), b.GetCumulativeCount())
				}
			}
			return
		}
	}
	t.Fatal("no weak get latency series")
}

// BenchmarkObserve is what metrics add to each operation of a client
// thread (compare with the cost line's cpu_us per operation).
func BenchmarkObserve(b *testing.B) {
	th := NewOps(prometheus.NewRegistry()).Thread()
	for i := range b.N {
		th.Observe(i&1, i%3, PathWeak*(i&1), time.Duration(i&1023)*time.Microsecond)
	}
}

// BenchmarkObserveThreads is Observe from several threads of one
// process at once, as a benchmark client's sessions run (-cpu 2 and up).
func BenchmarkObserveThreads(b *testing.B) {
	o := NewOps(prometheus.NewRegistry())
	b.RunParallel(func(pb *testing.PB) {
		th := o.Thread()
		for i := 0; pb.Next(); i++ {
			th.Observe(i&1, i%3, PathWeak*(i&1), time.Duration(i&1023)*time.Microsecond)
		}
	})
}

// Every write is a "put", whatever else it is.
func TestKindOf(t *testing.T) {
	require.Equal(t, KindGet, KindOf(false, false))
	require.Equal(t, KindScan, KindOf(false, true))
	require.Equal(t, KindPut, KindOf(true, false))
	require.Equal(t, KindPut, KindOf(true, true))
}
