package batcher

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Options.Delay holds every message for about Delay after its Send and keeps
// FIFO order (PROTOCOL.md section 7.3).
func TestDelayHoldsMessagesAndKeepsFIFO(t *testing.T) {
	const delay = 80 * time.Millisecond
	for _, batchDelay := range []time.Duration{0, 20 * time.Millisecond} {
		t.Run(batchDelay.String(), func(t *testing.T) {
			cli, srv := pipePair(t)
			b := newTestBatcher(t, cli, Options{Delay: delay, BatchDelay: batchDelay})
			r := startReader(srv)

			const n = 50
			sent := make([]time.Time, n)
			for i := range n {
				sent[i] = time.Now()
				require.NoError(t, b.Send(testMsg{Seq: uint32(i)}))
			}
			got := r.recv(t, n)
			for i, a := range got {
				require.EqualValues(t, i, a.msg.Seq, "FIFO")
				lat := a.at.Sub(sent[i])
				assert.GreaterOrEqual(t, lat, delay, "message %d released early", i)
				assert.Less(t, lat, delay+slack, "message %d", i)
			}
		})
	}
}

// Concurrent senders streaming under a short Delay: the writer keeps finding
// queued messages whose release time has not come yet (it holds them for the
// next batch). No message leaves early and per-sender FIFO holds, even though
// concurrent senders' release times interleave slightly with the queue order.
func TestDelayConcurrentSendersFIFO(t *testing.T) {
	const (
		senders, perSender = 8, 400
		delay              = time.Millisecond
	)
	cli, srv := pipePair(t)
	b := newTestBatcher(t, cli, Options{Delay: delay})
	r := startReader(srv)

	sent := make([][]time.Time, senders)
	var wg sync.WaitGroup
	for s := range senders {
		sent[s] = make([]time.Time, perSender)
		wg.Go(func() {
			for i := range perSender {
				sent[s][i] = time.Now()
				assert.NoError(t, b.Send(testMsg{Sender: uint32(s), Seq: uint32(i)}))
			}
		})
	}
	got := r.recv(t, senders*perSender)
	wg.Wait()
	next := make([]uint32, senders)
	for _, a := range got {
		s, i := a.msg.Sender, a.msg.Seq
		require.Equal(t, next[s], i)
		next[s]++
		require.GreaterOrEqual(t, a.at.Sub(sent[s][i]), delay, "sender %d message %d released early", s, i)
	}
}

// A message whose release time has not come when the writer finds it in the
// queue is not written early and not reordered: it opens the next batch.
func TestDelayUnreleasedMessageWaitsForNextBatch(t *testing.T) {
	const delay = 300 * time.Millisecond
	cli, srv := pipePair(t)
	b := newTestBatcher(t, cli, Options{Delay: delay})

	// m0 goes out after Delay and blocks the writer: nobody reads yet.
	require.NoError(t, b.Send(testMsg{Seq: 0}))
	require.Equal(t, 1, nextWrite(t, cli).msgs)
	require.NoError(t, b.Send(testMsg{Seq: 1}))

	// Let m1 age past its release time: a probe through another batcher with the
	// same Delay arrives no earlier than Delay after it was sent.
	probeCli, probeSrv := pipePair(t)
	probe := newTestBatcher(t, probeCli, Options{Delay: delay})
	probeReader := startReader(probeSrv)
	require.NoError(t, probe.Send(testMsg{Seq: 99}))
	probeReader.recv(t, 1)

	sent2 := time.Now()
	require.NoError(t, b.Send(testMsg{Seq: 2}))

	// Unblocked, the writer finds m1 released and m2 not: m1 goes alone, m2
	// follows in its own batch once released.
	r := startReader(srv)
	got := r.recv(t, 3)
	for i, a := range got {
		require.EqualValues(t, i, a.msg.Seq, "FIFO")
	}
	assert.GreaterOrEqual(t, got[2].at.Sub(sent2), delay)
	assert.Equal(t, 1, nextWrite(t, cli).msgs, "m1 is not held back for m2")
	assert.Equal(t, 1, nextWrite(t, cli).msgs)
}
