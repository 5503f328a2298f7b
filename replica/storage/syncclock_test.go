package storage

import (
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
	require.Len(t, s.Buckets, len(SyncBuckets))
	assert.EqualValues(t, 6, s.Count)
	assert.Equal(t, 10*time.Microsecond+50*time.Microsecond+51*time.Microsecond+300*time.Microsecond+
		2*time.Millisecond+time.Second, s.Total)
	assert.Equal(t, s.Total/6, s.Mean())
	at := func(bound time.Duration) uint64 {
		for i, b := range SyncBuckets {
			if b == bound {
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
	assert.EqualValues(t, 5, s.Buckets[len(s.Buckets)-1], "a second is above every bound")
	assert.Zero(t, SyncStats{}.Mean())
}
