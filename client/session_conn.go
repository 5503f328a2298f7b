package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"go.uber.org/zap"

	"swiftpaxos/batcher"
	"swiftpaxos/config/certs"
	"swiftpaxos/replica/wire"
)

// A session's connections: one per replica, dialled at start and again
// after a break, closed when idle, each with a reader goroutine that posts
// what arrives to the session's loop and a batcher that writes.

// dialResult is a connection opened off the loop (or why not).
type dialResult struct {
	b    *batcher.Batcher[wire.Message]
	conn net.Conn
	err  error
}

// maxQueued bounds the messages a session holds for a replica it is
// dialling again after closing it for being idle; beyond it they are
// dropped, as on a broken connection, and retries resend them.
const maxQueued = 1024

// connectAll dials every replica and returns the one with the lowest
// connect time (a measured round trip, PROTOCOL.md 10.14).
func (s *Session) connectAll(ctx context.Context, id wire.ClientID) (wire.ReplicaID, []time.Duration, error) {
	n := s.o.Config.N()
	rtts := make([]time.Duration, n)
	best := wire.NoReplica
	var errs []error
	for i := range n {
		t0 := time.Now()
		b, conn, err := s.open(ctx, wire.ReplicaID(i), id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s.attach(wire.ReplicaID(i), b, conn)
		rtts[i] = time.Since(t0)
		if best == wire.NoReplica || rtts[i] < rtts[best] {
			best = wire.ReplicaID(i)
		}
	}
	if best == wire.NoReplica {
		return 0, nil, fmt.Errorf("%w: %w", ErrUnreachable, errors.Join(errs...))
	}
	return best, rtts, nil
}

// loadTLS loads the certificate the session presents.
func loadTLS(dir string, o SessionOptions) (*certs.Material, error) {
	name := o.TLSName
	switch {
	case name != "":
	case o.Alias == "":
		name = certs.GenericClient
	default:
		name = strings.ToLower(o.Alias)
	}
	m, err := certs.Load(dir, name)
	if err != nil {
		return nil, err
	}
	if m.Self().Role != certs.Client {
		return nil, fmt.Errorf("tls: the certificate %s names %s, not a client", name, m.Self())
	}
	return m, nil
}

// open connects to replica r (with TLS when it is on, checking that the
// server is r) and queues the Hello. It touches no state of the loop, so
// the loop runs it on a goroutine of its own (dial): a replica that is
// slow to answer never stalls the session.
func (s *Session) open(ctx context.Context, r wire.ReplicaID, id wire.ClientID) (*batcher.Batcher[wire.Message], net.Conn, error) {
	cfg := s.o.Config
	replica := cfg.Replica(int(r))
	addr := replica.Addr()
	d := net.Dialer{Timeout: time.Second}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("replica%d at %s: %w", r, addr, err)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	conn = s.o.Meter.Wrap(conn)
	if s.tls != nil {
		hctx, cancel := context.WithTimeout(ctx, cfg.HandshakeTimeout)
		conn, err = s.tls.Client(hctx, conn, certs.Identity{Role: certs.Replica, Alias: replica.Alias})
		cancel()
		if err != nil {
			return nil, nil, fmt.Errorf("replica%d at %s: TLS handshake: %w", r, addr, err)
		}
	}
	// The emulated one-way delay to this replica (PROTOCOL.md 7.3); the
	// replica delays its replies likewise.
	delay := cfg.OneWayDelay(s.o.Alias, replica.Alias)
	opts := batcher.Options{Delay: delay, Stopped: s.o.Meter.Batches(replica.Alias)}
	b := batcher.New[wire.Message](conn, wire.AppendFrame, opts, s.log)
	if err := b.Send(&wire.Hello{Kind: wire.PeerClient, Client: id, Alias: s.o.Alias}); err != nil {
		b.Close()
		return nil, nil, fmt.Errorf("replica%d at %s: %w", r, addr, err)
	}
	return b, conn, nil
}

// attach makes an opened connection the session's connection to r and
// starts its reader. Loop state: called by Dial before the loop starts,
// then only by the loop.
func (s *Session) attach(r wire.ReplicaID, b *batcher.Batcher[wire.Message], conn net.Conn) {
	s.conns[r] = b
	s.idle[r] = false
	s.lastSeen[r], s.quietSince[r] = s.activity[r], time.Now()
	s.wg.Add(1)
	go s.read(r, conn, b)
}

// dial opens a connection to r off the loop and hands the outcome to the
// loop (dialed); at most one dial per replica runs at a time.
func (s *Session) dial(r wire.ReplicaID) {
	if s.dialing[r] {
		return
	}
	s.dialing[r] = true
	id := s.core.ID()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		b, conn, err := s.open(s.ctx, r, id)
		select {
		case s.inbox <- reply{from: r, dialed: &dialResult{b, conn, err}}:
		case <-s.ctx.Done():
			if b != nil {
				b.Close()
			}
		}
	}()
}

