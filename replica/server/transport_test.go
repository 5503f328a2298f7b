package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"swiftpaxos/config"
	"swiftpaxos/config/certs"
	"swiftpaxos/kvs"
	"swiftpaxos/replica"
	"swiftpaxos/wire"
)

// closeWithin bounds every wait of these tests for a connection to close.
const closeWithin = 20 * time.Second

// testReplica is replica0 of a three-replica configuration on loopback,
// alone (its peers are not running), with the transport settings of a
// test.
type testReplica struct {
	addr     string
	cfg      *config.Config
	counters *ConnCounters
}

// startReplica0 runs replica0 until the test ends. settings are extra
// configuration lines; withTLS generates certificates for the
// configuration and turns TLS on.
func startReplica0(t *testing.T, settings string, withTLS bool) *testReplica {
	t.Helper()
	// All three stay reserved until each has its own port (closed one by
	// one, the system may hand the same port out twice); then released:
	// replica0 listens on ports[0], its peers stay absent.
	ports := make([]int, 3)
	lns := make([]net.Listener, len(ports))
	for i := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		lns[i], ports[i] = ln, ln.Addr().(*net.TCPAddr).Port
	}
	for _, ln := range lns {
		ln.Close()
	}
	text := fmt.Sprintf("-- Replicas --\nreplica0 127.0.0.1:%d\nreplica1 127.0.0.1:%d\nreplica2 127.0.0.1:%d\n"+
		"-- Clients --\nclient0 127.0.0.1\n---\nprotocol: curpht\n%s\n", ports[0], ports[1], ports[2], settings)
	cfg, err := config.Parse("t.conf", strings.NewReader(text))
	require.NoError(t, err)
	if withTLS {
		cfg.TLSDir = filepath.Join(t.TempDir(), "tls")
		_, err := certs.Generate(cfg, cfg.TLSDir)
		require.NoError(t, err)
	}
	r := &testReplica{cfg: cfg, counters: &ConnCounters{}}
	ready := make(chan net.Addr, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, Options{Config: cfg, Alias: "replica0", Policy: func() replica.Policy { return replica.BasePolicy{} }, StartAsMember: true,
			Log: zaptest.NewLogger(t), Counters: r.counters, Ready: func(a net.Addr) { ready <- a }})
	}()
	select {
	case a := <-ready:
		r.addr = a.String()
	case err := <-done:
		cancel()
		t.Fatalf("replica0 did not start: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return r
}

func (r *testReplica) dial(t *testing.T) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", r.addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// waitClosed reads from c until the replica closes it, and fails the test
// if that takes longer than closeWithin.
func waitClosed(t *testing.T, c net.Conn) {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(closeWithin)))
	buf := make([]byte, 4096)
	for {
		_, err := c.Read(buf)
		if err == nil {
			continue
		}
		require.False(t, errors.Is(err, os.ErrDeadlineExceeded), "the replica kept the connection open for %v", closeWithin)
		return
	}
}

func clientHello() []byte {
	return wire.AppendFrame(nil, &wire.Hello{Kind: wire.PeerClient, Client: 77, Alias: "client0"})
}

// A connection that sends nothing is closed after the handshake timeout;
// a thousand of them are all closed.
func TestSilentConnectionsAreClosed(t *testing.T) {
	r := startReplica0(t, "handshakeTimeoutMs: 300\nmaxConns: 2000", false)
	conns := make([]net.Conn, 1000)
	for i := range conns {
		conns[i] = r.dial(t)
	}
	for _, c := range conns {
		waitClosed(t, c)
	}
	assert.Equal(t, uint64(1000), r.counters.HelloTimeout.Load())
	assert.Equal(t, uint64(1000), r.counters.Accepted.Load())
}

// A connection that sends its Hello one byte at a time, each byte well
// within the timeout, is closed when the timeout has passed since it
// connected: the deadline covers the whole Hello, not each read.
func TestSlowDripHelloIsClosed(t *testing.T) {
	r := startReplica0(t, "handshakeTimeoutMs: 300", false)
	hello := wire.AppendFrame(nil, &wire.Hello{Kind: wire.PeerClient, Client: 5, Alias: strings.Repeat("a", 100)})
	var wg sync.WaitGroup
	for range 50 {
		c := r.dial(t)
		wg.Go(func() {
			tick := time.NewTicker(20 * time.Millisecond) // pacing of the drip, not a wait
			defer tick.Stop()
			for _, b := range hello {
				if _, err := c.Write([]byte{b}); err != nil {
					return
				}
				<-tick.C
			}
		})
		wg.Go(func() { waitClosed(t, c) })
	}
	wg.Wait()
	assert.Equal(t, uint64(50), r.counters.HelloTimeout.Load())
}

