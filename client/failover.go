package client

import (
	"swiftpaxos/wire"
)

// Failover (PROTOCOL.md 6.6): the session follows ballots and leaders,
// re-binds when its nearest replica's connection breaks, and re-sends what
// is in flight to a new view.

// NextReplica is the replica after r in turn that is not known down.
func (s *Core) NextReplica(r wire.ReplicaID) wire.ReplicaID { return s.nextTarget(r) }

// ReplicaDown tells the session that its connection to r broke. Its
// acknowledgements of operations in flight no longer count toward a fast
// path: r may have restarted without the records they vouch for
// (PROTOCOL.md 6.10), and a leader's reply that arrives later would
// otherwise complete an operation that no super-quorum keeps
// (docs/DECISIONS.md 47). If r was its nearest (bound) replica, the
// session re-binds to the next live one and re-sends what it had sent
// there (PROTOCOL.md 6.6).
func (s *Core) ReplicaDown(r wire.ReplicaID) {
	if r < 0 || int(r) >= s.o.N || s.down[r] {
		return
	}
	s.down[r] = true
	for _, p := range s.pending {
		if p.acks != nil {
			p.acks[r] = nil
		}
	}
	if r != s.nearest {
		return
	}
	for i := 1; i < s.o.N; i++ {
		c := wire.ReplicaID((int(r) + i) % s.o.N)
		if !s.down[c] {
			s.nearest = c
			break
		}
	}
	s.o.Policy.SendWeakWrite(s, nil)
	for _, seq := range s.order {
		if p, ok := s.pending[seq]; ok && !p.deferred && p.Op.Level == wire.Weak {
			s.resend(p)
		}
	}
}

// Down lists the replicas whose connection is broken, in order.
func (s *Core) Down() []wire.ReplicaID {
	var out []wire.ReplicaID
	for r, d := range s.down {
		if d {
			out = append(out, wire.ReplicaID(r))
		}
	}
	return out
}

// ReplicaUp tells the session that r is reachable again; the configured
// nearest replica takes its role back.
func (s *Core) ReplicaUp(r wire.ReplicaID) {
	if r < 0 || int(r) >= s.o.N {
		return
	}
	s.down[r] = false
	if r == s.o.Nearest {
		s.nearest = r
	}
}

// onNewView re-sends everything in flight to the new view: the write set
// first (through the policy), then the operations in Seq order
// (PROTOCOL.md 6.6). Acks of older ballots no longer count.
func (s *Core) onNewView(m *wire.NewView) {
	if m.Ballot > s.readBallot {
		// Everything observed in older views is below the view start now.
		s.readBallot = m.Ballot
		if m.ViewStart > 0 {
			s.frontier = max(s.frontier, m.ViewStart-1)
		}
	}
	if m.Ballot > s.ballot || m.Ballot == s.ballot && m.Leader != s.leader {
		s.noteBallot(m.Ballot, m.Leader)
		s.o.Policy.SendWeakWrite(s, nil)
		for _, seq := range s.order {
			if p, ok := s.pending[seq]; ok && !p.deferred {
				p.redirected = true
				s.resend(p)
				p.redirected = false
			}
		}
	}
	s.o.Policy.Handle(s, m.Leader, m)
}

// noteBallot adopts a higher ballot and its leader.
func (s *Core) noteBallot(b wire.Ballot, leader wire.ReplicaID) {
	if b > s.ballot || b == s.ballot && leader != wire.NoReplica {
		if b > s.ballot {
			s.ballot = b
			s.dropSettled()
		}
		if leader != wire.NoReplica {
			s.leader = leader
		}
	}
}

// nextTarget is where a weak read goes after from failed: the next replica
// in turn that is not known to be down.
func (s *Core) nextTarget(from wire.ReplicaID) wire.ReplicaID {
	for i := 1; i <= s.o.N; i++ {
		c := wire.ReplicaID((int(from) + i) % s.o.N)
		if !s.down[c] {
			return c
		}
	}
	return wire.ReplicaID((int(from) + 1) % s.o.N)
}
