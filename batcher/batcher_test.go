package batcher

import (
	"io"
	"net"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"
)

func newTestBatcher(t *testing.T, conn net.Conn, opts Options) *Batcher[testMsg] {
	t.Helper()
	b := New[testMsg](conn, encodeTest, opts, zaptest.NewLogger(t))
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// Every sender's messages arrive in its own order, and every message arrives
// exactly once, over both transports.
func TestFIFOManyConcurrentSenders(t *testing.T) {
	for name, pair := range map[string]func(testing.TB) (*countingConn, net.Conn){
		"pipe": pipePair,
		"tcp":  tcpPair,
	} {
		t.Run(name, func(t *testing.T) {
			const senders, perSender = 16, 500
			cli, srv := pair(t)
			r := startReader(srv)
			b := newTestBatcher(t, cli, Options{QueueLen: 64, MaxBatchMsgs: 32})

			var wg sync.WaitGroup
			for s := range senders {
				wg.Go(func() {
					for i := range perSender {
						assert.NoError(t, b.Send(testMsg{Sender: uint32(s), Seq: uint32(i), Pad: i % 40}))
					}
				})
			}
			got := r.recv(t, senders*perSender)
			wg.Wait()

			next := make([]uint32, senders)
			for _, a := range got {
				s := a.msg.Sender
				require.Less(t, int(s), senders)
				require.Equal(t, next[s], a.msg.Seq, "sender %d out of order", s)
				next[s]++
			}
			for s, n := range next {
				assert.EqualValues(t, perSender, n, "sender %d", s)
			}

			require.NoError(t, b.Close())
			<-r.done
			assert.Empty(t, r.out, "no message beyond those sent")
			st := b.Stats()
			assert.EqualValues(t, senders*perSender, st.Messages)
			assert.EqualValues(t, cli.writes.Load(), st.Batches, "one conn.Write per batch")
			assert.Zero(t, st.Dropped)
		})
	}
}

func TestCloseTwiceAndSendAfterClose(t *testing.T) {
	cli, srv := pipePair(t)
	r := startReader(srv)
	b := newTestBatcher(t, cli, Options{})

	require.NoError(t, b.Send(testMsg{Seq: 1}))
	r.recv(t, 1)

	require.NoError(t, b.Close())
	require.NoError(t, b.Close(), "second Close is a no-op")
	<-b.Done()
	assert.ErrorIs(t, b.Err(), ErrClosed)
	assert.ErrorIs(t, b.Send(testMsg{Seq: 2}), ErrClosed)

	<-r.done // the batcher closed the connection
	assert.Equal(t, Stats{Batches: 1, Messages: 1, Bytes: 12}, b.Stats())
}

func TestConcurrentCloseAndSend(t *testing.T) {
	cli, srv := pipePair(t)
	startReader(srv)
	b := newTestBatcher(t, cli, Options{QueueLen: 8})

	var wg sync.WaitGroup
	var accepted [8]int
	for s := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				err := b.Send(testMsg{Sender: uint32(s), Seq: uint32(i)})
				if err != nil {
					assert.ErrorIs(t, err, ErrClosed)
					return
				}
				accepted[s]++
			}
		})
	}
	wg.Go(func() { assert.NoError(t, b.Close()) })
	wg.Go(func() { assert.NoError(t, b.Close()) })
	wg.Wait()

	total := 0
	for _, n := range accepted {
		total += n
	}
	st := b.Stats()
	assert.EqualValues(t, total, st.Messages+st.Dropped, "every accepted message is written or counted as dropped")
}

func TestWriteErrorStopsBatcher(t *testing.T) {
	cli, srv := pipePair(t)
	require.NoError(t, srv.Close()) // the peer is gone
	b := newTestBatcher(t, cli, Options{})

	require.NoError(t, b.Send(testMsg{Seq: 1}))
	<-b.Done()
	err := b.Err()
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrClosed)
	assert.ErrorIs(t, err, io.ErrClosedPipe)

	err = b.Send(testMsg{Seq: 2})
	assert.ErrorIs(t, err, ErrClosed)
	assert.Contains(t, err.Error(), io.ErrClosedPipe.Error(), "the stop reason is in the error")
	assert.EqualValues(t, 1, b.Stats().Dropped)
	assert.NoError(t, b.Close())
}

func TestInvalidOptionsGiveStoppedBatcher(t *testing.T) {
	cli, srv := pipePair(t)
	r := startReader(srv)
	b := newTestBatcher(t, cli, Options{QueueLen: -1})

	<-b.Done()
	assert.ErrorContains(t, b.Err(), "QueueLen must not be negative")
	assert.ErrorIs(t, b.Send(testMsg{}), ErrClosed)
	<-r.done // conn closed: the batcher owns it
	assert.NoError(t, b.Close())
}

func TestStatsAvgBatch(t *testing.T) {
	assert.Zero(t, Stats{}.AvgBatch())
	assert.InDelta(t, 2.5, Stats{Batches: 4, Messages: 10}.AvgBatch(), 1e-9)
}

// Stopped reports the final counters exactly once, before Done, however
// the batcher stops: Close, a failed write, or options it refused.
func TestStoppedReportsFinalCounters(t *testing.T) {
	record := func() (*[]Stats, func(Stats)) {
		var got []Stats
		return &got, func(s Stats) { got = append(got, s) }
	}

	t.Run("close", func(t *testing.T) {
		cli, srv := pipePair(t)
		r := startReader(srv)
		got, hook := record()
		b := newTestBatcher(t, cli, Options{Stopped: hook})
		for i := range 10 {
			require.NoError(t, b.Send(testMsg{Seq: uint32(i)}))
		}
		r.recv(t, 10)
		require.NoError(t, b.Close())
		require.Len(t, *got, 1, "reported by the time Close returns")
		assert.Equal(t, b.Stats(), (*got)[0])
		assert.EqualValues(t, 10, (*got)[0].Messages)
		require.NoError(t, b.Close())
		assert.Len(t, *got, 1, "once")
	})
	t.Run("failed write", func(t *testing.T) {
		cli, srv := pipePair(t)
		require.NoError(t, srv.Close())
		got, hook := record()
		b := newTestBatcher(t, cli, Options{Stopped: hook})
		require.NoError(t, b.Send(testMsg{}))
		<-b.Done()
		require.Len(t, *got, 1, "reported before Done")
		assert.EqualValues(t, 1, (*got)[0].Dropped)
	})
	t.Run("invalid options", func(t *testing.T) {
		cli, _ := pipePair(t)
		got, hook := record()
		b := newTestBatcher(t, cli, Options{QueueLen: -1, Stopped: hook})
		<-b.Done()
		assert.Equal(t, []Stats{{}}, *got)
	})
}
