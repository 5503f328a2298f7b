package disk

import (
	"sync/atomic"
	"time"
)

// SyncBuckets is how many bounds the log fsyncs' duration histogram has.
const SyncBuckets = 12

// SyncBound is the upper bound of bucket i of the log fsyncs' duration
// histogram (SyncStats.Buckets): 50 µs doubling to 102.4 ms, which spans
// a tmpfs sync and a disk's worst.
func SyncBound(i int) time.Duration { return 50 * time.Microsecond << i }

// SyncStats are the fsyncs of the log so far: how many, the time they
// took together, and how many took at most SyncBound(i) (cumulative; the
// rest of Count took longer than every bound).
type SyncStats struct {
	Count   uint64
	Total   time.Duration
	Buckets [SyncBuckets]uint64
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
	// in[i] counts the fsyncs in (SyncBound(i-1), SyncBound(i)].
	in [SyncBuckets]atomic.Uint64
}

func (c *syncClock) observe(d time.Duration) {
	c.count.Add(1)
	c.nanos.Add(uint64(d))
	for i := range c.in {
		if d <= SyncBound(i) {
			c.in[i].Add(1)
			return
		}
	}
}

func (c *syncClock) stats() SyncStats {
	var s SyncStats
	var cum uint64
	for i := range c.in {
		cum += c.in[i].Load()
		s.Buckets[i] = cum
	}
	s.Count, s.Total = c.count.Load(), time.Duration(c.nanos.Load())
	return s
}
