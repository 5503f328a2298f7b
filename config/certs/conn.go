package certs

import (
	"context"
	"crypto/tls"
	"net"
)

// conn is a TLS connection whose Close closes the TCP connection at once.
// tls.Conn.Close first sends a close_notify alert, which can block for
// seconds on a peer that does not read; swiftpaxos frames are
// length-prefixed, so a truncated stream is detected without the alert,
// and closing is how a replica's event loop drops a slow client.
type conn struct {
	*tls.Conn
	raw net.Conn
}

func (c conn) Close() error { return c.raw.Close() }

// Client runs the client side of a handshake on raw with the replica want,
// within ctx. On failure raw is closed.
func (m *Material) Client(ctx context.Context, raw net.Conn, want Identity) (net.Conn, error) {
	tc := tls.Client(raw, m.ClientConfig(want))
	if err := tc.HandshakeContext(ctx); err != nil {
		raw.Close()
		return nil, err
	}
	return conn{tc, raw}, nil
}

// Server runs the server side of a handshake on raw, within ctx (and raw's
// deadline), and returns the identity the peer's certificate names. On
// failure raw is left to the caller, who counts and closes it.
func (m *Material) Server(ctx context.Context, raw net.Conn) (net.Conn, Identity, error) {
	tc := tls.Server(raw, m.server)
	if err := tc.HandshakeContext(ctx); err != nil {
		return nil, Identity{}, err
	}
	id, err := PeerIdentity(tc.ConnectionState())
	if err != nil {
		return nil, Identity{}, err
	}
	return conn{tc, raw}, id, nil
}
