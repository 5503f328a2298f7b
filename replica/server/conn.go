package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"swiftpaxos/batcher"
	"swiftpaxos/config/certs"
	"swiftpaxos/cost"
	"swiftpaxos/wire"
)

// maxFrame bounds one frame read from the network.
const maxFrame = 16 << 20

// acceptBackoffMax bounds the pause after a failed Accept (out of file
// descriptors, say): the replica waits and tries again rather than exit.
const acceptBackoffMax = time.Second

// ConnCounters counts what the transport refused or closed. A replica
// counts into Options.Counters when it is set, and logs the counts
// when it stops. The fields may be read at any time.
type ConnCounters struct {
	Accepted atomic.Uint64 // connections accepted (refused ones included)
	// OverLimit: refused at once because maxConns connections were open.
	OverLimit atomic.Uint64
	// HelloTimeout: closed because the TLS handshake and the Hello did not
	// arrive within handshakeTimeoutMs.
	HelloTimeout atomic.Uint64
	// RefusedTLS: the TLS handshake failed (no certificate, another CA,
	// not TLS at all).
	RefusedTLS atomic.Uint64
	// RefusedIdentity: the certificate does not name what the Hello claims
	// (a client certificate with a replica Hello, another replica's alias).
	RefusedIdentity atomic.Uint64
	// BadHello: the first frame was malformed, not a Hello, or named a
	// replica that does not exist.
	BadHello atomic.Uint64
	// RefusedProtocol: the Hello named another protocol, or came from a
	// replica durable where this one is not, or holding leases where this
	// one does not, or the other way round.
	RefusedProtocol atomic.Uint64
	// IdleClosed: client connections silent both ways for
	// clientIdleTimeoutMs.
	IdleClosed atomic.Uint64
	// InvalidMessage: closed because a replica message broke a protocol
	// invariant (replica.ErrInvalid).
	InvalidMessage atomic.Uint64
}

// fields are the counters as log fields.
func (c *ConnCounters) fields() []zap.Field {
	return []zap.Field{
		zap.Uint64("conns_accepted", c.Accepted.Load()), zap.Uint64("conns_over_limit", c.OverLimit.Load()),
		zap.Uint64("conns_hello_timeout", c.HelloTimeout.Load()), zap.Uint64("conns_refused_tls", c.RefusedTLS.Load()),
		zap.Uint64("conns_refused_identity", c.RefusedIdentity.Load()), zap.Uint64("conns_bad_hello", c.BadHello.Load()),
		zap.Uint64("conns_refused_protocol", c.RefusedProtocol.Load()),
		zap.Uint64("conns_idle_closed", c.IdleClosed.Load()), zap.Uint64("conns_invalid_message", c.InvalidMessage.Load()),
	}
}

// accept serves incoming connections until ctx ends. A connection beyond
// maxConns open ones is closed at once.
func (s *server) accept(ctx context.Context, ln net.Listener) error {
	backoff := time.Duration(0)
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return fmt.Errorf("accept: %w", err)
			}
			// Out of descriptors or a connection reset before Accept:
			// the listener still works, so wait a little and go on.
			backoff = min(max(2*backoff, 5*time.Millisecond), acceptBackoffMax)
			s.log.Warn("accept failed; retrying", zap.Error(err), zap.Duration("after", backoff))
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(backoff):
			}
			continue
		}
		backoff = 0
		s.counters.Accepted.Add(1)
		// Counted before the check: two listeners accept at once
		// (Options.LocalAddr), and neither may take the last place twice.
		open := s.open.Add(1)
		if limit := s.cfg.MaxConns; limit > 0 && open > int64(limit) {
			s.open.Add(-1)
			s.counters.OverLimit.Add(1)
			s.log.Debug("connection refused: maxConns connections are open",
				zap.Stringer("remote", conn.RemoteAddr()), zap.Int("maxConns", limit))
			conn.Close()
			continue
		}
		s.live.serve(conn, func() { s.serveConn(ctx, conn) })
	}
}

// serveConn authenticates an incoming connection (TLS handshake, Hello,
// and with TLS the Hello against the certificate), then reads every frame,
// handing each decoded message to the loop in arrival order.
func (s *server) serveConn(ctx context.Context, nc net.Conn) {
	setKeepAlive(nc)
	raw := s.meter.Wrap(nc)
	// Deferred calls run last first: the count drops before the
	// connection closes, so a peer that sees the close can connect again.
	defer raw.Close()
	defer s.open.Add(-1)
	remote := zap.Stringer("remote", raw.RemoteAddr())
	conn, r, hello, ok := s.handshake(ctx, raw, remote)
	if !ok {
		return
	}
	in := inbound{conn: conn}
	var cc *clientConn
	switch hello.Kind {
	case wire.PeerClient:
		in.isClient, in.fromClient = true, hello.Client
		b := batcher.New[wire.Message](conn, wire.AppendFrame, s.optsTo(hello.Alias, cost.ToClients), s.log)
		cc = s.track(b, raw.RemoteAddr())
		defer func() {
			s.untrack(cc)
			s.post(ctx, inbound{isClient: true, fromClient: hello.Client, peer: b, closed: true})
			b.Close()
		}()
		if !s.post(ctx, inbound{isClient: true, fromClient: hello.Client, peer: b}) {
			return
		}
	case wire.PeerSessions:
		s.serveSessions(ctx, conn, raw.RemoteAddr(), r, hello)
		return
	case wire.PeerReplica:
		in.fromReplica = hello.Replica
		defer s.post(ctx, inbound{fromReplica: hello.Replica, down: true})
	}
	s.readAll(ctx, r, cc, remote, func(m wire.Message) (inbound, error) {
		if rt, ok := m.(*wire.Routed); ok {
			// A connection of one session may route to that session only.
			if !in.isClient || rt.Session != in.fromClient {
				return inbound{}, fmt.Errorf("a Routed for session %d on a connection of %d", rt.Session, in.fromClient)
			}
			m = rt.Msg
		}
		in.msg = m
		return in, nil
	})
}

