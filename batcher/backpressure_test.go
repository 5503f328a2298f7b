package batcher

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slack absorbs scheduling noise (the race detector, a loaded CI machine) in
// upper bounds on how long an operation may take.
const slack = time.Second

// A peer that never reads stalls only its own batcher: another batcher keeps
// delivering, and Close on the stalled one returns promptly.
func TestStalledPeerDoesNotStallOthers(t *testing.T) {
	stalledCli, _ := pipePair(t) // the other end never reads
	healthyCli, healthySrv := pipePair(t)
	stalled := newTestBatcher(t, stalledCli, Options{QueueLen: 64, WriteTimeout: time.Minute, EnqueueTimeout: time.Minute})
	healthy := newTestBatcher(t, healthyCli, Options{QueueLen: 64})
	r := startReader(healthySrv)

	blockWriter(t, stalled, stalledCli, testMsg{Seq: 0})
	for seq := uint32(1); seq <= 10; seq++ {
		require.NoError(t, stalled.Send(testMsg{Seq: seq}))
	}

	const n = 2000 // well beyond QueueLen: the healthy queue turns over many times
	go func() {
		for seq := range uint32(n) {
			if !assert.NoError(t, healthy.Send(testMsg{Seq: seq})) {
				return
			}
		}
	}()
	got := r.recv(t, n)
	assert.EqualValues(t, n-1, got[n-1].msg.Seq)

	select {
	case <-stalled.Done():
		require.FailNow(t, "stalled batcher stopped early", "err: %v", stalled.Err())
	default:
	}

	start := time.Now()
	require.NoError(t, stalled.Close())
	assert.Less(t, time.Since(start), slack, "Close unblocks a writer stuck in Write")
	assert.EqualValues(t, 11, stalled.Stats().Dropped)
	assert.Zero(t, stalled.Stats().Messages)
}

// A write that misses its deadline stops the batcher within about WriteTimeout.
func TestWriteDeadlineStopsStalledBatcher(t *testing.T) {
	const writeTimeout = 100 * time.Millisecond
	cli, _ := pipePair(t)
	b := newTestBatcher(t, cli, Options{WriteTimeout: writeTimeout})

	start := time.Now()
	require.NoError(t, b.Send(testMsg{Seq: 1}))
	select {
	case <-b.Done():
	case <-time.After(writeTimeout + slack):
		require.FailNow(t, "write deadline did not stop the batcher")
	}
	elapsed := time.Since(start)
	assert.GreaterOrEqual(t, elapsed, writeTimeout)
	assert.ErrorIs(t, b.Err(), os.ErrDeadlineExceeded)
	assert.ErrorIs(t, b.Send(testMsg{Seq: 2}), ErrClosed)
	assert.EqualValues(t, 1, b.Stats().Dropped)
}

// When the queue stays full, Send blocks no longer than EnqueueTimeout, then the
// batcher stops with ErrQueueFull and later Sends fail with ErrClosed.
func TestQueueFullStopsBatcher(t *testing.T) {
	const enqueueTimeout = 100 * time.Millisecond
	cli, _ := pipePair(t)
	b := newTestBatcher(t, cli, Options{QueueLen: 4, WriteTimeout: time.Minute, EnqueueTimeout: enqueueTimeout})
	blockWriter(t, b, cli, testMsg{Seq: 0})

	var (
		err      error
		accepted int
	)
	for seq := uint32(1); seq < 100 && err == nil; seq++ {
		start := time.Now()
		err = b.Send(testMsg{Seq: seq})
		took := time.Since(start)
		assert.Less(t, took, enqueueTimeout+slack, "Send %d blocked too long", seq)
		if err == nil {
			accepted++
		} else {
			assert.GreaterOrEqual(t, took, enqueueTimeout, "gave up before EnqueueTimeout")
		}
	}
	require.ErrorIs(t, err, ErrQueueFull)
	assert.Equal(t, 4, accepted, "exactly QueueLen messages fit behind the blocked write")

	<-b.Done()
	assert.ErrorIs(t, b.Err(), ErrQueueFull)
	err = b.Send(testMsg{Seq: 100})
	assert.ErrorIs(t, err, ErrClosed)
	assert.NotErrorIs(t, err, ErrQueueFull)
	assert.EqualValues(t, 5, b.Stats().Dropped, "the blocked write and the queue")
	assert.NoError(t, b.Close())
}
