package metrics

import (
	"math/bits"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The latency buckets run from 50 us to about 3.3 s, doubling: loopback
// fast paths sit at the bottom, emulated WAN round trips in the middle.
// Doubling bounds let observe find a bucket with one bit count instead
// of a search.
const (
	firstBound = 50 * time.Microsecond
	nBounds    = 17
)

var latencyBuckets = prometheus.ExponentialBuckets(firstBound.Seconds(), 2, nBounds)

// histogram is a latency histogram that one goroutine writes and any
// reads: per bucket, the observations in it alone (the last one is
// +Inf), and their sum. Its count is the sum of its buckets, so a
// scrape's count always matches its buckets; the sum may trail them by
// the observation being recorded.
type histogram struct {
	buckets [nBounds + 1]atomic.Uint64
	sum     atomic.Int64 // nanoseconds
}

func (h *histogram) observe(d time.Duration) {
	h.buckets[bucketOf(d)].Add(1)
	h.sum.Add(int64(d))
}

// bucketOf is the index of the smallest bound d is at most
// (firstBound << i), or nBounds (+Inf) when d exceeds them all.
func bucketOf(d time.Duration) int {
	if d <= firstBound {
		return 0
	}
	// d <= firstBound << i  <=>  ceil(d / firstBound) <= 1 << i.
	i := bits.Len64(uint64((d - 1) / firstBound))
	return min(i, nBounds)
}

// histogramSum adds histograms up for a scrape.
type histogramSum struct {
	buckets [nBounds + 1]uint64
	count   uint64
	sum     time.Duration
}

func (s *histogramSum) add(h *histogram) {
	for i := range h.buckets {
		n := h.buckets[i].Load()
		s.buckets[i] += n
		s.count += n
	}
	s.sum += time.Duration(h.sum.Load())
}

// cumulative is the buckets as Prometheus wants them: by upper bound,
// the observations at most that bound.
func (s *histogramSum) cumulative() map[float64]uint64 {
	m := make(map[float64]uint64, nBounds)
	var n uint64
	for i, bound := range latencyBuckets {
		n += s.buckets[i]
		m[bound] = n
	}
	return m
}
