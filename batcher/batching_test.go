package batcher

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// blockWriter sends one message and waits until the writer is inside conn.Write
// with it. On a net.Pipe nobody reads yet, so the writer stays blocked there and
// everything sent next queues up.
func blockWriter(t *testing.T, b *Batcher[testMsg], cli *countingConn, m testMsg) {
	t.Helper()
	require.NoError(t, b.Send(m))
	ev := nextWrite(t, cli)
	require.Equal(t, 1, ev.msgs)
}

// Under load the writer drains the queue greedily: far fewer writes than messages.
func TestLoadBatchesManyMessagesPerWrite(t *testing.T) {
	const senders, perSender = 8, 250
	const messages = senders*perSender + 1
	cli, srv := pipePair(t)
	b := newTestBatcher(t, cli, Options{})
	blockWriter(t, b, cli, testMsg{Sender: senders, Seq: 0})

	var wg sync.WaitGroup
	for s := range senders {
		wg.Go(func() {
			for i := range perSender {
				assert.NoError(t, b.Send(testMsg{Sender: uint32(s), Seq: uint32(i)}))
			}
		})
	}
	wg.Wait() // the queue (4096) holds them all while the writer is blocked

	r := startReader(srv)
	r.recv(t, messages)
	require.NoError(t, b.Close())

	writes := cli.writes.Load()
	t.Logf("%d messages in %d writes", messages, writes)
	assert.Less(t, writes*4, int64(messages))
	// 1 + ceil(2000/128) = 17 writes: every batch after the first is full.
	assert.EqualValues(t, 1+(messages-1+DefaultMaxBatchMsgs-1)/DefaultMaxBatchMsgs, writes)
	st := b.Stats()
	assert.EqualValues(t, writes, st.Batches)
	assert.EqualValues(t, messages, st.Messages)
	assert.EqualValues(t, messages*12, st.Bytes)
}

// MaxBatchMsgs and MaxBatchBytes bound every write; a message that would cross
// the byte cap opens the next batch, and an oversized one goes alone. Every
// write holds whole frames.
func TestBatchCaps(t *testing.T) {
	tests := []struct {
		name     string
		opts     Options
		pads     []int // payload sizes sent while the writer is blocked
		maxMsgs  int
		maxBytes int
	}{
		{"msgs", Options{MaxBatchMsgs: 16}, repeat(0, 100), 16, 16 * 12},
		{"bytes", Options{MaxBatchBytes: 50}, repeat(0, 100), 4, 48},
		{"bytes-mixed", Options{MaxBatchBytes: 100}, []int{10, 60, 0, 0, 200, 5, 80, 80, 1, 1, 1}, 100, 212},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cli, srv := pipePair(t)
			b := newTestBatcher(t, cli, tt.opts)
			blockWriter(t, b, cli, testMsg{Seq: 0})
			for i, pad := range tt.pads {
				require.NoError(t, b.Send(testMsg{Seq: uint32(i + 1), Pad: pad}))
			}
			r := startReader(srv)
			got := r.recv(t, len(tt.pads)+1)
			for i, a := range got {
				require.EqualValues(t, i, a.msg.Seq, "FIFO")
			}
			require.NoError(t, b.Close())

			total := 0
			for len(cli.events) > 0 {
				ev := <-cli.events
				assert.True(t, ev.whole, "a write holds whole frames")
				assert.LessOrEqual(t, ev.msgs, tt.maxMsgs)
				assert.LessOrEqual(t, ev.bytes, tt.maxBytes)
				if ev.bytes > tt.opts.withDefaults().MaxBatchBytes {
					assert.Equal(t, 1, ev.msgs, "only a single oversized message may cross the cap")
				}
				total += ev.msgs
			}
			assert.Equal(t, len(tt.pads), total)
		})
	}
}

