package client

import (
	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
)

// Strong operations (PROTOCOL.md 3.6, 5.8): the fast-path tally of the
// leader's reply and the witnesses' acknowledgements, the slow path's
// SyncReply, and what a completed strong operation leaves in the cache.

func (s *Core) onLeaderReply(m *wire.LeaderReply) {
	s.noteBallot(m.Ballot, m.Replica)
	p := s.Lookup(m.Cmd)
	if p == nil || p.Op.Level != wire.Strong || m.Ballot < s.ballot {
		return
	}
	if m.Retry {
		// The leader's barrier gave up: re-send the weak writes it waits
		// for, then the proposal (PROTOCOL.md 5.4).
		s.o.Policy.SendWeakWrite(s, nil)
		s.sendStrong(p)
		return
	}
	p.leaderReply = m
	s.tryFast(p)
}

func (s *Core) onRecordAck(m *wire.RecordAck) {
	p := s.Lookup(m.Cmd)
	if p == nil || p.Op.Level != wire.Strong || m.Replica < 0 || int(m.Replica) >= s.o.N {
		return
	}
	p.acks[m.Replica] = m
	s.tryFast(p)
}

// tryFast completes p on the fast path when the leader said Ok and Q-1
// other replicas acknowledged in the same ballot (PROTOCOL.md 3.6, 5.8).
func (s *Core) tryFast(p *Pending) {
	lr := p.leaderReply
	if lr == nil || !lr.Ok || lr.Ballot != s.ballot {
		return
	}
	n := 0
	for r, a := range p.acks {
		if a == nil || wire.ReplicaID(r) == lr.Replica || a.Ballot != lr.Ballot || !a.Ok {
			continue
		}
		if s.o.Policy.FastPathAck(s, p, lr, a) {
			n++
		}
	}
	if n >= s.q-1 {
		s.completeStrong(p, Result{Value: lr.Result, Items: lr.Items, Version: lr.Version, Slot: lr.Slot, Path: PathFast, Replica: lr.Replica})
	}
}

func (s *Core) onSyncReply(m *wire.SyncReply) {
	// Any replica may answer a Sync, so a SyncReply names no leader.
	s.noteBallot(m.Ballot, wire.NoReplica)
	p := s.Lookup(m.Cmd)
	if p == nil {
		s.o.Policy.Handle(s, m.Replica, m)
		return
	}
	if p.Op.Level != wire.Strong {
		return
	}
	if m.Refused {
		s.Complete(p, Result{Slot: m.Slot, Path: PathSlow, Err: ErrRefused})
		s.Expire()
		return
	}
	s.completeStrong(p, Result{Value: m.Result, Items: m.Items, Version: m.Version, Slot: m.Slot, Path: PathSlow, Replica: m.Replica})
	s.o.Policy.Handle(s, m.Replica, m)
}

// completeStrong completes p with r, whose Replica names the replica
// that answered.
func (s *Core) completeStrong(p *Pending, r Result) {
	cmd := p.Op.Command
	switch {
	case cmd.Op == kvs.OpPut:
		s.setOwn(cmd.Key, cmd.Value, r.Slot, p.Seq)
		if r.Path == PathFast {
			s.markTentative(cmd.Key, r.Slot)
		}
		r.Value = nil
	case cmd.Op == kvs.OpGet:
		// A fast-path read's source is committed, except a CURP-HO ONE(w)
		// read, whose source w may still move.
		e := cacheEntry{value: r.Value, version: r.Version}
		e.tentative = r.Path == PathFast && p.leaderReply != nil && p.leaderReply.ReadDep.Kind == wire.DepOne
		// The leader ordered the read after the session's earlier weak
		// writes (the CURP-HO barrier), so its value is at least as new
		// as any own pending write issued before it.
		if old, ok := s.cache[cmd.Key]; ok && old.pending && old.src < p.Seq {
			s.put(cmd.Key, e)
		} else {
			s.setCache(cmd.Key, e)
		}
		s.raiseFrontier(r.Version, e.tentative)
	default:
		s.raiseFrontier(r.Version, r.Path == PathFast && p.leaderReply != nil && p.leaderReply.ReadDep.Kind == wire.DepOne)
	}
	s.o.Policy.StrongCompleted(s, p, r)
	// A fast path completes on whichever reply came last, often a
	// witness's ack: the result, and so Replica, is the leader's.
	s.complete(p, r, r.Replica)
}