// Beyond maxConns open connections a new one is refused at once; once
// connections close, new ones are accepted again.
func TestConnectionLimit(t *testing.T) {
	r := startReplica0(t, "maxConns: 5\nhandshakeTimeoutMs: 500", false)
	first := make([]net.Conn, 5)
	for i := range first {
		first[i] = r.dial(t)
	}
	extra := r.dial(t)
	waitClosed(t, extra)
	assert.Equal(t, uint64(1), r.counters.OverLimit.Load(), "the sixth connection was not refused")
	assert.Zero(t, r.counters.HelloTimeout.Load(), "the sixth connection was served")

	// The five close at their handshake timeout; their slots are free.
	for _, c := range first {
		waitClosed(t, c)
	}
	again := r.dial(t)
	waitClosed(t, again)
	assert.Equal(t, uint64(1), r.counters.OverLimit.Load(), "a connection was refused below the limit")
	assert.Equal(t, uint64(6), r.counters.HelloTimeout.Load())
}

// A client connection that is silent both ways for clientIdleTimeoutMs is
// closed; one that keeps sending is not.
func TestIdleClientConnectionIsClosed(t *testing.T) {
	r := startReplica0(t, "clientIdleTimeoutMs: 600\nretryMs: 100\nreadWaitMs: 100", false)
	idle, busy := r.dial(t), r.dial(t)
	_, err := idle.Write(clientHello())
	require.NoError(t, err)
	_, err = busy.Write(wire.AppendFrame(nil, &wire.Hello{Kind: wire.PeerClient, Client: 78, Alias: "client0"}))
	require.NoError(t, err)

	stop := make(chan struct{})
	sent := make(chan error, 1)
	go func() {
		tick := time.NewTicker(50 * time.Millisecond) // the busy client's traffic
		defer tick.Stop()
		sync := wire.AppendFrame(nil, &wire.Sync{Cmd: wire.CmdID{Client: 78, Seq: 1}})
		for {
			select {
			case <-stop:
				sent <- nil
				return
			case <-tick.C:
				if _, err := busy.Write(sync); err != nil {
					sent <- err
					return
				}
			}
		}
	}()
	waitClosed(t, idle)
	assert.Equal(t, uint64(1), r.counters.IdleClosed.Load())
	// The busy connection has outlived the idle one; give it two more
	// timeouts of traffic, then it must still be open.
	// What the replica answers to that traffic is read and dropped; only
	// the deadline may end the reads.
	require.NoError(t, busy.SetReadDeadline(time.Now().Add(1200*time.Millisecond)))
	buf := make([]byte, 4096)
	for err == nil {
		_, err = busy.Read(buf)
	}
	close(stop)
	require.ErrorIs(t, err, os.ErrDeadlineExceeded, "the busy connection was closed")
	require.NoError(t, <-sent)
	assert.Equal(t, uint64(1), r.counters.IdleClosed.Load())
}

// The first frame must be a Hello from a client or an existing replica.
func TestBadHellosAreCounted(t *testing.T) {
	r := startReplica0(t, "", false)
	for _, frame := range [][]byte{
		wire.AppendFrame(nil, &wire.Sync{Cmd: wire.CmdID{Client: 1, Seq: 1}}),
		wire.AppendFrame(nil, &wire.Hello{Kind: wire.PeerReplica, Replica: 7}),
		wire.AppendFrame(nil, &wire.Hello{Kind: wire.PeerReplica, Replica: 0}), // itself
		{0xff, 0xff, 0xff, 0xff, 0x01},                                         // a huge frame
	} {
		c := r.dial(t)
		_, err := c.Write(frame)
		require.NoError(t, err)
		waitClosed(t, c)
	}
	assert.Equal(t, uint64(4), r.counters.BadHello.Load())
}

