package check

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"swiftpaxos/kvs"
)

// checkOrdered checks the ordered operations (history member ordered,
// docs/DECISIONS.md 45): an ordered operation takes effect after every
// earlier operation of its session (lower Seq) that conflicts with it,
// even one still in flight when it was invoked. Its slot in the applied
// logs must be above theirs: a write's above every earlier GET or write
// of its key, a GET's above every earlier write. A completed strong GET
// whose answer did not come from a slot of the logs takes effect just
// after the write it read: one the logs do not hold (a leader read,
// docs/DECISIONS.md 46), and one they hold at a slot whose state is not
// what it returned (a leader read re-sent and logged again after it was
// answered, where nobody reads the result). That write must be at or
// above its session's earlier writes of the key that changed it, and
// below the slot of a later ordered write of the key. A completed strong
// GET that returned absent with no known source (a DELETE of the key may
// have come before it) is placed nowhere: it may have taken effect
// wherever the key was absent, so the key must be absent somewhere before
// its session's later ordered writes, and, if it is ordered, at or after
// its session's earlier writes (absentRead). Other operations the logs do
// not hold are not compared (a weak read is not logged; an operation that
// never executed has no slot). SCANs are left out: the clients order none.
func checkOrdered(x *history, l *logIndex, pos []int64, c *collector) {
	type sk struct {
		s SessionID
		k kvs.Key
	}
	if !slices.ContainsFunc(x.cmds, func(o Op) bool { return o.Ordered }) {
		return
	}
	puts := putPositions(x, pos)
	groups := map[sk][]int32{}
	for i := range x.cmds {
		if o := &x.cmds[i]; o.Kind != Scan {
			groups[sk{o.Session, o.Key}] = append(groups[sk{o.Session, o.Key}], int32(i))
		}
	}
	for _, g := range groups {
		slices.SortFunc(g, func(a, b int32) int { return cmp.Compare(x.cmds[a].Seq, x.cmds[b].Seq) })
		lastW, lastAny, lastRead, lastWrote, lastAbsent := int32(-1), int32(-1), int32(-1), int32(-1), int32(-1)
		var posW, posAny, posRead, posWrote, absentLo int64 = -1, -1, -1, -1, -1
		done := doneWrites{lo: -1}
		for _, i := range g {
			o := &x.cmds[i]
			p, in := l.pos[o.ID()]
			sp, ok := readSource(x, pos, i)
			if !ok && absentRead(x, i) {
				// Wherever it took effect, the key was absent there, and
				// that must be after its session's earlier writes.
				if o.Ordered && lastW >= 0 && !puts.absentBetween(o.Key, posW, math.MaxInt64, o.ReturnNS) {
					c.add(orderedViolation(x, l, i, lastW, fmt.Sprintf(
						"read absent, and the key is absent at no slot of %s from %s at slot %d on", l.ref, x.describeCmd(lastW), posW)))
				}
				lastAbsent, absentLo = i, posW
				if !o.Ordered {
					absentLo = done.before(o.InvokeNS)
				}
				continue
			}
			if ok && (!in || puts.changedBetween(o.Key, sp, p)) {
				if o.Ordered && lastWrote >= 0 && sp < posWrote {
					c.add(orderedViolation(x, l, i, lastWrote, fmt.Sprintf(
						"read the state after slot %d of %s, before %s at slot %d", sp, l.ref, x.describeCmd(lastWrote), posWrote)))
				}
				if sp > posRead {
					lastRead, posRead = i, sp
				}
				continue
			}
			if !in {
				continue
			}
			write := o.Kind != Get
			if o.Ordered {
				before, bp := lastW, posW
				if write {
					before, bp = lastAny, posAny
				}
				if before >= 0 && bp > p {
					c.add(orderedViolation(x, l, i, before, fmt.Sprintf("is at slot %d of %s, before %s at slot %d", p, l.ref, x.describeCmd(before), bp)))
				}
				if write && lastRead >= 0 && posRead >= p {
					c.add(orderedViolation(x, l, i, lastRead, fmt.Sprintf(
						"is at slot %d of %s, while %s read the state after slot %d", p, l.ref, x.describeCmd(lastRead), posRead)))
				}
				// (Below absentLo it is reported above, as below an
				// earlier write.)
				if write && lastAbsent >= 0 && absentLo < p && !puts.absentBetween(o.Key, absentLo, p, x.cmds[lastAbsent].ReturnNS) {
					c.add(orderedViolation(x, l, i, lastAbsent, fmt.Sprintf(
						"is at slot %d of %s, while %s read absent, and the key is absent at no slot from %d to it", p, l.ref, x.describeCmd(lastAbsent), absentLo)))
				}
			}
			if p > posAny {
				lastAny, posAny = i, p
			}
			if write && p > posW {
				lastW, posW = i, p
			}
			if write && o.OK {
				done.add(o.ReturnNS, p)
			}
			if part, ok := x.byID[o.ID()]; ok && x.isPut(part) && p > posWrote {
				lastWrote, posWrote = i, p // it changed the key: a CAS that applied, not one that did not
			}
		}
	}
}

