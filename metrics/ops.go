package metrics

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Operation labels: the level (class), the kind and, for a strong
// operation, the path it completed on ("fast", "slow"; weak: "weak").
var (
	Levels = []string{"strong", "weak"}
	Kinds  = []string{"get", "put", "scan"}
	Paths  = []string{"fast", "slow", "weak", "failed"}
)

// Indices into Levels, Kinds and Paths.
const (
	LevelStrong = 0
	LevelWeak   = 1
	KindGet     = 0
	KindPut     = 1
	KindScan    = 2
	PathFast    = 0
	PathSlow    = 1
	PathWeak    = 2
	PathFailed  = 3
)

var (
	descOps = prometheus.NewDesc(Namespace+"_client_operations_total",
		"Operations completed by this process's sessions, by level, kind and path (fast/slow for strong ones, weak, or failed).",
		[]string{"level", "kind", "path"}, nil)
	descLatency = prometheus.NewDesc(Namespace+"_client_operation_latency_seconds",
		"Latency of the successful operations, from submission to completion, by level and kind.",
		[]string{"level", "kind"}, nil)
)

// Ops is a client process's operation metrics. Each benchmark thread
// counts into its own ThreadOps, and a scrape adds the threads up: the
// threads of a process run the same mix, so shared counters would put
// every operation's atomic adds on cache lines the other cores keep
// taking away.
type Ops struct {
	mu      sync.Mutex
	threads []*ThreadOps
}

// NewOps registers the operation metrics in reg.
func NewOps(reg prometheus.Registerer) *Ops {
	o := &Ops{}
	reg.MustRegister(o)
	return o
}

// Thread returns a new share of o for one thread to count into; nil
// when o is nil (off).
func (o *Ops) Thread() *ThreadOps {
	if o == nil {
		return nil
	}
	t := &ThreadOps{}
	o.mu.Lock()
	o.threads = append(o.threads, t)
	o.mu.Unlock()
	return t
}

// ThreadOps is one thread's operation counts and latency histograms.
// Only its thread writes it, so its atomic adds stay on that thread's
// core; any goroutine may read it. A nil *ThreadOps is off.
type ThreadOps struct {
	count   [2][3][4]atomic.Uint64
	latency [2][3]histogram
	// Keeps the next thread's counters off this one's last cache line.
	_ [64]byte
}

// KindOf is the index into Kinds of an operation that writes ("put": a
// PUT, and a DELETE, a CAS or an INCR too), else scans ("scan"), else
// reads one key ("get"). It takes the two facts rather than the command,
// so that the metrics know nothing of the store's commands.
func KindOf(write, scan bool) int {
	switch {
	case write:
		return KindPut
	case scan:
		return KindScan
	}
	return KindGet
}

// Observe records one completed operation; level, kind and path index
// Levels, Kinds and Paths (a strong operation's path is fast, slow or
// failed, a weak one's weak or failed). A failed operation has no
// latency.
func (t *ThreadOps) Observe(level, kind, path int, d time.Duration) {
	if t == nil {
		return
	}
	t.count[level][kind][path].Add(1)
	if path != PathFailed {
		t.latency[level][kind].observe(d)
	}
}

// occurs reports whether an operation of level l can complete on path
// p: a strong one fast, slow or failed, a weak one weak or failed. Only
// these pairs are exported.
func occurs(l, p int) bool {
	if p == PathFailed {
		return true
	}
	return (l == LevelStrong) == (p == PathFast || p == PathSlow)
}

// Describe implements prometheus.Collector.
func (o *Ops) Describe(ch chan<- *prometheus.Desc) {
	ch <- descOps
	ch <- descLatency
}

// Collect implements prometheus.Collector: every series exists from the
// start, so a scrape shows zeros rather than missing series.
func (o *Ops) Collect(ch chan<- prometheus.Metric) {
	o.mu.Lock()
	threads := o.threads
	o.mu.Unlock()
	for l, level := range Levels {
		for k, kind := range Kinds {
			for p, path := range Paths {
				if !occurs(l, p) {
					continue
				}
				var n uint64
				for _, t := range threads {
					n += t.count[l][k][p].Load()
				}
				ch <- prometheus.MustNewConstMetric(descOps, prometheus.CounterValue, float64(n), level, kind, path)
			}
			var h histogramSum
			for _, t := range threads {
				h.add(&t.latency[l][k])
			}
			ch <- prometheus.MustNewConstHistogram(descLatency, h.count, h.sum.Seconds(), h.cumulative(), level, kind)
		}
	}
}
