package client_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"swiftpaxos/client"
	"swiftpaxos/client/internal/localcluster"
	"swiftpaxos/config"
	"swiftpaxos/config/certs"
	"swiftpaxos/cost"
	curpht "swiftpaxos/curp-ht"
	"swiftpaxos/curp-ht/htreplica"
	"swiftpaxos/replica/server"
	"swiftpaxos/wire"
)

// startCounted runs the first n replicas of cfg until the test ends. With
// fewer than all, they start as members of a brand-new cluster at once: a
// new cluster otherwise waits for every replica to bootstrap
// (docs/DECISIONS.md 21), and these tests run one short.
func startCounted(t *testing.T, cfg *config.Config, n int) []*server.ConnCounters {
	t.Helper()
	return startWith(t, cfg, n, nil)
}

// startWith is startCounted with adjust, when set, changing each
// replica's options before it starts.
func startWith(t *testing.T, cfg *config.Config, n int, adjust func(*server.Options)) []*server.ConnCounters {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	ready := make(chan struct{}, n)
	counters := make([]*server.ConnCounters, n)
	for i := range n {
		alias := fmt.Sprintf("replica%d", i)
		counters[i] = &server.ConnCounters{}
		o := server.Options{Config: cfg, Alias: alias, ClusterNew: true, Policy: htreplica.NewPolicy,
			Log: zaptest.NewLogger(t).Named(alias), Counters: counters[i], Ready: func(net.Addr) { ready <- struct{}{} },
			StartAsMember: n < cfg.N()}
		if adjust != nil {
			adjust(&o)
		}
		wg.Go(func() {
			err := server.Serve(ctx, o)
			if ctx.Err() == nil {
				t.Errorf("%s stopped: %v", alias, err)
			}
		})
	}
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	for range n {
		<-ready
	}
	return counters
}

func putGet(t *testing.T, s *client.Session, key int, value string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	k := []byte(testKey(int64(key)))
	_, err := s.Put(ctx, k, []byte(value), wire.Strong)
	require.NoError(t, err)
	got, err := s.Get(ctx, k, wire.Strong)
	require.NoError(t, err)
	assert.Equal(t, value, string(got.Value))
	got, err = s.Get(ctx, k, wire.Weak)
	require.NoError(t, err)
	assert.Equal(t, value, string(got.Value))
}

// A cluster with TLS on serves its configured clients and the generic
// client certificate (replication between the replicas runs over TLS
// too: strong writes commit), refuses a client of another CA, and a
// session whose connections went idle dials again when it next needs
// them, with a new handshake.
func TestTLSClusterAndIdleSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a localhost cluster")
	}
	cfg := localcluster.Config(t, localcluster.FreePorts(t, 3), "clientIdleTimeoutMs: 400\nretryMs: 100\nreadWaitMs: 100")
	cfg.TLSDir = filepath.Join(t.TempDir(), "tls")
	_, err := certs.Generate(cfg, cfg.TLSDir)
	require.NoError(t, err)
	counters := startCounted(t, cfg, cfg.N())

	closed := make(chan wire.ReplicaID, 16)
	opts := client.WithIdleHook(client.SessionOptions{Config: cfg, Alias: "client0", Policy: curpht.NewClientPolicy(),
		Log: zaptest.NewLogger(t)}, func(r wire.ReplicaID) { closed <- r })
	s, err := client.Dial(t.Context(), opts)
	require.NoError(t, err)
	defer s.Close()
	putGet(t, s, 1, "first")

	// Every connection goes idle (nothing is sent for half the idle
	// timeout) and the session closes it.
	idle := map[wire.ReplicaID]bool{}
	deadline := time.After(20 * time.Second)
	for len(idle) < cfg.N() {
		select {
		case r := <-closed:
			idle[r] = true
		case <-deadline:
			t.Fatalf("the session closed only %v of its idle connections", idle)
		}
	}
	putGet(t, s, 1, "second")

	// An ad-hoc session (no alias) presents the generic certificate.
	generic, err := client.Dial(t.Context(), client.SessionOptions{Config: cfg,
		Policy: curpht.NewClientPolicy(), Log: zaptest.NewLogger(t)})
	require.NoError(t, err)
	defer generic.Close()
	putGet(t, generic, 2, "generic")

	for i, c := range counters {
		assert.Zero(t, c.RefusedTLS.Load(), "replica%d refused a TLS handshake", i)
		assert.Zero(t, c.RefusedIdentity.Load(), "replica%d refused an identity", i)
	}

	// A client with certificates of another CA: the session refuses the
	// replicas' certificates, and the replicas would refuse its own.
	stranger := *cfg
	stranger.TLSDir = filepath.Join(t.TempDir(), "other")
	_, err = certs.Generate(cfg, stranger.TLSDir)
	require.NoError(t, err)
	_, err = client.Dial(t.Context(), client.SessionOptions{Config: &stranger, Alias: "client0", Policy: curpht.NewClientPolicy()})
	require.ErrorIs(t, err, client.ErrUnreachable)
	assert.ErrorContains(t, err, "certificate signed by unknown authority")

	// A missing certificate is an error before any connection.
	_, err = client.Dial(t.Context(), client.SessionOptions{Config: cfg, Alias: "client9", Policy: curpht.NewClientPolicy()})
	assert.ErrorContains(t, err, "client9.pem")
	_, err = client.Dial(t.Context(), client.SessionOptions{Config: cfg, Alias: "replica1", Policy: curpht.NewClientPolicy()})
	assert.ErrorContains(t, err, "names replica replica1, not a client")
}

