package client

import (
	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
)

// Weak reads (PROTOCOL.md 4.5-4.6): one replica answers from its applied
// state, and the session merges the answer with its cache, key by key.

func (s *Core) sendWeakRead(p *Pending) {
	s.Send(p.target, &wire.WeakRead{
		Cmd: s.CmdID(p.Seq), Command: p.Op.Command, MinSlot: s.readFrontier(), Ballot: s.readBallot,
		Attempt: uint32(p.attempts),
	})
}

func (s *Core) onWeakReadReply(m *wire.WeakReadReply) {
	p := s.Lookup(m.Cmd)
	// Only the answer to the latest attempt counts: an earlier attempt's
	// answer was computed for an older ballot or frontier (PROTOCOL.md 6.5).
	if p == nil || p.Op.Level != wire.Weak || m.Replica != p.target || m.Attempt != uint32(p.attempts) {
		return
	}
	if m.Retry || m.Ballot < s.ballot {
		// A replica of an older ballot answers from state that may lack
		// what the new view replayed, and the session may have dropped
		// the tentative entries that covered it: ask the next one. Once
		// every replica in turn has said so (none has joined the view: an
		// election, or a cluster of learners), the read waits for the
		// view's NewView or RetryAfter, which send it again, rather than
		// going round the replicas as fast as they answer: thousands of
		// reads a second.
		retried := p.retried + 1
		if retried >= s.o.N {
			p.retried = retried // until the next send: a repeated answer asks nothing
			return
		}
		s.resend(p)
		p.retried = retried
		return
	}
	cmd := p.Op.Command
	for k := range cmd.Keys() {
		if e, ok := s.cache[k]; ok && e.pending && e.src <= m.WeakApplied {
			// The replica applied the pending own write: its state is at
			// least as new, and may hold newer writes the session already
			// saw through other keys (CC-VIS, docs/DECISIONS.md 10).
			s.settleFromReplica(k, e, cmd, m)
		}
	}
	s.finishWeakRead(p, m)
}

// replicaValue is the replica's answer for key k of a read.
func replicaValue(cmd kvs.Command, m *wire.WeakReadReply, k kvs.Key) (kvs.Value, kvs.Slot) {
	if cmd.Op == kvs.OpScan {
		return kvs.ItemOf(m.Items, k)
	}
	return m.Result, m.Version
}

// settleFromReplica replaces a pending own entry by the replica's value,
// which is at least as new as the pending write, or by the entry's
// alternative if that is newer still.
func (s *Core) settleFromReplica(k kvs.Key, e cacheEntry, cmd kvs.Command, m *wire.WeakReadReply) {
	v, ver := replicaValue(cmd, m, k)
	if e.altVersion > ver {
		s.put(k, cacheEntry{value: e.alt, version: e.altVersion})
	} else {
		s.put(k, cacheEntry{value: v, version: ver})
	}
}

// finishWeakRead merges a weak read's reply with the cache, key by key, and
// completes it (PROTOCOL.md 4.6): a cache entry wins over the replica's
// answer when it is the session's pending own write or newer. A read of a
// key whose newest value is ambiguous waits until it settles.
func (s *Core) finishWeakRead(p *Pending, m *wire.WeakReadReply) {
	if s.Lookup(m.Cmd) != p {
		return // completed meanwhile, through an answer parked earlier
	}
	cmd := p.Op.Command
	if !s.o.Mutation.IgnoreCache {
		for k := range cmd.Keys() {
			if e, ok := s.cache[k]; ok && e.ambiguous() {
				s.parked[k] = append(s.parked[k], parkedRead{p, m})
				return
			}
		}
	}
	r := Result{Path: PathWeak}
	for k := range cmd.Keys() {
		v, ver, tentative := s.mergeRead(k, cmd, m)
		if cmd.Op == kvs.OpScan {
			if ver > 0 || len(v) > 0 {
				r.Items = append(r.Items, kvs.Item{Key: k, Value: v, Version: ver})
			}
		} else {
			r.Value = v
		}
		r.Version = max(r.Version, ver)
		s.raiseFrontier(ver, tentative)
	}
	// A parked read completes when another message settles its key: it
	// was still answered by the replica of m.
	s.complete(p, r, m.Replica)
}

// mergeRead is the value a weak read returns for key k, and whether its
// version is tentative (a cache entry from a fast path).
func (s *Core) mergeRead(k kvs.Key, cmd kvs.Command, m *wire.WeakReadReply) (kvs.Value, kvs.Slot, bool) {
	v, ver := replicaValue(cmd, m, k)
	if e, ok := s.cache[k]; ok && !s.o.Mutation.IgnoreCache && (e.pending || e.version > ver) {
		return e.value, e.version, e.tentative
	}
	if ver > 0 {
		s.setCache(k, cacheEntry{value: v, version: ver})
	}
	return v, ver, false
}
