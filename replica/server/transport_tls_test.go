package server

import (
	"context"
	"crypto/tls"
	"net"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/config/certs"
	"swiftpaxos/wire"
)

// tlsDial connects to r with the certificate name from dir (the
// replica's own directory unless another is given) and checks that the
// server is replica0, unless trusting.
func tlsDial(t *testing.T, r *testReplica, dir, name string, trusting bool) (c, raw net.Conn) {
	t.Helper()
	m, err := certs.Load(dir, name)
	require.NoError(t, err)
	cfg := m.ClientConfig(certs.Identity{Role: certs.Replica, Alias: "replica0"})
	if trusting {
		cfg.VerifyConnection = nil
	}
	raw = r.dial(t)
	c, err = clientWith(raw, cfg)
	require.NoError(t, err, "the client side of the handshake")
	return c, raw
}

// clientWith runs the client side of a TLS handshake on raw.
func clientWith(raw net.Conn, cfg *tls.Config) (net.Conn, error) {
	c := tls.Client(raw, cfg)
	return c, c.HandshakeContext(context.Background())
}

// The counters a refused or accepted connection may move.
type refusals struct{ tls, identity, badHello uint64 }

func (r *testReplica) refusals() refusals {
	return refusals{r.counters.RefusedTLS.Load(), r.counters.RefusedIdentity.Load(), r.counters.BadHello.Load()}
}

// sendAndWait writes a Hello on c (and then a malformed frame, which an
// accepted connection is closed for without a count) and waits until the
// replica closes the TCP connection raw under c. It reads raw, not c: a
// TLS alert reaches the client before the replica has counted the refusal
// and closed the connection.
func sendAndWait(t *testing.T, c, raw net.Conn, h *wire.Hello) {
	t.Helper()
	frames := append(wire.AppendFrame(nil, h), 0xff, 0xff, 0xff, 0xff, 0x01)
	_, _ = c.Write(frames) // a refused handshake may already have closed it
	waitClosed(t, raw)
}

func TestTLSAdmitsMembersAndRefusesTheRest(t *testing.T) {
	r := startReplica0(t, "", true)
	dir := r.cfg.TLSDir
	otherCA := filepath.Join(t.TempDir(), "other")
	_, err := certs.Generate(r.cfg, otherCA)
	require.NoError(t, err)

	replicaHello := func(i wire.ReplicaID, alias string) *wire.Hello {
		return &wire.Hello{Kind: wire.PeerReplica, Replica: i, Alias: alias}
	}
	clientHello := &wire.Hello{Kind: wire.PeerClient, Client: 9, Alias: "client0"}
	for _, c := range []struct {
		name    string
		dir     string
		cert    string
		hello   *wire.Hello
		want    refusals
		noTLS   bool
		trusted bool // the client does not check the server (a stranger's client would refuse it)
	}{
		{name: "client", dir: dir, cert: "client0", hello: clientHello},
		{name: "generic client", dir: dir, cert: certs.GenericClient, hello: clientHello},
		{name: "replica", dir: dir, cert: "replica1", hello: replicaHello(1, "replica1")},
		{name: "replica without alias in hello", dir: dir, cert: "replica2", hello: replicaHello(2, "")},
		{name: "client certificate claiming a replica", dir: dir, cert: "client0", hello: replicaHello(1, "replica1"), want: refusals{identity: 1}},
		{name: "replica certificate claiming another replica", dir: dir, cert: "replica1", hello: replicaHello(2, "replica2"), want: refusals{identity: 1}},
		{name: "replica certificate claiming another alias", dir: dir, cert: "replica1", hello: replicaHello(1, "replica2"), want: refusals{identity: 1}},
		{name: "replica certificate with a client hello", dir: dir, cert: "replica1", hello: clientHello, want: refusals{identity: 1}},
		{name: "certificate of another CA", dir: otherCA, cert: "client0", hello: clientHello, want: refusals{tls: 1}, trusted: true},
		{name: "no certificate", dir: dir, cert: "", hello: clientHello, want: refusals{tls: 1}},
		{name: "no TLS", hello: clientHello, want: refusals{tls: 1}, noTLS: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := r.refusals()
			var conn, raw net.Conn
			switch {
			case c.noTLS:
				raw = r.dial(t)
				conn = raw
			case c.cert == "":
				m, err := certs.Load(dir, "client0")
				require.NoError(t, err)
				cfg := m.ClientConfig(certs.Identity{Role: certs.Replica, Alias: "replica0"})
				cfg.Certificates = nil
				raw = r.dial(t)
				conn, err = clientWith(raw, cfg)
				require.NoError(t, err)
			default:
				conn, raw = tlsDial(t, r, c.dir, c.cert, c.trusted)
			}
			sendAndWait(t, conn, raw, c.hello)
			after := r.refusals()
			assert.Equal(t, c.want, refusals{after.tls - before.tls, after.identity - before.identity, after.badHello - before.badHello})
		})
	}
}

// A connection that opens no TLS handshake at all is closed at the
// handshake timeout like a silent plain one.
func TestTLSSilentConnectionIsClosed(t *testing.T) {
	r := startReplica0(t, "handshakeTimeoutMs: 200", true)
	// A port probe (connect, close) is not a refusal; it is handled
	// before the silent connection, which is accepted after it.
	probe := r.dial(t)
	require.NoError(t, probe.Close())
	waitClosed(t, r.dial(t))
	assert.Equal(t, uint64(1), r.counters.HelloTimeout.Load())
	assert.Zero(t, r.counters.RefusedTLS.Load())
}
