package client

import (
	"swiftpaxos/wire"
)

// Ordered operations (Op.Ordered, docs/DECISIONS.md 45): an operation
// that must take effect after every earlier operation of its session that
// conflicts with it, even while those are still in flight, as a pipeline
// of Redis commands must.
//
// A strong operation whose conflicting predecessors in flight are all
// strong and form one chain (each ordered after the one before it) is
// sent at once, naming the latest of them as its barrier dependency (the
// Propose's WeakDep, while it is in flight: barrierDep): the leader
// assigns it a slot only once that
// predecessor has one, the log keeps slot order through every view
// change, recovery replays no record before its dependency, and the
// operation completes only on the slow path, after its slot commits, so
// that no fast path can outlive a predecessor lost with its leader. Any
// other ordered operation is held, unsent, until its conflicting
// predecessors have completed or can be named that way, and every later
// operation of the session is held behind it: the session sends its
// operations in Seq order, which its causal bookkeeping (the weak-write
// chain, the cache's sources) relies on.

// orderable reports whether ordered operation p may be sent now, and the
// earlier operation of the session it must follow (0: none in flight
// conflicts with it).
func (s *Core) orderable(p *Pending) (after wire.Seq, ok bool) {
	var last *Pending
	n := 0
	for _, seq := range s.order {
		if seq >= p.Seq {
			break
		}
		q, live := s.pending[seq]
		if !live || !q.Op.Command.Conflicts(p.Op.Command) {
			continue
		}
		if q.held || q.Op.Level != wire.Strong || p.Op.Level != wire.Strong || q.atLeader {
			return 0, false
		}
		last, n = q, n+1
	}
	if last == nil {
		return 0, true
	}
	// Every conflicting predecessor must be last or precede it through
	// the chain of dependencies of operations still in flight.
	covered := 1
	for x := last; x.after > 0 && covered < n; {
		y, live := s.pending[x.after]
		if !live {
			break
		}
		if y.Op.Command.Conflicts(p.Op.Command) {
			covered++
		}
		x = y
	}
	// The barrier names one dependency: a weak write issued after last
	// (CURP-HO) would need a second one.
	if covered < n || p.WeakDep > last.Seq {
		return 0, false
	}
	return last.Seq, true
}

// hold reports whether p, just invoked, must wait: it is ordered and not
// orderable yet, or an earlier operation waits. If so it is held;
// otherwise an ordered p names what it follows.
func (s *Core) hold(p *Pending) bool {
	if len(s.held) == 0 && s.sendable(p) {
		return false
	}
	p.held, p.deferred = true, true
	s.held = append(s.held, p.Seq)
	return true
}

// sendable reports whether p may be sent now, and if it is ordered
// behind a strong predecessor in flight, records it (p.after).
func (s *Core) sendable(p *Pending) bool {
	if !p.Op.Ordered {
		return true
	}
	after, ok := s.orderable(p)
	if ok && !s.o.Mutation.UnorderedPipeline {
		p.after = after
	}
	return ok
}

// releaseHeld sends the held operations, in session order, up to the
// first one that still may not be sent (Ready calls it, so that the
// completions of a step are all counted and a policy's Complete never
// re-enters it). A send may complete an operation (a weak read parked on
// a write's cache entry), so it goes round until nothing changes.
func (s *Core) releaseHeld() {
	for len(s.held) > 0 && s.expired == nil {
		i := 0
		for ; i < len(s.held); i++ {
			p, live := s.pending[s.held[i]]
			if !live {
				continue
			}
			if !s.sendable(p) {
				break
			}
			p.held, p.deferred = false, false
			if !s.o.Policy.Defer(s, p) {
				s.Dispatch(p)
			}
		}
		if i == 0 {
			return
		}
		n := copy(s.held, s.held[i:])
		clear(s.held[n:])
		s.held = s.held[:n]
	}
}

// barrierDep is the dependency a strong proposal of p names: the
// operation it is ordered after while that one is in flight. Once the
// predecessor has completed it is durable (a write: committed, or kept by
// a super-quorum of witnesses that a new leader replays before it serves)
// or needs no slot (a read, which recovery does not replay and a new
// leader may not know of): then only the policy's own dependency.
func (s *Core) barrierDep(p *Pending) wire.Seq {
	if p.after > 0 {
		if _, live := s.pending[p.after]; live {
			return p.after
		}
	}
	return p.WeakDep
}
