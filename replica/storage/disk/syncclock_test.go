package disk

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSyncClockBuckets(t *testing.T) {
	var c syncClock
	for _, d := range []time.Duration{10 * time.Microsecond, 50 * time.Microsecond, 51 * time.Microsecond,
		300 * time.Microsecond, 2 * time.Millisecond, time.Second} {
		c.observe(d)
	}
	s := c.stats()
	assert.EqualValues(t, 6, s.Count)
	assert.Equal(t, 10*time.Microsecond+50*time.Microsecond+51*time.Microsecond+300*time.Microsecond+
		2*time.Millisecond+time.Second, s.Total)
	assert.Equal(t, s.Total/6, s.Mean())
	at := func(bound time.Duration) uint64 {
		for i := range SyncBuckets {
			if SyncBound(i) == bound {
				return s.Buckets[i]
			}
		}
		t.Fatalf("no bucket at %v", bound)
		return 0
	}
	assert.EqualValues(t, 2, at(50*time.Microsecond), "a bound holds what equals it")
	assert.EqualValues(t, 3, at(100*time.Microsecond))
	assert.EqualValues(t, 4, at(400*time.Microsecond))
	assert.EqualValues(t, 5, at(3200*time.Microsecond))
	assert.EqualValues(t, 5, at(102400*time.Microsecond), "a second is above every bound")
	assert.Zero(t, SyncStats{}.Mean())
}

// While fsyncs are observed, a reader never sees more in the buckets than
// the count: a scrape turns them into a histogram whose count must not
// be below its buckets'.
func TestSyncClockReaderSeesNoMoreInBucketsThanCounted(t *testing.T) {
	var c syncClock
	const writers, each = 2, 500_000
	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				c.observe(time.Microsecond)
			}
		}()
	}
	for {
		s := c.stats()
		require.LessOrEqual(t, s.Buckets[SyncBuckets-1], s.Count)
		if s.Count == writers*each {
			break
		}
	}
	wg.Wait()
}