func repeat(v, n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// sendAlone sends m on an otherwise idle batcher and returns how long it took to
// reach the reader and the write that carried it.
func sendAlone(t *testing.T, b *Batcher[testMsg], cli *countingConn, r *reader, m testMsg) (time.Duration, writeEvent) {
	t.Helper()
	start := time.Now()
	require.NoError(t, b.Send(m))
	a := r.recv(t, 1)[0]
	require.Equal(t, m.Seq, a.msg.Seq)
	return a.at.Sub(start), nextWrite(t, cli)
}

// batchDelay is large so that "waited" and "did not wait" cannot be confused.
const batchDelay = 150 * time.Millisecond

// promptly asserts that lone messages are not held for BatchDelay: each of
// several attempts must beat BatchDelay (a writer that waits never does), and the
// best one must beat BatchDelay/2 (scheduling noise does not hit every attempt).
func promptly(t *testing.T, b *Batcher[testMsg], cli *countingConn, r *reader, seq uint32) uint32 {
	t.Helper()
	best := time.Hour
	for range 5 {
		lat, ev := sendAlone(t, b, cli, r, testMsg{Seq: seq})
		seq++
		assert.Less(t, lat, batchDelay, "lone message %d waited", seq-1)
		assert.Equal(t, 1, ev.msgs)
		best = min(best, lat)
	}
	assert.Less(t, best, batchDelay/2)
	return seq
}

// On an idle link single messages go out at once even with a BatchDelay
// (PROTOCOL.md section 9.1, adaptive rule).
func TestIdleSingleMessageNotDelayed(t *testing.T) {
	cli, srv := pipePair(t)
	b := newTestBatcher(t, cli, Options{BatchDelay: batchDelay})
	r := startReader(srv)
	promptly(t, b, cli, r, 0)
}

// After a batch of more than one message the next batch is held open for
// BatchDelay, so messages sent in that window share one write; after a batch of
// one the writer is back to flushing at once.
func TestBatchDelayAfterMultiMessageBatch(t *testing.T) {
	cli, srv := pipePair(t)
	b := newTestBatcher(t, cli, Options{BatchDelay: batchDelay})

	// A batch of one, then a batch of four queued behind it.
	blockWriter(t, b, cli, testMsg{Seq: 0})
	for seq := uint32(1); seq <= 4; seq++ {
		require.NoError(t, b.Send(testMsg{Seq: seq}))
	}
	r := startReader(srv)
	require.Equal(t, 4, nextWrite(t, cli).msgs, "no delay after a single-message batch")
	r.recv(t, 5)

	// Previous batch had 4: two messages sent back to back share one write,
	// which leaves BatchDelay after the first.
	start := time.Now()
	require.NoError(t, b.Send(testMsg{Seq: 5}))
	require.NoError(t, b.Send(testMsg{Seq: 6}))
	got := r.recv(t, 2)
	assert.GreaterOrEqual(t, got[0].at.Sub(start), batchDelay)
	assert.Equal(t, 2, nextWrite(t, cli).msgs)

	// Previous batch had 2: even a lone message waits.
	lat, ev := sendAlone(t, b, cli, r, testMsg{Seq: 7})
	assert.GreaterOrEqual(t, lat, batchDelay)
	assert.Equal(t, 1, ev.msgs)

	// Previous batch had 1: no wait any more.
	promptly(t, b, cli, r, 8)

	require.NoError(t, b.Close())
	assert.EqualValues(t, 4+5, b.Stats().Batches)
}

// With BatchDelay 0 the writer flushes as soon as the queue is momentarily
// empty: a lone message after a large batch is not held back.
func TestZeroBatchDelayNeverWaits(t *testing.T) {
	cli, srv := pipePair(t)
	b := newTestBatcher(t, cli, Options{})
	blockWriter(t, b, cli, testMsg{Seq: 0})
	for seq := uint32(1); seq <= 10; seq++ {
		require.NoError(t, b.Send(testMsg{Seq: seq}))
	}
	r := startReader(srv)
	r.recv(t, 11)
	require.Equal(t, 10, nextWrite(t, cli).msgs)

	_, ev := sendAlone(t, b, cli, r, testMsg{Seq: 11})
	assert.Equal(t, 1, ev.msgs, "written alone, not held for company")
}
