package client

import (
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// Weak reads (PROTOCOL.md 4.5-4.6): one replica answers from its applied
// state, and the session merges the answer with its cache, key by key.

func (s *Core) sendWeakRead(p *Pending) {
	p.evictions = s.evictions
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
	ans := answerOf(p.Op.Command, m)
	var one [1]kvs.Key
	for _, k := range s.readKeys(ans, one[:0]) {
		s.settleIfApplied(k, ans, m.WeakApplied)
	}
	s.finishWeakRead(p, m)
}

// settleIfApplied settles the pending own write of k by the answer of a
// replica that applied it (and own writes up to applied): the replica's
// state is at least as new, and may hold newer writes the session already
// saw through other keys (CC-VIS, docs/DECISIONS.md 10).
func (s *Core) settleIfApplied(k kvs.Key, a answer, applied wire.Seq) {
	if e, ok := s.cache[k]; ok && e.pending && e.src <= applied {
		s.settleFromReplica(k, e, a)
	}
}

// answer is a replica's answer to a weak read, with the part of the key
// space it speaks for. A GET's covers its key. A SCAN's covers its range
// [start, end) when the replica walked it to the end; when the replica
// stopped (More, at the limit or the byte bound), only up to its last
// item, since it says nothing of the keys after. Within the covered part
// a key the answer does not list holds no value at the replica's applied
// index (kvs lists only keys that hold one).
type answer struct {
	cmd     kvs.Command
	res     kvs.Result
	applied kvs.Slot
	// lo, hi: the covered keys are [lo, hi), hi "" meaning no end.
	lo, hi kvs.Key
	empty  bool // covers no key
}

func answerOf(cmd kvs.Command, m *wire.WeakReadReply) answer {
	a := answer{cmd: cmd, res: m.Result, applied: m.AppliedIndex, lo: cmd.Key}
	if cmd.Op != kvs.OpScan {
		return a
	}
	a.hi = cmd.End
	if m.Result.More {
		if len(m.Result.Items) == 0 {
			a.empty = true // a replica that stopped before any item: nothing known
			return a
		}
		// The successor of the last item's key: the covered part ends
		// right after it.
		a.hi = m.Result.Items[len(m.Result.Items)-1].Key + "\x00"
	}
	return a
}

// covers reports whether the answer speaks for key k.
func (a answer) covers(k kvs.Key) bool {
	if a.cmd.Op != kvs.OpScan {
		return k == a.cmd.Key
	}
	return !a.empty && k >= a.lo && (a.hi == "" || k < a.hi)
}

// at is the replica's state of key k, which the answer covers: its value,
// whether it holds one, and the version to compare with the cache's. A
// SCAN does not list keys without a value, nor their versions, so such a
// key is absent as of the replica's applied index: the version it may
// have (a DELETE's slot) is at most that.
func (a answer) at(k kvs.Key) (kvs.Value, bool, kvs.Slot) {
	if a.cmd.Op != kvs.OpScan {
		return a.res.Value, a.res.Found, a.res.Version
	}
	if v, found, ver := kvs.ItemOf(a.res.Items, k); found {
		return v, true, ver
	}
	return nil, false, a.applied
}

// readKeys appends to ks, in key order, the keys of the session's cache
// that the answer covers: those whose cache entry may change the answer
// or be settled by it. A GET's one key is listed whether cached or not:
// every caller looks its entry up anyway, and a look-up of a string key
// is what a weak read spends most on here. A GET's caller passes room for
// its key, so that the most common read allocates nothing here.
func (s *Core) readKeys(a answer, ks []kvs.Key) []kvs.Key {
	if a.cmd.Op != kvs.OpScan {
		return append(ks, a.cmd.Key)
	}
	if a.empty {
		return ks
	}
	return s.cachedIn(a.lo, a.hi, ks)
}

// settleFromReplica replaces a pending own entry by the replica's state,
// which is at least as new as the pending write, or by the entry's
// alternative if that is newer still.
func (s *Core) settleFromReplica(k kvs.Key, e cacheEntry, a answer) {
	v, found, ver := a.at(k)
	if e.altVersion() > ver {
		s.put(k, cacheEntry{value: e.alt.value, found: e.alt.found, version: e.alt.version})
	} else {
		s.put(k, cacheEntry{value: v, found: found, version: ver})
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
	if p.evictions != s.evictions && m.AppliedIndex < s.readFrontier() {
		// The cache was evicted while the read was out: the entries it
		// dropped, the session's own writes among them, now stand in the
		// frontier, which the read did not ask for. An answer from before
		// the frontier may be older than one of them (read your writes):
		// ask the same replica again, for the frontier of now. Evictions
		// are finite, so the read ends.
		p.sent, p.retried = s.o.Now(), 0
		p.attempts++
		s.sendWeakRead(p)
		return
	}
	a := answerOf(p.Op.Command, m)
	if a.cmd.Op != kvs.OpScan {
		s.finishWeakGet(p, m, a)
		return
	}
	cached := s.readKeys(a, nil)
	if !s.o.Mutation.IgnoreCache {
		for _, k := range cached {
			if s.cache[k].ambiguous() {
				s.parked[k] = append(s.parked[k], parkedRead{p, m})
				return
			}
		}
	}
	r := s.mergeScan(a, cached)
	r.Path = PathWeak
	// A parked read completes when another message settles its key: it
	// was still answered by the replica of m.
	s.complete(p, r, m.Replica)
}

// finishWeakGet is finishWeakRead for a GET, whose one key's entry it
// looks up once: the most common read.
func (s *Core) finishWeakGet(p *Pending, m *wire.WeakReadReply, a answer) {
	k := a.cmd.Key
	e, ok := s.cache[k]
	if ok && !s.o.Mutation.IgnoreCache && e.ambiguous() {
		s.parked[k] = append(s.parked[k], parkedRead{p, m})
		return
	}
	r := Result{Known: true, Path: PathWeak}
	var tentative bool
	r.Value, r.Found, r.Version, tentative = s.mergeEntry(k, e, ok, a)
	s.raiseFrontier(r.Version, tentative)
	s.complete(p, r, m.Replica)
}

// mergeEntry is the state a weak read returns for key k, which the answer
// covers, given k's cache entry (e, ok), and whether its version is
// tentative (a cache entry from a fast path). The replica's state, when
// it wins, is cached.
func (s *Core) mergeEntry(k kvs.Key, e cacheEntry, ok bool, a answer) (kvs.Value, bool, kvs.Slot, bool) {
	v, found, ver := a.at(k)
	if ok && !s.o.Mutation.IgnoreCache && (e.pending || e.version > ver) {
		return e.value, e.found, e.version, e.tentative
	}
	if ver > 0 {
		s.setCacheOver(k, e, ok, cacheEntry{value: v, found: found, version: ver})
	}
	return v, found, ver, false
}

// mergeScan is a weak SCAN's result: the replica's items with the
// session's cache entries of the covered part merged in, key by key, as
// mergeEntry merges a GET's (an entry that wins adds, replaces or removes a
// key), then cut to the SCAN's limit. More is the replica's, or set when
// the cut dropped items; keys past the covered part are the replica's
// business, so a More may stand for keys the session has since deleted
// (a SCAN from after the last item says).
//
// Every key the answer covers and does not list was absent at the
// replica's applied index, so the frontier rises to it: a later read of
// such a key, deleted at a slot the answer does not name, must not find
// the value from before the DELETE (monotonic reads).
func (s *Core) mergeScan(a answer, cached []kvs.Key) Result {
	r := Result{Known: true, More: a.res.More}
	items := a.res.Items
	if s.o.Mutation.IgnoreCache {
		cached = nil
	}
	out := make([]kvs.Item, 0, len(items)+len(cached))
	i := 0
	for _, k := range cached {
		for ; i < len(items) && items[i].Key < k; i++ {
			out = append(out, items[i])
		}
		if i < len(items) && items[i].Key == k {
			i++
		}
		e, ok := s.cache[k]
		v, found, ver, tentative := s.mergeEntry(k, e, ok, a)
		s.raiseFrontier(ver, tentative)
		if found {
			out = append(out, kvs.Item{Key: k, Value: v, Found: true, Version: ver})
		}
	}
	out = append(out, items[i:]...)
	if limit := int(a.cmd.Limit); len(out) > limit {
		out, r.More = out[:limit], true
	} else if r.More && len(items) > 0 && (len(out) == 0 || out[len(out)-1].Key < items[len(items)-1].Key) {
		// The session deleted keys up to the answer's last one: the
		// answer still covered them.
		r.Through = items[len(items)-1].Key
	}
	for _, it := range out {
		r.Version = max(r.Version, it.Version)
	}
	r.Items = out
	s.raiseFrontier(r.Version, false)
	if !a.empty {
		s.raiseFrontier(a.applied, false)
	}
	return r
}
