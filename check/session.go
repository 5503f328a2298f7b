package check

import (
	"cmp"
	"fmt"
	"slices"
)

// Session guarantees (read-your-writes, monotonic reads) are instances of
// CC-VIS (PROTOCOL.md section 2.3): a read never returns a value older, in
// the arbitration order <A, than a write in its causal past. Here the causal
// past is limited to the read's own session: the session's completed puts
// (so) and the sources of its completed reads (rf;so).
//
// With logs, <A is the reference log order. Without logs, the only order
// inferred is the one every correct run must have: NIL (w0) precedes every
// write, and a put precedes a later put of the same session (w1 so w2 and
// CC-ARB, assuming both are durable). Reads whose source has no known
// position are skipped.
//
// Each (session, key) group is swept once: reads in invocation order, with
// puts and earlier reads added when they complete before the read is
// invoked, so the whole rule is O(n log n).

// latest tracks the maximum of some rank over a growing set, with the
// operation achieving it.
type latest struct {
	rank int64
	op   int32
}

var noLatest = latest{rank: negInf, op: -1}

func (m *latest) offer(rank int64, op int32) {
	if rank > m.rank {
		m.rank, m.op = rank, op
	}
}

// mrState is the monotonic-reads summary of a session's earlier reads of
// one key, for runs without logs.
type mrState struct {
	nonNil latest // any earlier read of a non-NIL value
	// byWriter: per writing session, the latest-invoked source of an
	// earlier read (rank = invocation of the source).
	byWriter map[SessionID]latest
}

func (s *mrState) add(x *history, r1 int32) {
	w1 := x.src[r1]
	if w1 == srcNil {
		return
	}
	s.nonNil.offer(0, r1)
	if s.byWriter == nil {
		s.byWriter = map[SessionID]latest{}
	}
	cur, ok := s.byWriter[x.ops[w1].Session]
	if !ok {
		cur = noLatest
	}
	cur.offer(x.ops[w1].InvokeNS, r1)
	s.byWriter[x.ops[w1].Session] = cur
}

func checkSessions(x *history, l *logIndex, c *collector) {
	groups := make([]sessKey, 0, len(x.bySessKey))
	for g := range x.bySessKey {
		groups = append(groups, g)
	}
	slices.SortFunc(groups, func(a, b sessKey) int {
		return cmp.Or(cmp.Compare(a.session, b.session), cmp.Compare(a.key, b.key))
	})
	for _, g := range groups {
		checkSessionKey(x, l, x.bySessKey[g], c)
	}
}

// allStrong reports whether every listed operation (srcNil counts as the
// strong initial state) is strong. Without logs such cases are exactly the
// linearizability rule's, and are left to it.
func (x *history) allStrong(is ...int32) bool {
	for _, i := range is {
		if i >= 0 && !x.strong(i) {
			return false
		}
	}
	return true
}

func checkSessionKey(x *history, l *logIndex, group []int32, c *collector) {
	var puts, reads []int32
	for _, i := range group {
		switch {
		case !x.completed(i):
		case x.isPut(i):
			puts = append(puts, i)
		case x.knownSource(i):
			reads = append(reads, i)
		}
	}
	if len(reads) == 0 {
		return
	}
	byEnd := func(a, b int32) int { return cmp.Compare(x.end[a], x.end[b]) }
	slices.SortFunc(puts, byEnd)
	readsByEnd := slices.Clone(reads)
	slices.SortFunc(readsByEnd, byEnd)
	slices.SortFunc(reads, func(a, b int32) int { return cmp.Compare(x.ops[a].InvokeNS, x.ops[b].InvokeNS) })

	// Summaries of what completed before the current read was invoked.
	// "weak" variants only count facts involving a weak operation.
	ownPos, ownInv, ownInvWeak := noLatest, noLatest, noLatest
	seenPos := noLatest
	seenAll, seenWeak := mrState{nonNil: noLatest}, mrState{nonNil: noLatest}
	nextPut, nextRead := 0, 0

	for _, r := range reads {
		inv := x.ops[r].InvokeNS
		for ; nextPut < len(puts) && x.end[puts[nextPut]] < inv; nextPut++ {
			p := puts[nextPut]
			if l != nil {
				if pos, ok := l.posOf(x, p); ok {
					ownPos.offer(pos, p)
				}
				continue
			}
			ownInv.offer(x.ops[p].InvokeNS, p)
			if !x.strong(p) {
				ownInvWeak.offer(x.ops[p].InvokeNS, p)
			}
		}
		for ; nextRead < len(readsByEnd) && x.end[readsByEnd[nextRead]] < inv; nextRead++ {
			r1 := readsByEnd[nextRead]
			if l != nil {
				if pos, ok := l.posOf(x, x.src[r1]); ok {
					seenPos.offer(pos, r1)
				}
				continue
			}
			seenAll.add(x, r1)
			if !x.allStrong(r1, x.src[r1]) {
				seenWeak.add(x, r1)
			}
		}
		if l != nil {
			checkWithLog(x, l, r, ownPos, seenPos, c)
		} else {
			checkWithoutLog(x, r, ownInv, ownInvWeak, &seenAll, &seenWeak, c)
		}
	}
}