// dialed takes the outcome of a dial. A replica that was down is up again;
// one the session had closed for being idle gets what was queued for it,
// or, if it cannot be reached, is down from now on.
func (s *Session) dialed(r wire.ReplicaID, d *dialResult) {
	s.dialing[r] = false
	wasIdle := s.idle[r]
	if d.err != nil {
		s.log.Debug("cannot connect to a replica", zap.Int32("replica", int32(r)), zap.Bool("idle", wasIdle), zap.Error(d.err))
		if wasIdle {
			s.idle[r], s.queued[r] = false, nil
			s.down = append(s.down, r)
		}
		return
	}
	if s.conns[r] != nil { // cannot happen: one dial at a time, and only without a connection
		d.b.Close()
		return
	}
	s.attach(r, d.b, d.conn)
	if !wasIdle {
		s.core.ReplicaUp(r)
	}
	q := s.queued[r]
	s.queued[r] = nil
	for _, m := range q {
		s.send(r, m)
	}
}

// read feeds one connection's messages to the loop in arrival order.
func (s *Session) read(r wire.ReplicaID, conn net.Conn, b *batcher.Batcher[wire.Message]) {
	defer s.wg.Done()
	rd := wire.NewReader(conn, 16<<20)
	for {
		m, err := rd.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) && s.ctx.Err() == nil {
				s.log.Debug("replica connection closed", zap.Int32("replica", int32(r)), zap.Error(err))
			}
			b.Close()
			select {
			case s.inbox <- reply{from: r, conn: b, down: true}:
			case <-s.ctx.Done():
			}
			return
		}
		select {
		case s.inbox <- reply{from: r, msg: m}:
		case <-s.ctx.Done():
			return
		}
	}
}

// send queues m on the connection to replica to, without waiting: a
// connection whose queue is full counts as broken. If the session closed
// that connection for being idle, m waits in queued while the connection
// is dialled again.
func (s *Session) send(to wire.ReplicaID, m wire.Message) {
	if s.conns[to] == nil && s.idle[to] {
		if len(s.queued[to]) < maxQueued {
			s.queued[to] = append(s.queued[to], m)
		}
		s.dial(to)
		return
	}
	if b := s.conns[to]; b != nil {
		s.activity[to]++
		if err := b.TrySend(m); err != nil {
			s.conns[to] = nil
			s.down = append(s.down, to)
		}
	}
}

// closeIdle closes the connections on which nothing was sent or received
// for half of clientIdleTimeoutMs. The replica closes a client connection
// silent for the whole timeout; closing first, the session knows the
// close is not a failure: the replica is not marked down, and the
// connection is dialled again when the session next sends there. The half
// leaves room for a reply the session still waits for (the configuration
// requires the timeout to be at least twice retryMs and readWaitMs).
func (s *Session) closeIdle(now time.Time) {
	limit := s.o.Config.ClientIdleTimeout / 2
	if limit <= 0 {
		return
	}
	for i, b := range s.conns {
		if b == nil {
			continue
		}
		if s.activity[i] != s.lastSeen[i] {
			s.lastSeen[i], s.quietSince[i] = s.activity[i], now
			continue
		}
		if now.Sub(s.quietSince[i]) < limit {
			continue
		}
		s.conns[i], s.idle[i] = nil, true
		b.Close()
		s.log.Debug("closed an idle replica connection", zap.Int("replica", i), zap.Duration("idle", now.Sub(s.quietSince[i])))
		if s.o.onIdleClose != nil {
			s.o.onIdleClose(wire.ReplicaID(i))
		}
	}
}

func (s *Session) closeConns() {
	for _, b := range s.conns {
		if b != nil {
			b.Close()
		}
	}
}
