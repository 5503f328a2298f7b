package client

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"swiftpaxos/config/certs"
	"swiftpaxos/wire"
)

// A session's connections: one port per replica on the process's shared
// connections (Transport), attached at start and again after a break,
// detached when idle. The Transport's readers post what arrives for the
// session to its loop; sends go through the shared batchers.

// dialResult is a port attached off the loop (or why not).
type dialResult struct {
	p   *port
	err error
}

// maxQueued bounds the messages a session holds for a replica it is
// dialling again after closing it for being idle; beyond it they are
// dropped, as on a broken connection, and retries resend them.
const maxQueued = 1024

// connectAll attaches to every replica and returns the one with the
// lowest connect time (a measured round trip, PROTOCOL.md 10.14; on a
// connection the process already had open, the time to attach).
func (s *Session) connectAll(ctx context.Context, id wire.ClientID) (wire.ReplicaID, []time.Duration, error) {
	n := s.o.Config.N()
	rtts := make([]time.Duration, n)
	best := wire.NoReplica
	var errs []error
	for i := range n {
		t0 := time.Now()
		p, err := s.t.attach(ctx, s.ctx, wire.ReplicaID(i), id, s.inbox)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s.use(wire.ReplicaID(i), p)
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

// loadTLS loads the certificate a client process presents: name, or by
// default the alias, or certs.GenericClient for an ad-hoc client.
func loadTLS(dir, alias, name string) (*certs.Material, error) {
	switch {
	case name != "":
	case alias == "":
		name = certs.GenericClient
	default:
		name = strings.ToLower(alias)
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

// use makes an attached port the session's connection to r. Loop state:
// called by Dial before the loop starts, then only by the loop.
func (s *Session) use(r wire.ReplicaID, p *port) {
	s.conns[r] = p
	s.idle[r] = false
	s.lastSeen[r], s.quietSince[r] = s.activity[r], time.Now()
}

// dial attaches to r off the loop and hands the outcome to the loop
// (dialed); at most one dial per replica runs at a time.
func (s *Session) dial(r wire.ReplicaID) {
	if s.dialing[r] {
		return
	}
	s.dialing[r] = true
	id := s.core.ID()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		p, err := s.t.attach(s.ctx, s.ctx, r, id, s.inbox)
		select {
		case s.inbox <- reply{from: r, dialed: &dialResult{p, err}}:
		case <-s.ctx.Done():
			if p != nil {
				p.detach()
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
		d.p.detach()
		return
	}
	s.use(r, d.p)
	if !wasIdle {
		s.core.ReplicaUp(r)
	}
	q := s.queued[r]
	s.queued[r] = nil
	for _, m := range q {
		s.send(r, m)
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
	if p := s.conns[to]; p != nil {
		s.activity[to]++
		if err := p.send(m); err != nil {
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
	for i, p := range s.conns {
		if p == nil {
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
		p.detach()
		s.log.Debug("closed an idle replica connection", zap.Int("replica", i), zap.Duration("idle", now.Sub(s.quietSince[i])))
		if s.o.onIdleClose != nil {
			s.o.onIdleClose(wire.ReplicaID(i))
		}
	}
}

// closeConns detaches the session from every connection, and closes the
// Transport if it is the session's own.
func (s *Session) closeConns() {
	for i, p := range s.conns {
		if p != nil {
			p.detach()
			s.conns[i] = nil
		}
	}
	if s.ownT {
		s.t.Close()
	}
}
