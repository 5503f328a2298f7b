package metrics

import (
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

// Ops counts a client process's operations and their latency. A nil
// *Ops is off and Observe does nothing.
type Ops struct {
	count   [2][3][4]prometheus.Counter
	latency [2][3]prometheus.Observer
}

// latencyBuckets run from 50 us to about 3.3 s, doubling: loopback fast
// paths sit at the bottom, emulated WAN round trips in the middle.
var latencyBuckets = prometheus.ExponentialBuckets(50e-6, 2, 17)

// NewOps registers the operation metrics in reg.
func NewOps(reg prometheus.Registerer) *Ops {
	count := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "client_operations_total",
		Help: "Operations completed by this process's sessions, by level, kind and path (fast/slow for strong ones, weak, or failed).",
	}, []string{"level", "kind", "path"})
	lat := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: Namespace, Name: "client_operation_latency_seconds",
		Help:    "Latency of the successful operations, from submission to completion, by level and kind.",
		Buckets: latencyBuckets,
	}, []string{"level", "kind"})
	reg.MustRegister(count, lat)
	o := &Ops{}
	// Every child exists from the start, so a scrape shows zeros rather
	// than missing series, and Observe does no label lookup.
	for l, level := range Levels {
		for k, kind := range Kinds {
			o.latency[l][k] = lat.WithLabelValues(level, kind)
			for p, path := range Paths {
				// Only the pairs that occur: a strong operation is
				// fast or slow, a weak one is weak.
				if !occurs(l, p) {
					continue
				}
				o.count[l][k][p] = count.WithLabelValues(level, kind, path)
			}
		}
	}
	return o
}

// occurs reports whether an operation of level l can complete on path
// p: a strong one fast, slow or failed, a weak one weak or failed.
func occurs(l, p int) bool {
	if p == PathFailed {
		return true
	}
	return (l == LevelStrong) == (p == PathFast || p == PathSlow)
}

// Observe records one completed operation; level, kind and path index
// Levels, Kinds and Paths (a strong operation's path is fast, slow or
// failed, a weak one's weak or failed). A failed operation has no
// latency.
func (o *Ops) Observe(level, kind, path int, d time.Duration) {
	if o == nil {
		return
	}
	o.count[level][kind][path].Inc()
	if path != PathFailed {
		o.latency[level][kind].Observe(d.Seconds())
	}
}

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