// readSource reports whether cmd i is a completed strong GET whose source
// (the write it read, or none) is in the logs, and that source's
// position. Weak reads are the session rules' to judge.
func readSource(x *history, pos []int64, i int32) (int64, bool) {
	part, ok := x.byID[x.cmds[i].ID()]
	if !ok || x.cmds[i].Kind != Get || x.cmds[i].Level != Strong || !x.completed(part) {
		return 0, false
	}
	sp := x.srcPos(pos, part)
	return sp, sp != notInLog
}

// absentRead reports whether cmd i is a completed strong GET that
// returned absent; called for one with no known source (a DELETE of the
// key may have come before it). Its slot in the logs, if any, need not be
// where it took effect: a strong read re-sent to every replica may be
// logged again after its first answer (a fast-path answer whose
// witnesses' records a later leader logs, or a re-send that reached a new
// leader late), after its session's next write, where nobody reads the
// result. So the rule asks only that the key be absent somewhere between
// its session's earlier writes and its later ordered ones; linearizability
// judges the rest.
func absentRead(x *history, i int32) bool {
	part, ok := x.byID[x.cmds[i].ID()]
	if !ok {
		return false
	}
	o := &x.ops[part]
	return o.Kind == Get && o.Level == Strong && !o.Found && x.completed(part)
}

// putSlots are, by key, the log positions of the writes that changed it,
// in order, and whether each left a value (a DELETE leaves none).
type putSlots map[kvs.Key][]putSlot

type putSlot struct {
	pos    int64
	value  bool
	invoke int64 // the write's InvokeNS
}

func putPositions(x *history, pos []int64) putSlots {
	kp := putSlots{}
	for k, parts := range x.byKey {
		var ps []putSlot
		for _, i := range parts {
			if x.isPut(i) && pos[i] != notInLog {
				ps = append(ps, putSlot{pos: pos[i], value: x.ops[i].Found, invoke: x.ops[i].InvokeNS})
			}
		}
		slices.SortFunc(ps, func(a, b putSlot) int { return cmp.Compare(a.pos, b.pos) })
		kp[k] = ps
	}
	return kp
}

// after is the index of the first write of k at a position at or after p.
func (kp putSlots) after(k kvs.Key, p int64) int {
	i, _ := slices.BinarySearchFunc(kp[k], p, func(s putSlot, p int64) int { return cmp.Compare(s.pos, p) })
	return i
}

// changedBetween reports whether a write changed key k at a position
// after lo and before hi: a read executed at hi would not have read the
// write at lo.
func (kp putSlots) changedBetween(k kvs.Key, lo, hi int64) bool {
	ps := kp[k]
	i := kp.after(k, lo+1)
	return i < len(ps) && ps[i].pos < hi
}

// absentBetween reports whether a read that returned at instant by may
// have found k absent after some position from lo up to, not including,
// hi (above lo): the key's initial state left it absent there, or a DELETE
// invoked by then (a later one cannot be what the read saw; sourceOf
// draws the same line).
func (kp putSlots) absentBetween(k kvs.Key, lo, hi, by int64) bool {
	ps := kp[k]
	j := kp.after(k, lo+1)
	if j == 0 || !ps[j-1].value && ps[j-1].invoke <= by {
		return true
	}
	for ; j < len(ps) && ps[j].pos < hi; j++ {
		if !ps[j].value && ps[j].invoke <= by {
			return true
		}
	}
	return false
}

// orderedViolation reports ordered operation i against the earlier one of
// its session it does not follow; what says where each took effect.
func orderedViolation(x *history, l *logIndex, i, before int32, what string) Violation {
	return Violation{
		Rule: RuleOrdered,
		Ops:  []OpID{x.cmds[i].ID(), x.cmds[before].ID()},
		Message: fmt.Sprintf("%s %s, an earlier operation of its session on the same key; "+
			"an ordered operation must take effect after every earlier conflicting operation of its session (docs/DECISIONS.md 45)",
			x.describeCmd(i), what),
	}
}
