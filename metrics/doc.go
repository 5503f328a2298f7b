// Package metrics serves a process's Prometheus metrics and pprof over
// HTTP (the metrics key of the configuration, or -metrics), and holds the
// client's per-operation metrics.
//
// It costs nothing when off: no registry, no listener, and the callers
// hold a nil *Ops. When on, the per-operation work is one counter
// increment and one histogram observation on pre-resolved children (no
// label lookup on the hot path); the replica's state is read at scrape
// time from values its event loop publishes (replica/metrics.go).
//
// Thread-safety: everything here may be used from any goroutine.
package metrics
