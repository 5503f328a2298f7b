package check

import (
	"cmp"
	"fmt"
	"slices"

	"swiftpaxos/kvs"
)

// logIndex is the arbitration order <A of PROTOCOL.md section 2.1: the
// union of the replicas' applied logs by slot (union.go); an operation's
// position is the slot of its first occurrence there.
type logIndex struct {
	ref     string // what the reference is, for messages: "the applied log of replica r0", ...
	union   *merged
	entries []LogEntry
	pos     map[OpID]int64
}

// posOf returns the arbitration position of write w (srcNil for w0, which
// precedes every slot) and whether w is in the reference log at all.
func (l *logIndex) posOf(x *history, w int32) (int64, bool) {
	if w == srcNil {
		return -1, true
	}
	p, ok := l.pos[x.ops[w].ID()]
	return p, ok
}

// positions returns the reference log position of every operation,
// notInLog for those missing.
func (l *logIndex) positions(x *history) []int64 {
	pos := make([]int64, len(x.ops))
	for i := range x.ops {
		pos[i] = notInLog
		if p, ok := l.pos[x.ops[i].ID()]; ok {
			pos[i] = p
		}
	}
	return pos
}

// checkLogs runs the rules on the logs alone (slot order, at-most-once,
// agreement) and against the history (log-mismatch), and returns the
// arbitration order taken from the union of the logs.
func checkLogs(x *history, logs map[string][]LogEntry, c *collector) *logIndex {
	names := make([]string, 0, len(logs))
	for name := range logs {
		names = append(names, name)
	}
	slices.Sort(names)
	split := make([]appliedLog, 0, len(names))
	for _, name := range names {
		checkOneLog(name, logs[name], c)
		split = append(split, splitLog(name, logs[name]))
	}
	u := unionLogs(split)
	for _, l := range split {
		u.checkAgreement(l, c)
	}
	l := &logIndex{ref: u.describe(), union: u, entries: u.lines, pos: map[OpID]int64{}}
	twice := map[OpID]bool{} // reported by checkUnionOnce
	for i, e := range l.entries {
		if first, dup := l.pos[e.ID()]; dup {
			checkUnionOnce(l, first, i, twice, c)
			continue
		}
		l.pos[e.ID()] = int64(e.Slot)
		checkEntryMatchesHistory(x, u.src[i], e, c)
	}
	return l
}

// checkUnionOnce reports a command that the union holds at two slots taken
// from different logs (line i, and an earlier line at slot first): each
// log applied it once, but the replicated state machine applied it twice,
// say once before the snapshot a restarted replica installed and once
// after it. Two occurrences from one log are that log's at-most-once
// violation (checkOneLog).
func checkUnionOnce(l *logIndex, first int64, i int, reported map[OpID]bool, c *collector) {
	e := l.entries[i]
	j := l.union.search(kvs.Slot(first))
	if l.union.src[j] == l.union.src[i] || reported[e.ID()] {
		return
	}
	reported[e.ID()] = true
	c.add(Violation{
		Rule:    RuleAtMostOnce,
		Ops:     []OpID{e.ID()},
		Replica: l.union.src[i],
		Message: fmt.Sprintf("%v was applied twice: at slot %d by replica %s and at slot %d by replica %s; a command must execute at most once (PROTOCOL.md 6.7)",
			e.ID(), first, l.union.src[j], e.Slot, l.union.src[i]),
	})
}

// checkOneLog checks that slots increase and that no command is applied
// twice (PROTOCOL.md sections 2.6 item 7 and 6.7).
func checkOneLog(name string, entries []LogEntry, c *collector) {
	first := make(map[OpID]LogEntry, len(entries))
	badOrder := false
	invalid := func(i int, why string) {
		badOrder = true
		c.add(Violation{
			Rule:    RuleLogInvalid,
			Replica: name,
			Message: fmt.Sprintf("replica %s: applied log entry %d (%s) does not follow entry %d (%s); %s",
				name, i+1, describeEntry(entries[i]), i, describeEntry(entries[i-1]), why),
		})
	}
	for i, e := range entries {
		switch {
		case badOrder || i == 0:
		case e.Kind == Snapshot && e.Slot < entries[i-1].Slot:
			invalid(i, "a snapshot marker cannot go back to an earlier slot")
		case e.Kind != Snapshot && e.Slot <= entries[i-1].Slot:
			invalid(i, "slots must strictly increase")
		}
		if e.Kind == Noop || e.Kind == Snapshot {
			continue
		}
		if prev, dup := first[e.ID()]; dup {
			c.add(Violation{
				Rule:    RuleAtMostOnce,
				Ops:     []OpID{e.ID()},
				Replica: name,
				Message: fmt.Sprintf("replica %s applied %v twice: %s and %s; a command must execute at most once (PROTOCOL.md 6.7)",
					name, e.ID(), describeEntry(prev), describeEntry(e)),
			})
			continue
		}
		first[e.ID()] = e
	}
}

