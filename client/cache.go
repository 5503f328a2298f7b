package client

import (
	"slices"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// The session's cache and read frontier (PROTOCOL.md 4.4-4.6): values the
// session wrote or read with the slots of their sources, the frontier that
// stands for evicted and superseded entries, and the weak reads parked while
// an entry is ambiguous.
//
// Pending entries, their alternatives and the parked reads belong to the
// cache, not to a protocol: the merge rule of 4.6, which every weak read
// follows, lets a pending own write win, so every path that stores,
// merges, evicts or drops an entry has to know about them. A protocol only
// creates and settles them (SetPendingCache, SettleCache): CURP-HO for its
// weak writes, as CURP-HT's early acknowledgement (4.8) would.

// cacheEntry is a key's state the session wrote or read, with the slot of
// its source write (PROTOCOL.md 4.4): a value, or absent (found false: a
// DELETE's, or a read that found nothing, which is as much a state to
// keep as a value, docs/DECISIONS.md 38). Pending entries are the
// session's own writes whose slot is not known yet.
//
// The map holds its entries in place, and nearly every operation looks
// one up: a smaller entry keeps more of the map in the processor's cache,
// so the rare alternative is a pointer and the flags share a word.
type cacheEntry struct {
	value   kvs.Value
	version kvs.Slot
	src     wire.Seq // own write that created a pending entry
	// A pending entry may also know a settled value that completed while
	// it was pending (an own strong write or a strong read that was
	// concurrent with the pending write). Which of the two is newer is
	// known only when the pending write settles; until then weak reads of
	// the key wait (PROTOCOL.md 2.2: concurrent operations of a session
	// may be ordered either way across a failover).
	alt     *altEntry
	found   bool
	pending bool
	// tentative: the version is a slot a leader assigned but had not
	// committed when its fast-path reply came; recovery may move it.
	tentative bool
}

// altEntry is the settled state a pending entry knows besides its own
// write; its version is above 0.
type altEntry struct {
	value   kvs.Value
	found   bool
	version kvs.Slot
}

// altVersion is the version of the entry's alternative, 0 if none.
func (e cacheEntry) altVersion() kvs.Slot {
	if e.alt == nil {
		return 0
	}
	return e.alt.version
}

// ambiguous reports whether the entry's newest value is not known yet.
func (e cacheEntry) ambiguous() bool { return e.pending && e.alt != nil }

// parkedRead is a weak read reply waiting for an ambiguous entry to settle.
type parkedRead struct {
	p     *Pending
	reply *wire.WeakReadReply
}

// maxCache bounds the cache; past it the frontier is raised so that every
// settled entry becomes redundant (PROTOCOL.md 4.6, eviction).
const maxCache = 1 << 14

// setCacheOver stores a value the session read, given k's entry (old,
// ok), which the caller has looked up: it replaces only an older settled
// entry, never a pending own write.
func (s *Core) setCacheOver(k kvs.Key, old cacheEntry, ok bool, e cacheEntry) {
	switch {
	case ok && old.pending:
		s.keepAlt(k, old, e.value, e.found, e.version)
	case ok && old.version >= e.version:
	default:
		s.store(k, e, ok)
	}
}

// keepAlt remembers a settled value under a pending entry.
func (s *Core) keepAlt(k kvs.Key, e cacheEntry, v kvs.Value, found bool, version kvs.Slot) {
	if version > e.altVersion() {
		e.alt = &altEntry{value: v, found: found, version: version}
		s.cache[k] = e
	}
}

// setOwn stores the settled value of the session's own write seq: it
// replaces an older settled entry or a pending own write issued before
// seq. Pipelined writes complete out of order, so an earlier write's
// acknowledgement must not hide a later one (PROTOCOL.md 10.5).
func (s *Core) setOwn(k kvs.Key, v kvs.Value, found bool, slot kvs.Slot, seq wire.Seq) {
	old, ok := s.cache[k]
	switch {
	case ok && old.pending && old.src > seq:
		s.keepAlt(k, old, v, found, slot)
	case ok && !old.pending && old.version >= slot:
	default:
		s.store(k, cacheEntry{value: v, found: found, version: slot}, ok)
	}
}

func (s *Core) put(k kvs.Key, e cacheEntry) {
	_, ok := s.cache[k]
	s.store(k, e, ok)
}

// store is put for a caller that knows whether k has an entry.
func (s *Core) store(k kvs.Key, e cacheEntry, existed bool) {
	if !existed && len(s.cache) >= maxCache {
		s.evict()
	}
	s.cache[k] = e
	s.releaseParked(k)
}

// releaseParked completes the weak reads of k that waited for its entry to
// stop being ambiguous.
func (s *Core) releaseParked(k kvs.Key) {
	parked := s.parked[k]
	if len(parked) == 0 || s.cache[k].ambiguous() {
		return
	}
	delete(s.parked, k)
	for _, pr := range parked {
		// Only the answer to the read's latest attempt counts, and only
		// while the read is pending.
		if s.Lookup(pr.reply.Cmd) != pr.p || pr.reply.Attempt != uint32(pr.p.attempts) {
			continue
		}
		if pr.reply.Ballot < s.ballot {
			// The session learnt a new ballot while the answer waited, and
			// dropped the tentative entries that covered what the old
			// view's state may lack: ask again (as onWeakReadReply does).
			s.resend(pr.p)
			continue
		}
		s.finishWeakRead(pr.p, pr.reply)
	}
}

// SetPendingCache records the session's own weak write cmd (a PUT or a
// DELETE) whose slot is not known yet; it is the session's newest write
// to its key.
func (s *Core) SetPendingCache(cmd kvs.Command, src wire.Seq) {
	v, found := written(cmd)
	s.put(cmd.Key, cacheEntry{value: v, found: found, pending: true, src: src})
}

// written is the state a PUT or a DELETE leaves its key in. A weak write
// is one of the two (CAS and INCR are strong only).
func written(cmd kvs.Command) (kvs.Value, bool) {
	if cmd.Op == kvs.OpPut {
		return cmd.Value, true
	}
	return nil, false
}

// AwaitsSlot reports whether the cache still holds the own write src of k
// as pending: only its slot can settle it.
func (s *Core) AwaitsSlot(k kvs.Key, src wire.Seq) bool {
	e, ok := s.cache[k]
	return ok && e.pending && e.src == src
}

// SettleCache gives an own write its slot, if the cache still holds it.
// The newer of the write and the entry's alternative stays; slot 0 (the
// leader no longer knows it) keeps the alternative only if there is one.
func (s *Core) SettleCache(k kvs.Key, src wire.Seq, slot kvs.Slot) {
	e, ok := s.cache[k]
	if !ok || !e.pending || e.src != src {
		return
	}
	switch {
	case e.altVersion() > slot:
		// An alternative may come from a fast path: keep it tentative.
		s.cache[k] = cacheEntry{value: e.alt.value, found: e.alt.found, version: e.alt.version, tentative: true}
	case slot > 0:
		s.cache[k] = cacheEntry{value: e.value, found: e.found, version: slot}
	default:
		delete(s.cache, k)
		s.raiseFrontier(e.altVersion(), true)
	}
	s.releaseParked(k)
}

// SetCache records the settled own weak write cmd (a PUT or a DELETE)
// of seq, acknowledged with its slot, as CURP-HT's are.
func (s *Core) SetCache(cmd kvs.Command, slot kvs.Slot, seq wire.Seq) {
	v, found := written(cmd)
	s.setOwn(cmd.Key, v, found, slot, seq)
}

// markTentative flags the entry of k if it still holds version slot.
func (s *Core) markTentative(k kvs.Key, slot kvs.Slot) {
	if e, ok := s.cache[k]; ok && !e.pending && e.version == slot {
		e.tentative = true
		s.cache[k] = e
	}
}

// dropSettled forgets the tentative cache entries (and the alternatives of
// pending ones) when the session learns a new ballot: their versions are
// slots of the old leader's log that recovery may have moved. Committed
// versions stay, and so do own pending writes; reads carry readBallot
// until the new view's start is known, so replicas answer from state that
// includes every replayed write.
func (s *Core) dropSettled() {
	s.tentFrontier = 0
	var released []kvs.Key
	for k, e := range s.cache {
		switch {
		case !e.pending && e.tentative:
			delete(s.cache, k)
		case e.alt != nil:
			e.alt = nil
			s.cache[k] = e
			released = append(released, k)
		}
	}
	// Parked reads complete in key order: the session's outputs must not
	// depend on map order.
	slices.Sort(released)
	for _, k := range released {
		s.releaseParked(k)
	}
}

// raiseFrontier notes that the session read (or cached) version v.
func (s *Core) raiseFrontier(v kvs.Slot, tentative bool) {
	if tentative {
		s.tentFrontier = max(s.tentFrontier, v)
	} else {
		s.frontier = max(s.frontier, v)
	}
}

// readFrontier is the minimum slot a weak read asks for.
func (s *Core) readFrontier() kvs.Slot { return max(s.frontier, s.tentFrontier) }

// evict raises the frontier to the newest settled version in the cache and
// drops every settled entry: a replica that has applied the frontier holds
// each of them or something newer (PROTOCOL.md 4.6). A weak read sent
// before asked for less: finishWeakRead asks again an answer below the
// frontier that an eviction came after (evictions counts them).
func (s *Core) evict() {
	s.evictions++
	for _, e := range s.cache {
		if !e.pending {
			s.raiseFrontier(e.version, e.tentative)
		}
	}
	for k, e := range s.cache {
		if !e.pending {
			delete(s.cache, k)
		}
	}
}

// cachedIn appends to ks the keys of the cache in [lo, hi), where hi ""
// means no upper bound, in key order: a weak SCAN merges them with the
// replica's answer. It walks the whole cache (at most maxCache entries); SCANs are
// rarer than point reads, which look up one key.
func (s *Core) cachedIn(lo, hi kvs.Key, ks []kvs.Key) []kvs.Key {
	n := len(ks)
	for k := range s.cache {
		if k >= lo && (hi == "" || k < hi) {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks[n:])
	return ks
}
