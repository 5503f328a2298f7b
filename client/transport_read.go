package client

import (
	"errors"
	"io"
	"net"
	"slices"
	"syscall"
	"time"

	"go.uber.org/zap"

	"swiftpaxos/wire"
)

// The reading side of a Transport's connections: one reader per
// connection hands each reply to the session it names, and tells them
// all when the connection breaks.

// read hands each message on c to the session it names, in arrival
// order. When the connection breaks, every session attached to it is told.
func (t *Transport) read(l *link, c *muxConn, conn net.Conn, delay time.Duration) {
	defer t.wg.Done()
	rd := wire.NewReader(conn, 16<<20)
	var batch []routed
	heard, opened := false, time.Now()
	add := func(m wire.Message, last bool) error {
		if !heard {
			heard = true
			l.refused.Store(false)
		}
		if id, ok := wire.SessionOf(m); ok {
			if r, routed := m.(*wire.Routed); routed {
				m = r.Msg
			}
			l.mu.RLock()
			p := c.ports[id]
			l.mu.RUnlock()
			if p != nil { // nil: a reply to a session that has detached or closed
				batch = append(batch, routed{p, m})
			}
		}
		if len(batch) == 0 || !last && len(batch) < maxHandOff {
			return nil
		}
		if !deliver(l.r, batch, false) {
			return wire.ErrBusy
		}
		batch = batch[:0]
		return nil
	}
	flush := func() error {
		deliver(l.r, batch, true)
		batch = batch[:0]
		return nil
	}
	err := rd.Each(add, flush)
	deliver(l.r, batch, true)
	// Closed by this side (idle, Close) says nothing about the replica,
	// and nor does a connection that lived a while (the replica closed it
	// idle, or died): a refusal comes right after the Hello, which the
	// emulated delay holds back.
	if !heard && !errors.Is(err, net.ErrClosed) {
		l.refused.Store(time.Since(opened) < refusedWithin+delay)
	}
	t.broken(l, c, err)
}

// refusedWithin: a connection the replica closes this soon after it
// opened, before any reply, was refused.
const refusedWithin = time.Second

// refused reports whether replica r closed the latest connection to it
// before sending anything (link.refused).
func (t *Transport) refused(r wire.ReplicaID) bool { return t.links[r].refused.Load() }

// closedByPeer reports whether err is the peer closing the connection.
func closedByPeer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)
}

// maxHandOff bounds the messages a reader gathers before it hands them on.
const maxHandOff = 64

// routed is a message and the session it is for.
type routed struct {
	p *port
	m wire.Message
}

// deliver hands each session its messages of one read, in order, with one
// channel send per session: a session's loop then steps them all before
// it sends what they produced. Without wait it hands on only what a
// session can take at once and reports whether all was; what is left
// stays in batch for a later call with wait (wire.Reader.Each's flush).
func deliver(from wire.ReplicaID, batch []routed, wait bool) bool {
	all := true
	var busy []*port // sessions whose messages wait for flush, in this pass
	for i, first := range batch {
		if first.p == nil || slices.Contains(busy, first.p) {
			continue // handed on with an earlier message of its session, or all waiting
		}
		n := 1
		for _, r := range batch[i+1:] {
			if r.p == first.p {
				n++
			}
		}
		msgs := make([]wire.Message, 1, n)
		msgs[0] = first.m
		for _, r := range batch[i+1:] {
			if r.p == first.p {
				msgs = append(msgs, r.m)
			}
		}
		rep := reply{from: from, msgs: msgs}
		if wait {
			select {
			case first.p.inbox <- rep:
			case <-first.p.ctx.Done():
			}
		} else {
			select {
			case first.p.inbox <- rep:
			default:
				// Its later messages of the batch wait too: a session
				// gets its messages in order.
				all = false
				busy = append(busy, first.p)
				continue
			}
		}
		for j := i; j < len(batch); j++ {
			if batch[j].p == first.p {
				batch[j].p = nil
			}
		}
	}
	if all || wait {
		clear(batch)
	}
	return all
}

// broken retires a connection whose reader stopped and tells the sessions
// attached to it.
func (t *Transport) broken(l *link, c *muxConn, err error) {
	c.b.Close()
	l.mu.Lock()
	if l.cur == c {
		l.cur = nil
	}
	ports := c.ports
	c.ports = nil
	l.mu.Unlock()
	if len(ports) > 0 && !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
		t.log.Debug("replica connection closed", zap.Int32("replica", int32(l.r)), zap.Error(err))
	}
	for _, p := range ports {
		select {
		case p.inbox <- reply{from: l.r, conn: p, down: true}:
		case <-p.ctx.Done():
		}
	}
}
