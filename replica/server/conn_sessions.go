package server

import (
	"context"
	"fmt"
	"net"

	"go.uber.org/zap"

	"swiftpaxos/batcher"
	"swiftpaxos/cost"
	"swiftpaxos/wire"
)

// maxSessionsPerConn bounds the sessions one PeerSessions connection may
// attach. Each costs the loop an entry in its client table until the
// connection closes, so a peer that attaches without end is cut off; a
// benchmark process runs one session per thread, far fewer.
const maxSessionsPerConn = 1 << 12

// A sessions connection's replies share one outbound queue, and a full
// queue cuts the connection for all its sessions: its Hello says how many
// sessions it carries, and the queue holds batcher.DefaultQueueLen
// messages for each (as a connection of its own would), for at most
// maxQueuedSessions. The room beyond the default that all the connections
// take together is bounded by sessionsQueueBudget messages (about 24 MiB),
// so that a peer claiming many sessions on many connections gets the
// default queue, not the replica's memory.
const (
	maxQueuedSessions   = 64
	sessionsQueueBudget = 1 << 20
)

// serveSessions reads a connection that carries the sessions of one
// client process (wire.PeerSessions; docs/DECISIONS.md 28). A session
// attaches with a PeerClient Hello; from then on the loop sends its
// replies here. A message must name an attached session
// (wire.SessionOf): one that names none, or another, is a protocol
// violation and closes the connection, so a connection speaks only for
// the sessions that attached to it.
func (s *server) serveSessions(ctx context.Context, conn net.Conn, remoteAddr net.Addr, r *wire.Reader, hello *wire.Hello) {
	remote := zap.Stringer("remote", remoteAddr)
	opts := s.optsTo(hello.Alias, cost.ToClients)
	var release func()
	opts.QueueLen, release = s.sessionsQueue(hello.Sessions)
	if hello.Sessions > 1 && opts.QueueLen == batcher.DefaultQueueLen {
		s.log.Warn("the replies' queues of client connections are at their budget: this one has the default",
			remote, zap.Uint32("sessions", hello.Sessions), zap.Int("queue", opts.QueueLen))
	}
	b := batcher.New[wire.Message](conn, wire.AppendFrame, opts, s.log)
	cc := s.track(b, remoteAddr)
	attached := make(map[wire.ClientID]struct{})
	defer func() {
		defer release()
		s.untrack(cc)
		ids := make([]wire.ClientID, 0, len(attached))
		for id := range attached {
			ids = append(ids, id)
		}
		s.post(ctx, inbound{isClient: true, peer: b, closed: true, shared: true, sessions: ids})
		b.Close()
	}()
	s.readAll(ctx, r, cc, remote, func(m wire.Message) (inbound, error) {
		return s.sessionInput(attached, m, b, conn)
	})
}

// sessionsQueue takes from the budget the outbound queue of a sessions
// connection whose Hello declared n sessions, and returns its length and
// the function that gives the room back once the connection is closed.
func (s *server) sessionsQueue(n uint32) (int, func()) {
	want := batcher.DefaultQueueLen * int(min(max(n, 1), maxQueuedSessions))
	extra := int64(want - batcher.DefaultQueueLen)
	if extra == 0 {
		return want, func() {}
	}
	if s.queueRoom.Add(-extra) < 0 {
		s.queueRoom.Add(extra)
		return batcher.DefaultQueueLen, func() {}
	}
	return want, func() { s.queueRoom.Add(extra) }
}

// sessionInput is the loop's input for a message on a sessions
// connection: a Hello attaches a session, any other message must name an
// attached one.
func (s *server) sessionInput(attached map[wire.ClientID]struct{}, m wire.Message, b *batcher.Batcher[wire.Message], conn net.Conn) (inbound, error) {
	if h, ok := m.(*wire.Hello); ok {
		if err := attach(attached, h); err != nil {
			return inbound{}, err
		}
		return inbound{isClient: true, fromClient: h.Client, peer: b, shared: true}, nil
	}
	id, ok := wire.SessionOf(m)
	if _, on := attached[id]; !ok || !on {
		return inbound{}, fmt.Errorf("a %s for no session attached to the connection", m.Type())
	}
	if r, ok := m.(*wire.Routed); ok {
		m = r.Msg // a message that does not name its session (wire.RouteTo)
	}
	return inbound{isClient: true, fromClient: id, msg: m, conn: conn}, nil
}

// attach adds the session a Hello names to a PeerSessions connection.
func attach(attached map[wire.ClientID]struct{}, h *wire.Hello) error {
	switch {
	case h.Kind != wire.PeerClient:
		return fmt.Errorf("a hello of kind %d inside a sessions connection", h.Kind)
	case len(attached) >= maxSessionsPerConn:
		return fmt.Errorf("more than %d sessions on one connection", maxSessionsPerConn)
	}
	attached[h.Client] = struct{}{}
	return nil
}
