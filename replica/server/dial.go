package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"go.uber.org/zap"

	"swiftpaxos/batcher"
	"swiftpaxos/config/certs"
	"swiftpaxos/wire"
)

// Outgoing connections: one dialer goroutine per peer keeps the connection
// to it up, redialling every redialEvery while it is down.

// redialEvery is the retry period for a lost peer connection.
const redialEvery = 100 * time.Millisecond

// dial keeps an outgoing connection to peer p, redialling when it breaks.
func (s *server) dial(ctx context.Context, p wire.ReplicaID) error {
	peer := s.cfg.Replica(int(p))
	addr := peer.Addr()
	t := time.NewTimer(0)
	defer t.Stop()
	var lastErr string // a failing handshake is logged when its reason changes
	// refused says the last connection ended within refusedWithin of its
	// start: the peer refuses this replica (another protocol, another
	// CA), which is logged once, not every redialEvery.
	refused := false
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		conn, err := s.dialPeer(ctx, addr, peer.Alias)
		if err != nil {
			if msg := err.Error(); msg != lastErr && ctx.Err() == nil && !errors.Is(err, errDial) {
				s.log.Warn("cannot connect to peer", zap.Int32("peer", int32(p)), zap.String("addr", addr), zap.Error(err))
				lastErr = msg
			}
			t.Reset(redialEvery)
			continue
		}
		lastErr = ""
		opts := s.optsTo(peer.Alias, peer.Alias)
		b := batcher.New[wire.Message](conn, wire.AppendFrame, opts, s.log)
		if b.Send(&wire.Hello{Kind: wire.PeerReplica, Replica: s.id, Alias: s.o.Alias, Protocol: string(s.cfg.Protocol), Durable: s.disk != nil, Leases: s.cfg.LeaseReads}) != nil || !s.post(ctx, inbound{fromReplica: p, peer: b}) {
			b.Close()
			t.Reset(redialEvery)
			continue
		}
		level := zap.InfoLevel
		if refused {
			level = zap.DebugLevel
		}
		if ce := s.log.Check(level, "connected to peer"); ce != nil {
			ce.Write(zap.Int32("peer", int32(p)), zap.String("addr", addr))
		}
		start := time.Now()
		// The peer never writes on this connection; a read returns when
		// it breaks (or, with TLS, when the peer refuses the certificate).
		go func() { _, _ = io.Copy(io.Discard, conn); b.Close() }()
		select {
		case <-ctx.Done():
			b.Close()
			return nil
		case <-b.Done():
		}
		s.post(ctx, inbound{fromReplica: p, peer: b, closed: true})
		quick := time.Since(start) < refusedWithin+opts.Delay && ctx.Err() == nil
		if quick && !refused {
			s.log.Warn("peer closed the connection soon after its start: it stopped, or it refuses this replica (another protocol, dataDir or leaseReads set otherwise, or this replica's certificate); its log says which",
				zap.Int32("peer", int32(p)), zap.String("addr", addr))
		}
		refused = quick
		t.Reset(redialEvery)
	}
}

// refusedWithin: a connection the peer closes this soon after it opened
// (plus the emulated delay, which holds the Hello back) was refused, not
// lost.
const refusedWithin = time.Second

// errDial marks a TCP connect failure: a peer that is down is the normal
// case at start-up and not worth a log line every 100 ms.
var errDial = errors.New("dial")

// dialPeer connects to the replica alias at addr, over TLS when it is on,
// checking that the server's certificate names that replica.
func (s *server) dialPeer(ctx context.Context, addr, alias string) (net.Conn, error) {
	d := net.Dialer{Timeout: time.Second}
	raw, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errDial, err)
	}
	setKeepAlive(raw)
	raw = s.meter.Wrap(raw)
	if s.tls == nil {
		return raw, nil
	}
	hctx, cancel := context.WithTimeout(ctx, s.cfg.HandshakeTimeout)
	defer cancel()
	conn, err := s.tls.Client(hctx, raw, certs.Identity{Role: certs.Replica, Alias: alias})
	if err != nil {
		return nil, fmt.Errorf("TLS handshake: %w", err)
	}
	return conn, nil
}