func checkWithLog(x *history, l *logIndex, r int32, own, seen latest, c *collector) {
	w := x.src[r]
	pw, ok := l.posOf(x, w)
	if !ok {
		return
	}
	slots := func(newer int32, pNewer int64) string {
		return fmt.Sprintf("in %s, %s precedes %v at slot %d",
			l.ref, slotOf(x, w, pw), x.ops[newer].ID(), pNewer)
	}
	if own.op >= 0 && own.rank > pw {
		reportRYW(x, r, own.op, slots(own.op, own.rank), c)
	}
	if seen.op >= 0 && seen.rank > pw {
		w1 := x.src[seen.op]
		reportMR(x, r, seen.op, slots(w1, seen.rank), c)
	}
}

func slotOf(x *history, w int32, pos int64) string {
	if w == srcNil {
		return "the initial NIL"
	}
	return fmt.Sprintf("%v at slot %d", x.ops[w].ID(), pos)
}

func checkWithoutLog(x *history, r int32, ownInv, ownInvWeak latest, seenAll, seenWeak *mrState, c *collector) {
	w := x.src[r]
	strongOnly := x.allStrong(r, w)
	own, seen := ownInv, seenAll
	if strongOnly {
		own, seen = ownInvWeak, seenWeak
	}
	session := x.ops[r].Session
	switch {
	case own.op < 0:
	case w == srcNil:
		reportRYW(x, r, own.op, "NIL precedes every write", c)
	case x.ops[w].Session == session && x.completed(w) && own.rank > x.end[w]:
		reportRYW(x, r, own.op, fmt.Sprintf("session %s completed %v before invoking %v, so the latter is newer",
			session, x.ops[w].ID(), x.ops[own.op].ID()), c)
	}
	switch {
	case w == srcNil && seen.nonNil.op >= 0:
		reportMR(x, r, seen.nonNil.op, "NIL precedes every write", c)
	case w >= 0 && x.completed(w):
		if m, ok := seen.byWriter[x.ops[w].Session]; ok && m.rank > x.end[w] {
			w1 := x.src[m.op]
			reportMR(x, r, m.op, fmt.Sprintf("session %s completed %v before invoking %v, so the latter is newer",
				x.ops[w].Session, x.ops[w].ID(), x.ops[w1].ID()), c)
		}
	}
}

func reportRYW(x *history, r, own int32, why string, c *collector) {
	c.flagged[r] = true
	c.add(Violation{
		Rule: RuleReadYourWrites,
		Ops:  x.ids(r, own, x.src[r]),
		Message: fmt.Sprintf("%s read from %s, but the session's own %s completed before the get was invoked and is newer (%s); "+
			"a read must not return a value older than its session's completed writes (read-your-writes, PROTOCOL.md 2.3 CC-VIS)",
			x.describe(r), x.describeSrc(x.src[r]), x.describe(own), why),
	})
}

func reportMR(x *history, r2, r1 int32, why string, c *collector) {
	c.flagged[r2] = true
	c.add(Violation{
		Rule: RuleMonotonicReads,
		Ops:  x.ids(r2, r1, x.src[r2], x.src[r1]),
		Message: fmt.Sprintf("%s read from %s, but the same session's earlier %s, which completed before it was invoked, had already read the newer %s (%s); "+
			"reads of a session must not go back in time (monotonic reads, PROTOCOL.md 2.3 CC-VIS)",
			x.describe(r2), x.describeSrc(x.src[r2]), x.describe(r1), x.describeSrc(x.src[r1]), why),
	})
}
