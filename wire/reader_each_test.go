package wire

import (
	"errors"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
)

// tcpPair returns the two ends of a loopback TCP connection.
func tcpPair(t *testing.T) (*net.TCPConn, *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	type accepted struct {
		c   net.Conn
		err error
	}
	ch := make(chan accepted, 1)
	go func() {
		c, err := ln.Accept()
		ch <- accepted{c, err}
	}()
	w, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	a := <-ch
	require.NoError(t, a.err)
	t.Cleanup(func() { w.Close(); a.c.Close() })
	return w.(*net.TCPConn), a.c.(*net.TCPConn)
}

// counted is a socket that counts the reads Each makes on it.
type counted struct {
	*net.TCPConn
	reads atomic.Int64
}

func (c *counted) CountRead() { c.reads.Add(1) }

// TestEachTCPStream: every message arrives intact and in order through
// writes cut at odd places, frames larger than the read buffer (reads that
// fill it) included, and the clean end of the stream is io.EOF.
func TestEachTCPStream(t *testing.T) {
	var msgs, want []Message
	for _, ex := range examples() {
		msgs = append(msgs, ex.msg)
		want = append(want, ex.expected())
	}
	big := &Accept{Ballot: 1}
	for i := range 40 {
		big.Entries = append(big.Entries, Entry{Slot: kvs.Slot(1 + i), Cmd: cmdA,
			Command: kvs.Command{Op: kvs.OpPut, Key: "k", Value: bigValue}, Level: Strong})
	}
	msgs, want = append(msgs, big), append(want, big)
	data := stream(t, append(msgs, msgs...)...)
	want = append(want, want...)
	require.Greater(t, len(data), keepBuf)

	w, c := tcpPair(t)
	go func() {
		for off, step := 0, 1; off < len(data); step = step*7%65521 + 1 {
			end := min(off+step, len(data))
			if _, err := w.Write(data[off:end]); err != nil {
				return
			}
			off = end
		}
		w.CloseWrite()
	}()
	var got []Message
	err := NewReader(c, 0).Each(func(m Message, _ bool) error {
		got = append(got, m)
		return nil
	}, nil)
	require.Equal(t, io.EOF, err)
	require.Equal(t, want, got)
}

// TestEachCountsReads: the writer sends a batch only when the reader has
// handed on the last one. Each batch is then the last thing buffered
// (last is true at its end), and every read on the descriptor is counted:
// a batch costs the read that brings it and the one that finds the socket
// empty.
func TestEachCountsReads(t *testing.T) {
	const batches, perBatch = 200, 3
	w, c := tcpPair(t)
	src := &counted{TCPConn: c}
	handed := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		n := 0
		done <- NewReader(src, 0).Each(func(m Message, last bool) error {
			n++
			if n%perBatch != 0 {
				return nil
			}
			if !last {
				return errors.New("the end of a batch is not reported as last")
			}
			handed <- struct{}{}
			return nil
		}, nil)
	}()
	var frames []byte
	for i := range perBatch {
		frames = AppendFrame(frames, &Sync{Cmd: CmdID{Client: 1, Seq: Seq(i)}})
	}
	for range batches {
		_, err := w.Write(frames)
		require.NoError(t, err)
		select {
		case <-handed:
		case err := <-done:
			t.Fatal(err)
		}
	}
	w.Close()
	require.Equal(t, io.EOF, <-done)
	reads := src.reads.Load()
	assert.GreaterOrEqual(t, reads, int64(batches+1), "every batch and the end take a read")
	assert.LessOrEqual(t, reads, int64(2*batches+2), "more than two reads per batch")
}

// TestEachStopsOnClose: closing the connection ends a waiting Each with
// net.ErrClosed; a malformed frame ends it with ErrMalformed; fn's error
// is returned as it is.
func TestEachStops(t *testing.T) {
	t.Run("close", func(t *testing.T) {
		_, c := tcpPair(t)
		done := make(chan error, 1)
		go func() { done <- NewReader(c, 0).Each(func(Message, bool) error { return nil }, nil) }()
		c.Close()
		require.ErrorIs(t, <-done, net.ErrClosed)
	})
	t.Run("malformed", func(t *testing.T) {
		w, c := tcpPair(t)
		_, err := w.Write([]byte{1, 0, 0, 0, 0xff, 0})
		require.NoError(t, err)
		require.ErrorIs(t, NewReader(c, 0).Each(func(Message, bool) error { return nil }, nil), ErrMalformed)
	})
	t.Run("fn", func(t *testing.T) {
		w, c := tcpPair(t)
		_, err := w.Write(AppendFrame(nil, &Sync{Cmd: cmdA}))
		require.NoError(t, err)
		stop := errors.New("stop")
		require.Equal(t, stop, NewReader(c, 0).Each(func(Message, bool) error { return stop }, nil))
	})
}

// TestEachCloseWhileBusy: a consumer that cannot take a batch at once
// (ErrBusy) is waited for in flush, away from the socket's lock, so that
// closing the connection meanwhile returns at once; the batch is then
// handed on, and Each ends with net.ErrClosed.
func TestEachCloseWhileBusy(t *testing.T) {
	w, c := tcpPair(t)
	inFlush, release := make(chan struct{}), make(chan struct{})
	var got, flushed int
	done := make(chan error, 1)
	go func() {
		done <- NewReader(c, 0).Each(func(m Message, last bool) error {
			got++
			if last {
				return ErrBusy
			}
			return nil
		}, func() error {
			flushed = got
			close(inFlush)
			<-release
			return nil
		})
	}()
	_, err := w.Write(AppendFrame(nil, &Sync{Cmd: cmdA}))
	require.NoError(t, err)
	<-inFlush
	closed := make(chan struct{})
	go func() {
		c.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for the reader's consumer")
	}
	close(release)
	require.ErrorIs(t, <-done, net.ErrClosed)
	require.Equal(t, 1, flushed)
}
