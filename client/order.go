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
// Propose's WeakDep): the leader assigns it a slot only once that
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
		if q.held || q.Op.Level != wire.Strong || p.Op.Level != wire.Strong {
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
	if len(s.held) > 0 {
		p.held, p.deferred = true, true
		s.held = append(s.held, p.Seq)
		return true
	}
	if !p.Op.Ordered {
		return false
	}
	after, ok := s.orderable(p)
	if !ok {
		p.held, p.deferred = true, true
		s.held = append(s.held, p.Seq)
		return true
	}
	if after > 0 && !s.o.Mutation.UnorderedPipeline {
		p.after, p.WeakDep = after, after
	}
	return false
}

// releaseHeld sends the held operations, in session order, up to the
// first ordered one that is still not orderable. Completions call it.
func (s *Core) releaseHeld() {
	if len(s.held) == 0 || s.expired != nil {
		return
	}
	i := 0
	for ; i < len(s.held); i++ {
		p, live := s.pending[s.held[i]]
		if !live {
			continue
		}
		var after wire.Seq
		if p.Op.Ordered {
			var ok bool
			if after, ok = s.orderable(p); !ok {
				break
			}
		}
		p.held, p.deferred = false, false
		if after > 0 && !s.o.Mutation.UnorderedPipeline {
			p.after, p.WeakDep = after, after
		}
		if !s.o.Policy.Defer(s, p) {
			s.Dispatch(p)
		}
	}
	n := copy(s.held, s.held[i:])
	clear(s.held[n:])
	s.held = s.held[:n]
}

// After is the operation of the session p was ordered after (Op.Ordered),
// 0 if none or not sent yet.
func (p *Pending) After() wire.Seq { return p.after }
