package batcher

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// testMsg is the message type of the tests: a sender id, a per-sender sequence
// number and Pad bytes of payload.
type testMsg struct {
	Sender, Seq uint32
	Pad         int
}

// encodeTest writes the frame [len u32][sender u32][seq u32][pad].
func encodeTest(dst []byte, m testMsg) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(8+m.Pad))
	dst = binary.BigEndian.AppendUint32(dst, m.Sender)
	dst = binary.BigEndian.AppendUint32(dst, m.Seq)
	for range m.Pad {
		dst = append(dst, 0xAB)
	}
	return dst
}

// countFrames counts the complete frames in p; whole is false if p does not end
// on a frame boundary.
func countFrames(p []byte) (n int, whole bool) {
	for len(p) >= 4 {
		l := int(binary.BigEndian.Uint32(p)) + 4
		if l > len(p) {
			return n, false
		}
		p = p[l:]
		n++
	}
	return n, len(p) == 0
}

// writeEvent describes one conn.Write call, seen when it starts.
type writeEvent struct {
	msgs, bytes int
	whole       bool
}

// countingConn counts Write calls and reports each one on events (never blocking:
// events beyond the channel's capacity are only counted).
type countingConn struct {
	net.Conn
	writes atomic.Int64
	events chan writeEvent
}

func newCountingConn(c net.Conn) *countingConn {
	return &countingConn{Conn: c, events: make(chan writeEvent, 1<<14)}
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	n, whole := countFrames(p)
	select {
	case c.events <- writeEvent{msgs: n, bytes: len(p), whole: whole}:
	default:
	}
	return c.Conn.Write(p)
}

// nextWrite waits for the next Write call on c (the limit only guards against a
// hung test).
func nextWrite(t *testing.T, c *countingConn) writeEvent {
	t.Helper()
	select {
	case ev := <-c.events:
		return ev
	case <-time.After(10 * time.Second):
		require.FailNow(t, "no conn.Write within 10s")
		return writeEvent{}
	}
}

// arrival is one message decoded by a reader and the instant it was decoded.
type arrival struct {
	msg testMsg
	at  time.Time
}

// reader decodes frames from a connection on its own goroutine.
type reader struct {
	out  chan arrival
	done chan struct{}
	err  error
}

// startReader starts reading conn; it stops at EOF or error.
func startReader(conn net.Conn) *reader {
	r := &reader{out: make(chan arrival, 1<<16), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		br := bufio.NewReader(conn)
		var hdr [12]byte
		for {
			if _, err := io.ReadFull(br, hdr[:]); err != nil {
				r.err = err
				return
			}
			l := int(binary.BigEndian.Uint32(hdr[:4]))
			m := testMsg{
				Sender: binary.BigEndian.Uint32(hdr[4:8]),
				Seq:    binary.BigEndian.Uint32(hdr[8:12]),
				Pad:    l - 8,
			}
			if _, err := br.Discard(m.Pad); err != nil {
				r.err = err
				return
			}
			r.out <- arrival{msg: m, at: time.Now()}
		}
	}()
	return r
}

// recv waits for the next n messages.
func (r *reader) recv(t *testing.T, n int) []arrival {
	t.Helper()
	got := make([]arrival, 0, n)
	limit := time.After(20 * time.Second)
	for len(got) < n {
		select {
		case a := <-r.out:
			got = append(got, a)
		case <-limit:
			require.FailNowf(t, "reader timed out", "got %d of %d messages", len(got), n)
		}
	}
	return got
}

// pipePair returns a counting client end and the raw server end of a net.Pipe.
func pipePair(tb testing.TB) (*countingConn, net.Conn) {
	tb.Helper()
	c, s := net.Pipe()
	tb.Cleanup(func() { _ = c.Close(); _ = s.Close() })
	return newCountingConn(c), s
}

// tcpPair returns a counting client end and the server end of a loopback TCP
// connection.
func tcpPair(tb testing.TB) (*countingConn, net.Conn) {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(tb, err)
	defer ln.Close()
	var (
		srv    net.Conn
		acErr  error
		accept sync.WaitGroup
	)
	accept.Go(func() { srv, acErr = ln.Accept() })
	cli, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(tb, err)
	accept.Wait()
	require.NoError(tb, acErr)
	tb.Cleanup(func() { _ = cli.Close(); _ = srv.Close() })
	return newCountingConn(cli), srv
}
