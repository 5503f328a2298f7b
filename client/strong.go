package client

import (
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
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
// An operation ordered after another in flight never does (order.go).
func (s *Core) tryFast(p *Pending) {
	lr := p.leaderReply
	if lr == nil || !lr.Ok || lr.Ballot != s.ballot || p.after > 0 {
		return
	}
	n := 0
	for r, a := range p.acks {
		if a == nil || wire.ReplicaID(r) == lr.Replica || a.Ballot != lr.Ballot || !a.Ok || s.endedLife(lr, a) {
			continue
		}
		if s.o.Policy.FastPathAck(s, p, lr, a) {
			n++
		}
	}
	if n >= s.q-1 {
		r := outcome(lr.Result)
		r.Slot, r.Path, r.Replica = lr.Slot, PathFast, lr.Replica
		s.completeStrong(p, r)
	}
}

// endedLife reports whether witness ack a comes from a life of its replica
// that had ended when the leader answered with lr: the leader had heard of
// a later one, restarted without the record the ack vouches for
// (docs/DECISIONS.md 58). A reply with lives for another number of
// replicas vouches for no life, so no fast path.
func (s *Core) endedLife(lr *wire.LeaderReply, a *wire.RecordAck) bool {
	switch {
	case len(lr.Lives) == 0 || s.o.Mutation.AcksOfEndedLives:
		return false
	case len(lr.Lives) != s.o.N:
		return true
	}
	return a.Life < lr.Lives[a.Replica]
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
	r := outcome(m.Result)
	r.Slot, r.Path, r.Replica = m.Slot, PathSlow, m.Replica
	s.completeStrong(p, r)
	s.o.Policy.Handle(s, m.Replica, m)
}

// outcome is a Result carrying what a replica computed.
func outcome(kr kvs.Result) Result {
	return Result{Known: true, Value: kr.Value, Found: kr.Found, Version: kr.Version,
		Items: kr.Items, More: kr.More, Applied: kr.Applied, Code: kr.Err}
}

// completeStrong completes p with r, whose Replica names the replica
// that answered, and keeps in the cache the key's state the operation
// wrote or saw.
func (s *Core) completeStrong(p *Pending, r Result) {
	cmd := p.Op.Command
	// A CURP-HO fast path on a ONE(w) ReadDep read the foreign weak write
	// w, which may still move: what it read is tentative.
	readDepOne := r.Path == PathFast && p.leaderReply != nil && p.leaderReply.ReadDep.Kind == wire.DepOne
	switch cmd.Op {
	case kvs.OpPut, kvs.OpDelete:
		v, found := written(cmd)
		s.setOwn(cmd.Key, v, found, r.Slot, p.Seq)
		if r.Path == PathFast {
			s.markTentative(cmd.Key, r.Slot)
		}
		if cmd.Op == kvs.OpPut {
			r.Value = nil
		}
	case kvs.OpCAS, kvs.OpIncr:
		if cmd.Op == kvs.OpIncr {
			r.Applied = r.Code == kvs.ErrNone
		}
		if r.Applied {
			// Its own write: the key's state after it, at its slot, which
			// a fast path's leader has not committed yet.
			s.setOwn(cmd.Key, r.Value, r.Found, r.Slot, p.Seq)
			if r.Path == PathFast {
				s.markTentative(cmd.Key, r.Slot)
			}
			break
		}
		// A CAS that did not apply, or an INCR that failed, read the key.
		s.strongRead(p, cmd.Key, cacheEntry{value: r.Value, found: r.Found, version: r.Version, tentative: readDepOne})
	case kvs.OpGet:
		s.strongRead(p, cmd.Key, cacheEntry{value: r.Value, found: r.Found, version: r.Version, tentative: readDepOne})
	default:
		s.raiseFrontier(r.Version, readDepOne)
	}
	s.o.Policy.StrongCompleted(s, p, r)
	// A fast path completes on whichever reply came last, often a
	// witness's ack: the result, and so Replica, is the leader's.
	s.complete(p, r, r.Replica)
}

// strongRead keeps the state a strong operation read of key k. A
// fast-path read's source is committed, except a CURP-HO ONE(w) read
// (e.tentative). The leader ordered the read after the session's earlier
// weak writes (the CURP-HO barrier), so it is at least as new as any own
// pending write issued before it.
func (s *Core) strongRead(p *Pending, k kvs.Key, e cacheEntry) {
	if old, ok := s.cache[k]; ok && old.pending && old.src < p.Seq {
		s.store(k, e, true)
	} else {
		s.setCacheOver(k, old, ok, e)
	}
	s.raiseFrontier(e.version, e.tentative)
}