// readAll reads a connection until it fails, turns each message into the
// loop's input (input's error closes the connection as a protocol
// violation), and hands the loop one batch per read: everything that one
// read brought (wire.Reader.Each's last), up to maxHandOff messages. The
// hand-off waits only outside the socket's lock (Each's flush), so that
// closing the connection never waits for the loop.
func (s *server) readAll(ctx context.Context, r *wire.Reader, cc *clientConn, remote zap.Field, input func(wire.Message) (inbound, error)) {
	batch := s.newBatch()
	var invalid error
	add := func(m wire.Message, last bool) error {
		if cc != nil {
			cc.frames.Add(1)
		}
		in, err := input(m)
		if err != nil {
			invalid = err
			return errInvalid
		}
		if batch = append(batch, in); !last && len(batch) < maxHandOff {
			return nil
		}
		select {
		case s.inbox <- batch:
			batch = s.newBatch()
			return nil
		default:
			return wire.ErrBusy
		}
	}
	flush := func() error {
		if !s.postAll(ctx, batch) {
			return errStopped
		}
		batch = s.newBatch()
		return nil
	}
	err := r.Each(add, flush)
	if err == errStopped || !s.postAll(ctx, batch) {
		return
	}
	if err == errInvalid {
		s.counters.InvalidMessage.Add(1)
		s.log.Warn("invalid message from a client: connection closed", remote, zap.Error(invalid))
		return
	}
	s.logClosed(ctx, cc, remote, err)
}

// errInvalid and errStopped end a reader's loop: the connection sent a
// message that is not valid from it, or the replica stops.
var (
	errInvalid = errors.New("invalid message")
	errStopped = errors.New("replica stopped")
)

// logClosed says why a connection's reader stopped, unless the reason is
// ordinary: the idle sweep closed it, the peer hung up, the replica stops.
func (s *server) logClosed(ctx context.Context, cc *clientConn, remote zap.Field, err error) {
	switch {
	case cc != nil && cc.idle.Load():
	case errors.Is(err, io.EOF) || ctx.Err() != nil:
	default:
		s.log.Info("connection closed", remote, zap.Error(err))
	}
}