// A replica that accepts connections but never answers the TLS handshake
// (a hung process) costs a session one handshake timeout when it is
// created, and nothing afterwards: the session dials it again off its
// loop, so operations served by the other two go on at full speed.
func TestHungReplicaDoesNotStallTheSession(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a localhost cluster")
	}
	ports := localcluster.FreePorts(t, 2)
	hung, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer hung.Close()
	go func() { // accept and hold every connection, say nothing
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := hung.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	ports = append(ports, hung.Addr().(*net.TCPAddr).Port)
	const handshake = 1500 * time.Millisecond
	cfg := localcluster.Config(t, ports, fmt.Sprintf("handshakeTimeoutMs: %d\nretryMs: 200", handshake.Milliseconds()))
	cfg.TLSDir = filepath.Join(t.TempDir(), "tls")
	_, err = certs.Generate(cfg, cfg.TLSDir)
	require.NoError(t, err)
	startCounted(t, cfg, 2)

	s, err := client.Dial(t.Context(), client.SessionOptions{Config: cfg, Alias: "client0", Policy: curpht.NewClientPolicy(),
		Log: zaptest.NewLogger(t)})
	require.NoError(t, err)
	defer s.Close()
	// The session dials replica2 again every 50 ms (retryMs/4), each dial
	// hanging for the handshake timeout. Operations for several of those
	// periods: dialling on the loop, one of them would wait a timeout.
	start, slowest, n := time.Now(), time.Duration(0), 0
	for ; time.Since(start) < 400*time.Millisecond; n++ {
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		t0 := time.Now()
		_, err := s.Put(ctx, []byte(testKey(int64(n))), []byte("v"), wire.Strong)
		require.NoError(t, err)
		slowest = max(slowest, time.Since(t0))
		cancel()
	}
	assert.Less(t, slowest, handshake/2, "the session stalled on the hung replica (%d operations)", n)
}

// A session whose bound replica cannot be reached when it is created
// binds to another one at once (and back once it is up): its weak reads
// do not wait for a retry period each.
func TestBoundReplicaDownAtDial(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a localhost cluster")
	}
	ports := localcluster.FreePorts(t, 3)
	text := fmt.Sprintf(`-- Replicas --
replica0 127.0.0.1:%d
replica1 127.0.0.1:%d
replica2 127.0.0.1:%d
-- Clients --
client0 127.0.0.1
-- Proxy --
server_alias replica2
client0
---
protocol: curpht
retryMs: 5000
`, ports[0], ports[1], ports[2])
	cfg, err := config.Parse("bound.conf", strings.NewReader(text))
	require.NoError(t, err)
	startCounted(t, cfg, 2) // replica2, the bound one, is not there
	s, err := client.Dial(t.Context(), client.SessionOptions{Config: cfg, Alias: "client0", Policy: curpht.NewClientPolicy(),
		Log: zaptest.NewLogger(t)})
	require.NoError(t, err)
	defer s.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, err = s.Put(ctx, []byte("1"), []byte("x"), wire.Strong)
	require.NoError(t, err)
	for range 3 {
		t0 := time.Now()
		v, err := s.Get(ctx, []byte("1"), wire.Weak)
		require.NoError(t, err)
		assert.Equal(t, "x", string(v.Value))
		assert.Less(t, time.Since(t0), 2500*time.Millisecond, "the weak read waited for a retry")
	}
}

