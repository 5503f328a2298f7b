package client

import "swiftpaxos/wire"

// The end of a session: expiry when the leader refuses one of its
// operations, the clean end a closing client asks for, and the leader's end
// of an idle session (docs/DECISIONS.md 15, 23; PROTOCOL.md 6.10).

// Expire ends the session: the leader refused one of its operations, so
// its causal chain is broken and every later operation would be refused
// too (docs/DECISIONS.md 15). Writes that completed but will never be
// durable are reported through Options.Lost; every operation in flight,
// and every later one, fails with ErrRefused. A program that wants to go on
// opens a new session.
func (s *Core) Expire() { s.expire(ErrRefused) }

func (s *Core) expire(why error) {
	if s.expired != nil {
		return
	}
	s.expired = why
	for _, seq := range s.o.Policy.Abandon(s) {
		s.Lost(seq)
	}
	for _, seq := range s.order {
		if p, ok := s.pending[seq]; ok {
			s.Complete(p, Result{Err: why})
		}
	}
	s.order = s.order[:0]
}

// Expired reports whether the session has expired (see Expire).
func (s *Core) Expired() bool { return s.expired != nil }

// End asks the cluster to end the session (its client closes cleanly):
// the leader ends it through the log and releases its state at every
// replica (PROTOCOL.md 6.10). Options.Ended is told when that is applied.
// The request goes out once the session is settled, so that every write it
// acknowledged is durable before the end (a write reaching the leader
// after the end would be refused), and again every retry period until it
// is confirmed. The session must not be used afterwards.
func (s *Core) End() {
	s.ending = true
	s.sendEnd()
}

func (s *Core) sendEnd() {
	if !s.ending || s.expired != nil || !s.Settled() {
		return
	}
	if now := s.o.Now(); s.endSent == 0 || now-s.endSent >= int64(s.o.RetryAfter) {
		s.endSent = max(now, 1)
		s.Send(s.leader, &wire.EndSession{Client: s.o.ID})
	}
}

// onEndSession: a replica applied the end of this session. After End, and
// with nothing unsettled, that is the confirmation; otherwise the leader
// ended the session for being idle: nothing it sends executes any more,
// and its acknowledged writes not yet durable are lost.
func (s *Core) onEndSession(m *wire.EndSession) {
	if m.Client != s.o.ID {
		return
	}
	if s.expired != nil {
		return
	}
	asked := s.ending && s.Settled()
	if asked {
		s.ending = false
		s.expired = ErrClosed
	} else {
		s.expire(ErrExpired)
	}
	if s.o.Ended != nil {
		s.o.Ended(!asked)
	}
}

// Lost records that the session's acknowledged operation seq was refused
// by the leader after it completed (a CURP-HO weak write whose session was
// cut off from the leader for longer than the refusal age, PROTOCOL.md
// 6.8): the session reports it through Options.Lost.
func (s *Core) Lost(seq wire.Seq) {
	if s.o.Lost != nil {
		s.o.Lost(seq)
	}
}