// TestHelloOfAnotherProtocolIsRefused: a replica, a client or a client
// process whose Hello names another protocol, or a replica durable where
// this one is in memory, or holding leases where this one does not, is
// refused and counted (the two protocols'
// messages mean different things: a CURP-HT client's weak write is an
// unexpected message to a CURP-HO replica); one that names this
// replica's protocol is served.
func TestHelloOfAnotherProtocolIsRefused(t *testing.T) {
	r := startReplica0(t, "", false)
	for _, h := range []*wire.Hello{
		{Kind: wire.PeerReplica, Replica: 1, Alias: "replica1", Protocol: "curpho"},
		{Kind: wire.PeerClient, Client: 5, Alias: "client0", Protocol: "curpho"},
		{Kind: wire.PeerSessions, Alias: "client0", Sessions: 1, Protocol: "curpho"},
		// Durable where this replica is in memory (dataDir set for some
		// replicas only).
		{Kind: wire.PeerReplica, Replica: 1, Alias: "replica1", Protocol: "curpht", Durable: true},
		// Leases where this replica has none (leaseReads set for some
		// replicas only).
		{Kind: wire.PeerReplica, Replica: 1, Alias: "replica1", Protocol: "curpht", Leases: true},
	} {
		c := r.dial(t)
		_, err := c.Write(wire.AppendFrame(nil, h))
		require.NoError(t, err)
		waitClosed(t, c)
	}
	assert.Equal(t, uint64(5), r.counters.RefusedProtocol.Load())

	c := r.dial(t)
	frames := wire.AppendFrame(nil, &wire.Hello{Kind: wire.PeerClient, Client: 77, Alias: "client0", Protocol: "curpht"})
	frames = wire.AppendFrame(frames, &wire.Propose{Cmd: wire.CmdID{Client: 77, Seq: 1}, Command: kvs.Command{Op: kvs.OpGet, Key: key(1)}})
	_, err := c.Write(frames)
	require.NoError(t, err)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(closeWithin)))
	_, ok := nextAfterViews(t, wire.NewReader(c, 1<<20)).(*wire.LeaderReply)
	require.True(t, ok, "a client of this protocol is served")
	assert.Equal(t, uint64(5), r.counters.RefusedProtocol.Load())
}

// TestInvalidPeerMessageClosesConnection: issue 12, over TCP. A frame that
// claims to come from replica 2 and acts as a leader of the ballot
// replica0 leads (the forged Accept that used to be applied or to panic a
// replica) closes its connection and is counted; the replica stays up and
// answers the next client.
func TestInvalidPeerMessageClosesConnection(t *testing.T) {
	r := startReplica0(t, "", false)
	forged := r.dial(t)
	entry := wire.Entry{Cmd: wire.CmdID{Client: 66, Seq: 1}, Level: wire.Strong,
		Command: kvs.Command{Op: kvs.OpPut, Key: key(1), Value: kvs.Value("forged")}}
	frames := wire.AppendFrame(nil, &wire.Hello{Kind: wire.PeerReplica, Replica: 2, Alias: "replica2"})
	frames = wire.AppendFrame(frames, &wire.Accept{Ballot: 0, Leader: 2, Entries: []wire.Entry{entry}, LeaderCommit: 1})
	_, err := forged.Write(frames)
	require.NoError(t, err)
	waitClosed(t, forged)
	assert.Equal(t, uint64(1), r.counters.InvalidMessage.Load())

	c := r.dial(t)
	propose := wire.AppendFrame(clientHello(), &wire.Propose{Cmd: wire.CmdID{Client: 77, Seq: 1},
		Command: kvs.Command{Op: kvs.OpGet, Key: key(1)}})
	_, err = c.Write(propose)
	require.NoError(t, err)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(closeWithin)))
	m := nextAfterViews(t, wire.NewReader(c, 1<<20))
	reply, ok := m.(*wire.LeaderReply)
	require.True(t, ok, "got %T", m)
	require.False(t, reply.Result.Found, "the forged write was never applied")
	require.Zero(t, reply.Result.Version)
}

// TestRefusalsLoggedAreBounded: each peer and reason is logged at error
// level once, and what is remembered for that is bounded, since anyone
// who connects chooses the alias a Hello names.
func TestRefusalsLoggedAreBounded(t *testing.T) {
	var r refusalsLogged
	require.True(t, r.first("replica1 protocol curpho"))
	require.False(t, r.first("replica1 protocol curpho"), "said once")
	for i := range 2 * refusalsKept {
		r.first(fmt.Sprintf("forged%d protocol x", i))
	}
	require.Len(t, r.seen, refusalsKept)
	require.False(t, r.first("replica2 protocol curpho"), "full: debug level from now on")
}
