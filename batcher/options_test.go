package batcher

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want []string // substrings of the error; none means valid
	}{
		{"zero value", Options{}, nil},
		{"all set", Options{BatchDelay: 150 * time.Microsecond, MaxBatchBytes: 1, MaxBatchMsgs: 1, QueueLen: 1,
			WriteTimeout: time.Second, EnqueueTimeout: time.Second, Delay: time.Millisecond}, nil},
		{"negative batch delay", Options{BatchDelay: -1}, []string{"BatchDelay must not be negative, got -1ns"}},
		{"negative caps", Options{MaxBatchBytes: -2, MaxBatchMsgs: -3},
			[]string{"MaxBatchBytes must not be negative, got -2", "MaxBatchMsgs must not be negative, got -3"}},
		{"negative queue", Options{QueueLen: -4}, []string{"QueueLen must not be negative, got -4"}},
		{"negative timeouts", Options{WriteTimeout: -time.Second, EnqueueTimeout: -time.Millisecond},
			[]string{"WriteTimeout must not be negative, got -1s", "EnqueueTimeout must not be negative, got -1ms"}},
		{"negative delay", Options{Delay: -time.Microsecond}, []string{"Delay must not be negative, got -1µs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.Validate()
			if len(tt.want) == 0 {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestOptionsDefaultsFillOnlyZeroFields(t *testing.T) {
	got := Options{MaxBatchMsgs: 7, BatchDelay: time.Millisecond}.withDefaults()
	assert.Equal(t, Options{
		BatchDelay:     time.Millisecond,
		MaxBatchBytes:  DefaultMaxBatchBytes,
		MaxBatchMsgs:   7,
		QueueLen:       DefaultQueueLen,
		WriteTimeout:   DefaultWriteTimeout,
		EnqueueTimeout: DefaultEnqueueTimeout,
	}, got)
}

// TestEncodersBoundsConcurrentEncoding: with a one-unit semaphore shared by
// several batchers, no two writers ever encode at the same time, and every
// message still arrives.
func TestEncodersBoundsConcurrentEncoding(t *testing.T) {
	sem := semaphore.NewWeighted(1)
	var inside, worst atomic.Int32
	encode := func(dst []byte, m []byte) []byte {
		n := inside.Add(1)
		for {
			w := worst.Load()
			if n <= w || worst.CompareAndSwap(w, n) {
				break
			}
		}
		dst = append(dst, m...)
		inside.Add(-1)
		return dst
	}
	const batchers, msgs = 4, 200
	var wg sync.WaitGroup
	for range batchers {
		a, b := net.Pipe()
		bt := New[[]byte](a, encode, Options{Encoders: sem}, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, msgs)
			_, err := io.ReadFull(b, buf)
			assert.NoError(t, err)
			b.Close()
		}()
		for range msgs {
			require.NoError(t, bt.Send([]byte{1}))
		}
		defer bt.Close()
	}
	wg.Wait()
	require.Equal(t, int32(1), worst.Load(), "two writers encoded at once")
}