// A session that closes cleanly ends at the cluster, and Close returns
// after the leader confirmed it; a session the leader has not heard from
// for sessionIdleMs is ended by the leader, is told so, and its next
// operation fails with ErrExpired (PROTOCOL.md 6.10, docs/DECISIONS.md 23).
func TestSessionsEndAndExpire(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a localhost cluster")
	}
	cfg := localcluster.Config(t, localcluster.FreePorts(t, 3), "retryMs: 100\nreadWaitMs: 100\nsessionIdleMs: 300")
	startCounted(t, cfg, cfg.N())
	dial := func(ended chan bool) *client.Session {
		s, err := client.Dial(t.Context(), client.WithEndHook(client.SessionOptions{Config: cfg, Alias: "client0",
			Policy: curpht.NewClientPolicy(), Log: zaptest.NewLogger(t)}, func(expired bool) { ended <- expired }))
		require.NoError(t, err)
		return s
	}

	closing := make(chan bool, 1)
	a := dial(closing)
	putGet(t, a, 1, "a")
	require.NoError(t, a.Close())
	select {
	case expired := <-closing:
		assert.False(t, expired, "the end the session asked for")
	default:
		t.Fatal("Close returned before the cluster confirmed the end")
	}

	idle := make(chan bool, 1)
	b := dial(idle)
	defer b.Close()
	putGet(t, b, 2, "b")
	select {
	case expired := <-idle:
		assert.True(t, expired, "the leader ended the idle session")
	case <-time.After(20 * time.Second):
		t.Fatal("the idle session was not ended")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	_, err := b.Put(ctx, []byte("2"), []byte("late"), wire.Strong)
	require.ErrorIs(t, err, client.ErrExpired)
}

// The sessions of a process share one connection per replica through a
// Transport: two sessions, served each in turn, one closing before the
// other is served again, open one connection to each replica over the
// Transport's life.
func TestSessionsShareTransport(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a localhost cluster")
	}
	cfg := localcluster.Config(t, localcluster.FreePorts(t, 3), "")
	startCounted(t, cfg, cfg.N())
	meter := cost.NewMeter()
	tr, err := client.NewTransport(client.TransportOptions{Config: cfg, Alias: "client0", Meter: meter, Log: zaptest.NewLogger(t)})
	require.NoError(t, err)
	dial := func() *client.Session {
		s, err := client.Dial(t.Context(), client.SessionOptions{Config: cfg, Alias: "client0", Policy: curpht.NewClientPolicy(),
			Log: zaptest.NewLogger(t), Transport: tr})
		require.NoError(t, err)
		return s
	}
	a, b := dial(), dial()
	putGet(t, a, 1, "a")
	putGet(t, b, 2, "b")
	require.NoError(t, a.Close())
	putGet(t, b, 2, "b again")

	_, err = client.Dial(t.Context(), client.SessionOptions{Config: cfg, Alias: "client1", Policy: curpht.NewClientPolicy(), Transport: tr})
	require.ErrorContains(t, err, `the session speaks for "client1", its Transport for "client0"`)
	require.NoError(t, b.Close())
	require.NoError(t, tr.Close())
	links := meter.Links()
	require.Len(t, links, cfg.N())
	for _, l := range links {
		assert.Equal(t, 1, l.Conns, "connections to %s", l.To)
	}
}

// A Transport reaches the replica its LocalLink names over that Unix
// socket, which the replica serves beside its TCP port: with replica0's
// TCP address in the Transport's configuration pointing where nobody
// listens, its session still opens a connection to replica0, and writes
// and reads through it.
func TestTransportReachesTheLocalReplicaOverItsUnixSocket(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a localhost cluster")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the abstract Unix socket namespace is Linux's")
	}
	ports := localcluster.FreePorts(t, 4)
	cfg := localcluster.Config(t, ports[:3], "")
	local := fmt.Sprintf("@swiftpaxos-test/%d/%s", os.Getpid(), t.Name())
	startWith(t, cfg, cfg.N(), func(o *server.Options) {
		if o.Alias == "replica0" {
			o.LocalAddr = local
		}
	})
	far := localcluster.Config(t, []int{ports[3], ports[1], ports[2]}, "")
	meter := cost.NewMeter()
	tr, err := client.NewTransport(client.TransportOptions{Config: far, Alias: "client0", Meter: meter, Log: zaptest.NewLogger(t),
		Local: client.LocalLink{Replica: 0, Addr: local}})
	require.NoError(t, err)
	s, err := client.Dial(t.Context(), client.SessionOptions{Config: far, Alias: "client0", Policy: curpht.NewClientPolicy(),
		Log: zaptest.NewLogger(t), Transport: tr})
	require.NoError(t, err)
	putGet(t, s, 1, "over the socket")
	require.NoError(t, s.Close())
	require.NoError(t, tr.Close())
	conns := map[string]int{}
	for _, l := range meter.Links() {
		conns[l.To] = l.Conns
	}
	assert.Equal(t, map[string]int{"replica0": 1, "replica1": 1, "replica2": 1}, conns)

	_, err = client.NewTransport(client.TransportOptions{Config: far, Local: client.LocalLink{Replica: 3, Addr: local}})
	require.ErrorContains(t, err, "TransportOptions.Local names replica3 of 3")
}