// handshake runs the TLS handshake (when TLS is on) and reads the Hello,
// both within handshakeTimeoutMs of the accept, so that a connection that
// sends nothing, or one byte at a time, holds its slot for that long at
// most. With TLS it checks that the certificate names what the Hello
// claims. A refused connection is logged once, with its address, and
// counted.
func (s *server) handshake(ctx context.Context, raw net.Conn, remote zap.Field) (net.Conn, *wire.Reader, *wire.Hello, bool) {
	if err := raw.SetDeadline(time.Now().Add(s.cfg.HandshakeTimeout)); err != nil {
		return nil, nil, nil, false
	}
	conn := raw
	var peer certs.Identity
	if s.tls != nil {
		var err error
		conn, peer, err = s.tls.Server(ctx, raw)
		switch {
		case err == nil:
		case errors.Is(err, os.ErrDeadlineExceeded):
			s.counters.HelloTimeout.Add(1)
			s.log.Debug("connection closed: no TLS handshake within handshakeTimeoutMs", remote)
			return nil, nil, nil, false
		case errors.Is(err, io.EOF):
			// Closed before a byte: a port probe (run-multi-client.sh
			// waits for the replicas so), not an attempt to get in.
			s.log.Debug("connection closed before the TLS handshake", remote)
			return nil, nil, nil, false
		default:
			if ctx.Err() == nil {
				s.counters.RefusedTLS.Add(1)
				s.log.Warn("connection refused: TLS handshake failed", remote, zap.Error(err))
			}
			return nil, nil, nil, false
		}
	}
	r := wire.NewReader(conn, maxFrame)
	first, err := r.Next()
	if err != nil {
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			s.counters.HelloTimeout.Add(1)
			s.log.Debug("connection closed: no hello within handshakeTimeoutMs", remote)
		case errors.Is(err, wire.ErrMalformed):
			s.counters.BadHello.Add(1)
			s.log.Warn("connection closed: malformed first frame", remote, zap.Error(err))
		default:
			s.log.Debug("connection closed before hello", remote, zap.Error(err))
		}
		return nil, nil, nil, false
	}
	hello, ok := first.(*wire.Hello)
	switch {
	case !ok:
		s.counters.BadHello.Add(1)
		s.log.Warn("connection closed: the first frame is not a hello", remote, zap.Stringer("type", first.Type()))
		return nil, nil, nil, false
	case hello.Kind == wire.PeerReplica && (hello.Replica < 0 || int(hello.Replica) >= s.cfg.N() || hello.Replica == s.id):
		s.counters.BadHello.Add(1)
		s.log.Warn("connection closed: hello from an unknown replica", remote, zap.Int32("replica", int32(hello.Replica)))
		return nil, nil, nil, false
	case hello.Protocol != "" && hello.Protocol != string(s.cfg.Protocol):
		s.refuse(hello.Alias+" protocol "+hello.Protocol,
			"connection refused: the peer runs another protocol (every process of a deployment must run the same one: the config's protocol key, or -protocol)",
			remote, zap.String("peer_alias", hello.Alias), zap.String("peer_protocol", hello.Protocol), zap.String("protocol", string(s.cfg.Protocol)))
		return nil, nil, nil, false
	case hello.Kind == wire.PeerReplica && hello.Durable != (s.disk != nil):
		s.refuse(fmt.Sprintf("%s durable %v", hello.Alias, hello.Durable),
			"connection refused: the peer replica is durable where this one is not, or the other way round (dataDir, or -data, must be set for every replica or for none)",
			remote, zap.String("peer_alias", hello.Alias), zap.Bool("peer_durable", hello.Durable), zap.Bool("durable", s.disk != nil))
		return nil, nil, nil, false
	case hello.Kind == wire.PeerReplica && hello.Leases != s.cfg.LeaseReads:
		s.refuse(fmt.Sprintf("%s leases %v", hello.Alias, hello.Leases),
			"connection refused: the peer replica holds leases where this one does not, or the other way round (leaseReads must be the same for every replica)",
			remote, zap.String("peer_alias", hello.Alias), zap.Bool("peer_leases", hello.Leases), zap.Bool("leases", s.cfg.LeaseReads))
		return nil, nil, nil, false
	}
	if s.tls != nil {
		if err := s.authorize(peer, hello); err != nil {
			s.counters.RefusedIdentity.Add(1)
			s.log.Warn("connection refused", remote, zap.Error(err))
			return nil, nil, nil, false
		}
	}
	if err := raw.SetDeadline(time.Time{}); err != nil {
		return nil, nil, nil, false
	}
	return conn, r, hello, true
}

// authorize checks a Hello against the certificate of its connection: a
// replica Hello needs the certificate of that very replica, a client Hello
// a client certificate (any: the generic one serves ad-hoc clients).
func (s *server) authorize(peer certs.Identity, h *wire.Hello) error {
	switch h.Kind {
	case wire.PeerReplica:
		want := s.cfg.Replica(int(h.Replica)).Alias
		if peer.Role != certs.Replica || peer.Alias != want {
			return fmt.Errorf("the certificate names %s, the hello claims replica %s", peer, want)
		}
		if h.Alias != "" && strings.ToLower(h.Alias) != want {
			return fmt.Errorf("the hello of replica %s (certificate %s) claims the alias %q", want, peer, h.Alias)
		}
	case wire.PeerClient, wire.PeerSessions:
		if peer.Role != certs.Client {
			return fmt.Errorf("the certificate names %s, the hello claims a client", peer)
		}
	default:
		return fmt.Errorf("hello of unknown kind %d", h.Kind)
	}
	return nil
}

// maxHandOff bounds the messages a reader hands to the loop at once.
const maxHandOff = 64

// post hands in to the loop unless the replica is stopping.
func (s *server) post(ctx context.Context, in inbound) bool {
	return s.postAll(ctx, []inbound{in})
}

// postAll hands the loop a batch of inputs, in order, with one channel
// send: a reader passes on everything one read brought (wire.Reader's
// Buffered), so the loop wakes once per read, not once per message. The
// loop owns the slice from then on.
func (s *server) postAll(ctx context.Context, ins []inbound) bool {
	if len(ins) == 0 {
		return true
	}
	select {
	case s.inbox <- ins:
		return true
	case <-ctx.Done():
		return false
	}
}

// optsTo returns the batcher options of a connection to the process alias:
// the emulated one-way delay of the configuration's latency model
// (networkDelay, latencyFile, co-location; PROTOCOL.md 7.3) is added on
// the sending side, one per-connection FIFO queue ordered by release time.
// link is the destination the batcher's counters are reported under.
func (s *server) optsTo(alias, link string) batcher.Options {
	o := s.bopts
	o.Stopped = func(st batcher.Stats) { s.meter.Sent(link, st.Messages, st.Bytes, st.Batches) }
	if alias != "" {
		o.Delay = s.cfg.OneWayDelay(s.o.Alias, alias)
	}
	return o
}

func setKeepAlive(conn net.Conn) {
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetKeepAlive(true)
		_ = tc.SetKeepAlivePeriod(time.Second)
		_ = tc.SetNoDelay(true)
	}
}
