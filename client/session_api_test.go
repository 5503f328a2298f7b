package client_test

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/client"
	"swiftpaxos/client/internal/localcluster"
	curpht "swiftpaxos/curp-ht"
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// silentReplica accepts connections on a free port of 127.0.0.1 and reads
// them without ever answering, until the test ends.
func silentReplica(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() { _, _ = io.Copy(io.Discard, c) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().(*net.TCPAddr).Port
}

// An operation that gets no reply ends with its context and says what the
// session was waiting for: the leader for a strong operation, the replica
// asked for a weak read, and which replicas it could not reach.
func TestTimeoutSaysWhatTheSessionWaitedFor(t *testing.T) {
	ports := localcluster.FreePorts(t, 3) // released: replica1 and replica2 are not there
	ports[0] = silentReplica(t)
	cfg := localcluster.Config(t, ports, "retryMs: 100") // Close waits a retry period for the end
	s, err := client.Dial(t.Context(), client.SessionOptions{Config: cfg, Policy: curpht.NewClientPolicy()})
	require.NoError(t, err)
	defer s.Close()

	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_, err = s.Put(ctx, []byte("k1"), []byte("x"), client.Strong)
	var te *client.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.ErrorIs(t, err, client.ErrTimeout)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, wire.ReplicaID(0), te.Leader)
	assert.Equal(t, client.NoReplica, te.Target)
	assert.Equal(t, []wire.ReplicaID{1, 2}, te.Down)
	assert.Contains(t, err.Error(), "waiting for the leader, replica 0")

	ctx, cancel = context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_, err = s.Get(ctx, []byte("k1"), client.Weak)
	require.ErrorAs(t, err, &te)
	assert.Equal(t, wire.ReplicaID(0), te.Target, "the only replica it reached")
	assert.Contains(t, err.Error(), "asked replica 0")
}

// refusingReplica accepts connections on a free port of 127.0.0.1 and
// closes each once the client has written to it, as a TLS replica does
// with a client that speaks in clear, until the test ends.
func refusingReplica(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Read(make([]byte, 64))
			c.Close()
		}
	})
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	return ln.Addr().(*net.TCPAddr).Port
}

// A replica that closes the connection before sending anything refused
// the client; the timeout names it apart from the replicas that could
// not be reached, which tells a client without TLS at a TLS cluster why.
func TestTimeoutNamesTheReplicasThatRefusedTheClient(t *testing.T) {
	ports := localcluster.FreePorts(t, 3) // released: replica2 is not there
	ports[0], ports[1] = refusingReplica(t), silentReplica(t)
	cfg := localcluster.Config(t, ports, "retryMs: 100")
	s, err := client.Dial(t.Context(), client.SessionOptions{Config: cfg, Policy: curpht.NewClientPolicy()})
	require.NoError(t, err)
	defer s.Close()

	ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
	defer cancel()
	_, err = s.Put(ctx, []byte("k1"), []byte("x"), client.Strong)
	var te *client.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, []wire.ReplicaID{0}, te.Refused)
	assert.Contains(t, te.Down, wire.ReplicaID(2))
	assert.NotContains(t, te.Down, wire.ReplicaID(1), "connected, silent")
	assert.Contains(t, err.Error(), "; unreachable: [2]; closed the connection before any reply (refused the client: TLS? another protocol?): [0]")
}

// Invalid operations are refused before anything is sent: a replica
// closes the connection of a client that sends one.
func TestInvalidOperationsAreRefusedAtOnce(t *testing.T) {
	cfg := localcluster.Config(t, []int{silentReplica(t), silentReplica(t), silentReplica(t)}, "retryMs: 100")
	s, err := client.Dial(t.Context(), client.SessionOptions{Config: cfg, Policy: curpht.NewClientPolicy()})
	require.NoError(t, err)
	defer s.Close()
	ctx := t.Context()

	_, err = s.Put(ctx, []byte("k"), []byte(strings.Repeat("x", kvs.DefaultLimits.MaxValue+1)), client.Strong)
	assert.ErrorIs(t, err, kvs.ErrInvalidCommand)
	_, err = s.Get(ctx, nil, client.Strong)
	assert.ErrorIs(t, err, kvs.ErrInvalidCommand, "an empty key")
	for _, n := range []int{0, -1, kvs.MaxScanLimit + 1} {
		_, err = s.Scan(ctx, []byte("a"), nil, n, client.Weak)
		assert.ErrorIs(t, err, kvs.ErrInvalidCommand, "limit %d", n)
	}
	_, err = s.Scan(ctx, []byte("b"), []byte("a"), 1, client.Weak)
	assert.ErrorIs(t, err, kvs.ErrInvalidCommand, "end before start")
	err = s.Submit(client.Op{Level: client.Weak, Command: kvs.Command{Op: kvs.OpIncr, Key: "n", Delta: 1}})
	assert.ErrorIs(t, err, client.ErrStrongOnly)
	_, err = s.Get(ctx, []byte("k"), client.Level(7))
	assert.ErrorIs(t, err, kvs.ErrInvalidCommand)
	err = s.Submit(client.Op{Level: client.Strong, Command: kvs.Command{Op: kvs.OpNoop}})
	assert.ErrorIs(t, err, kvs.ErrInvalidCommand)
}

func TestDialNeedsConfigAndPolicy(t *testing.T) {
	_, err := client.Dial(t.Context(), client.SessionOptions{Config: localcluster.Config(t, localcluster.FreePorts(t, 3), "")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Policy")
	assert.False(t, errors.Is(err, client.ErrUnreachable))
}