// checkEntryMatchesHistory reports an applied command that differs from
// the recorded operation with the same CmdId, or that nobody invoked: in
// its command, or, for a completed CAS or INCR, in whether it wrote.
func checkEntryMatchesHistory(x *history, replica string, e LogEntry, c *collector) {
	i, ok := x.cmdByID[e.ID()]
	if !ok {
		c.add(Violation{
			Rule:    RuleLogMismatch,
			Ops:     []OpID{e.ID()},
			Replica: replica,
			Message: fmt.Sprintf("replica %s applied %s, but the history has no operation %v; every applied command must have been invoked by a client",
				replica, describeEntry(e), e.ID()),
		})
		return
	}
	o := &x.cmds[i]
	same := o.Kind == e.Kind && o.Key == e.Key
	switch {
	case !same:
	case o.Kind == Put:
		same = o.Value == e.Value
	case o.Kind == CAS:
		same = o.Delete == e.Delete && (o.Delete || o.Value == e.Value) && (!o.OK || o.Applied == e.Applied)
	case o.Kind == Incr:
		same = o.Delta == e.Delta && (!o.OK || (o.Err == "") == e.Applied)
	case o.Kind == Scan:
		same = o.End == e.End && o.Limit == e.Limit
	}
	if same {
		return
	}
	c.add(Violation{
		Rule:    RuleLogMismatch,
		Ops:     []OpID{e.ID()},
		Replica: replica,
		Message: fmt.Sprintf("replica %s applied %s, but the client issued %s under that CmdId; the log must apply the command the client sent, with the outcome the client received",
			replica, describeEntry(e), x.describeCmd(i)),
	})
}

// checkDurability reports acknowledged puts missing from the union of the
// logs (PROTOCOL.md sections 2.6 item 2 and 6.8): a put that only a
// replica's earlier lifetime applied is durable, the others' logs may
// simply not reach it.
func checkDurability(x *history, l *logIndex, crashed map[SessionID]bool, c *collector) {
	last := "no entries"
	if n := len(l.entries); n > 0 {
		last = fmt.Sprintf("%d entries up to slot %d", n, l.entries[n-1].Slot)
	}
	for i := int32(0); int(i) < len(x.ops); i++ {
		if !x.isPut(i) || !x.completed(i) || !x.strong(i) && crashed[x.ops[i].Session] {
			continue
		}
		if _, ok := l.pos[x.ops[i].ID()]; ok {
			continue
		}
		c.add(Violation{
			Rule: RuleDurability,
			Ops:  x.ids(i),
			Message: fmt.Sprintf("%s was acknowledged but is missing from %s (%s); "+
				"an acknowledged write must never be lost (PROTOCOL.md 6.8)", x.describe(i), l.ref, last),
		})
	}
}

// checkStrongWriteOrder checks PROTOCOL.md section 2.6 item 3, key by
// key: for completed strong puts of one key, s1 rt s2 implies pos(s1) <
// pos(s2). It is per key because linearizability is local: recovery may
// replay commuting strong writes of different keys in either order
// (sections 1.7, 6.4), and no client can tell. Per key, puts sorted by
// response are swept against puts sorted by invocation, keeping the
// latest-positioned put that completed before the current one was
// invoked: O(n log n).
func checkStrongWriteOrder(x *history, l *logIndex, c *collector) {
	for _, k := range x.keys {
		var byEnd []int32
		for _, i := range x.byKey[k] {
			if x.isPut(i) && x.strong(i) && x.completed(i) {
				if _, ok := l.posOf(x, i); ok {
					byEnd = append(byEnd, i)
				}
			}
		}
		checkKeyWriteOrder(x, l, byEnd, c)
	}
}

func checkKeyWriteOrder(x *history, l *logIndex, byEnd []int32, c *collector) {
	byInv := slices.Clone(byEnd)
	slices.SortFunc(byEnd, func(a, b int32) int { return cmp.Compare(x.end[a], x.end[b]) })
	slices.SortFunc(byInv, func(a, b int32) int { return cmp.Compare(x.ops[a].InvokeNS, x.ops[b].InvokeNS) })
	best, bestPos := int32(-1), int64(-1)
	next := 0
	for _, s2 := range byInv {
		for next < len(byEnd) && x.end[byEnd[next]] < x.ops[s2].InvokeNS {
			if p, _ := l.posOf(x, byEnd[next]); p > bestPos {
				best, bestPos = byEnd[next], p
			}
			next++
		}
		p2, _ := l.posOf(x, s2)
		if best < 0 || bestPos < p2 {
			continue
		}
		c.add(Violation{
			Rule: RuleStrongWriteOrder,
			Ops:  x.ids(s2, best),
			Message: fmt.Sprintf("%s is at slot %d of %s, before %s at slot %d, although the latter completed before the former was invoked; "+
				"strong writes of a key must be applied in real-time order (PROTOCOL.md 2.6 item 3)",
				x.describe(s2), p2, l.ref, x.describe(best), bestPos),
		})
	}
}
