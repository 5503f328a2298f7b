// Package metrics serves a process's Prometheus metrics and pprof over
// HTTP (the metrics key of the configuration, or -metrics), and holds the
// client's per-operation metrics.
//
// It costs nothing when off: no registry, no listener, and the callers
// hold a nil *ThreadOps. When on, the per-operation work is three atomic
// adds on counters of the operation's own thread (no label lookup, no
// bucket search, no cache line shared with another thread), which a
// scrape adds up; the replica's state is read at scrape time from
// values its event loop publishes (replica/server/metrics.go).
//
// Thread-safety: everything here may be used from any goroutine.
package metrics
