package cost

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/batcher"
	"swiftpaxos/wire"
)

// spy counts the calls that reach the connection under a Meter's wrapper.
type spy struct {
	net.Conn
	reads, writes atomic.Uint64
}

func (s *spy) Read(p []byte) (int, error)  { s.reads.Add(1); return s.Conn.Read(p) }
func (s *spy) Write(p []byte) (int, error) { s.writes.Add(1); return s.Conn.Write(p) }

func tcpPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	var srv net.Conn
	var aerr error
	var wg sync.WaitGroup
	wg.Go(func() { srv, aerr = ln.Accept() })
	cli, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	wg.Wait()
	require.NoError(t, aerr)
	t.Cleanup(func() { cli.Close(); srv.Close() })
	return cli, srv
}

// Over loopback TCP, a batcher's writes and a wire reader's reads are
// counted call for call, both while the connections are open and after
// they close, and the batcher's counters reach the sender's link.
func TestMeterCountsTransportCalls(t *testing.T) {
	const msgs = 500
	cli, srv := tcpPair(t)
	sender, receiver := NewMeter(), NewMeter()
	out, in := &spy{Conn: cli}, &spy{Conn: srv}
	b := batcher.New[wire.Message](sender.Wrap(out), wire.AppendFrame,
		batcher.Options{MaxBatchMsgs: 7, Stopped: func(s batcher.Stats) { sender.Sent("replica1", s.Messages, s.Bytes, s.Batches) }}, nil)
	r := wire.NewReader(receiver.Wrap(in), 1<<20)

	for i := range msgs {
		require.NoError(t, b.Send(&wire.Hello{Kind: wire.PeerClient, Replica: wire.NoReplica, Client: wire.ClientID(i)}))
	}
	for range msgs {
		_, err := r.Next()
		require.NoError(t, err)
	}
	// Open connections count too.
	assert.Equal(t, IO{Writes: out.writes.Load()}, sender.IO())
	assert.Equal(t, IO{Reads: in.reads.Load()}, receiver.IO())

	require.NoError(t, b.Close()) // closes the wrapped conn
	_, err := r.Next()
	require.Error(t, err, "the sender closed")
	st := b.Stats()
	assert.EqualValues(t, msgs, st.Messages)
	assert.Equal(t, IO{Writes: st.Batches}, sender.IO(), "one write per batch")
	assert.Equal(t, IO{Writes: out.writes.Load()}, sender.IO(), "after close")
	assert.GreaterOrEqual(t, st.Batches, uint64((msgs+6)/7), "at most 7 messages per batch")

	got := in.reads.Load()
	assert.Positive(t, got)
	assert.Equal(t, IO{Reads: got}, receiver.IO())
	require.NoError(t, srv.Close())
	assert.Equal(t, IO{Reads: got}, receiver.IO(), "a connection closed underneath is still open to the meter")

	assert.Equal(t, []Link{{To: "replica1", Conns: 1, Messages: msgs, Bytes: st.Bytes, Batches: st.Batches,
		AvgBatch: float64(msgs) / float64(st.Batches)}}, sender.Links())
	assert.Empty(t, receiver.Links())
}

// A connection's counts join the totals when it closes, once; links add up
// over connections.
func TestMeterRetiresClosedConnections(t *testing.T) {
	m := NewMeter()
	a, b := net.Pipe()
	defer b.Close()
	c := m.Wrap(a)
	go func() {
		buf := make([]byte, 8)
		for {
			if _, err := b.Read(buf); err != nil {
				return
			}
		}
	}()
	for range 3 {
		_, err := c.Write([]byte("x"))
		require.NoError(t, err)
	}
	require.NoError(t, c.Close())
	_ = c.Close()
	_, _ = c.Write([]byte("late")) // after the close: not a system call, not counted
	assert.Equal(t, IO{Writes: 3}, m.IO())
	assert.Empty(t, m.open)

	m.Sent("clients", 6, 60, 2)
	m.Sent("clients", 2, 20, 2)
	m.Sent("a", 0, 0, 0)
	assert.Equal(t, []Link{{To: "a", Conns: 1}, {To: "clients", Conns: 2, Messages: 8, Bytes: 80, Batches: 4, AvgBatch: 2}}, m.Links())
}

func TestNilMeterCountsNothing(t *testing.T) {
	var m *Meter
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	assert.Same(t, a, m.Wrap(a))
	assert.NotPanics(t, func() { m.Sent("x", 1, 1, 1) })
}
