package storage

import (
	"sync/atomic"
	"time"
)

// syncBuckets is how many bounds the fsyncs' histogram has.
const syncBuckets = 12

// SyncBuckets are the upper bounds of the log fsyncs' duration histogram
// (SyncStats.Buckets): 50 µs doubling to 102.4 ms, which spans a tmpfs
// sync and a disk's worst.
var SyncBuckets = func() []time.Duration {
	b := make([]time.Duration, syncBuckets)
	for i := range b {
		b[i] = 50 * time.Microsecond << i
	}
	return b
}()

// SyncStats are the fsyncs of the log so far: how many, the time they
// took together, and how many took at most SyncBuckets[i] (cumulative).
type SyncStats struct {
	Count   uint64
	Total   time.Duration
	Buckets []uint64
}

// Mean is the mean fsync, zero before the first.
func (s SyncStats) Mean() time.Duration {
	if s.Count == 0 {
		return 0
	}
	return s.Total / time.Duration(s.Count)
}

// syncClock times the log's fsyncs (walFile); a scrape or the replica's
// last report reads it from another goroutine. An fsync is counted
// before it goes into its bucket, and stats reads the buckets before the
// count, so that a reader never sees more in the buckets than the count
// (a histogram a scrape would reject).
type syncClock struct {
	count, nanos atomic.Uint64
	// in[i] counts the fsyncs in (SyncBuckets[i-1], SyncBuckets[i]];
	// the last slot those above every bound.
	in [syncBuckets + 1]atomic.Uint64
}

func (c *syncClock) observe(d time.Duration) {
	i := 0
	for i < len(SyncBuckets) && d > SyncBuckets[i] {
		i++
	}
	c.count.Add(1)
	c.nanos.Add(uint64(d))
	c.in[i].Add(1)
}

func (c *syncClock) stats() SyncStats {
	s := SyncStats{Buckets: make([]uint64, len(SyncBuckets))}
	var cum uint64
	for i := range SyncBuckets {
		cum += c.in[i].Load()
		s.Buckets[i] = cum
	}
	s.Count, s.Total = c.count.Load(), time.Duration(c.nanos.Load())
	return s
}
