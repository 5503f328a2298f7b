package check

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"swiftpaxos/kvs"
)

// A replica's applied log may be cut short (a replica killed with kill -9
// loses the tail it had not written yet), may start after slot 1 (a
// replica that came back empty and installed a snapshot), and may jump
// over a range of slots (a lagging replica that installed a snapshot in
// the middle of its life). Each log file is therefore a list of segments,
// each the lines of the slots in (from, to]: from is 0 or the slot of the
// snapshot marker that opens the segment, to the last slot the segment
// lists (noops included). A log vouches only for the slots its segments
// cover: there it lists every command executed, at its slot.

type segment struct {
	from, to kvs.Slot
	lines    []LogEntry // without noops and markers: what executed
}

// appliedLog is one log file split into segments.
type appliedLog struct {
	name  string
	segs  []segment
	lines int // executed lines, for the order of preference
}

func splitLog(name string, entries []LogEntry) appliedLog {
	l := appliedLog{name: name}
	seg := segment{}
	for _, e := range entries {
		switch {
		case e.Kind == Snapshot:
			if seg.to > seg.from || len(seg.lines) > 0 {
				l.segs = append(l.segs, seg)
			}
			seg = segment{from: e.Slot, to: e.Slot}
			continue
		case e.Kind != Noop:
			seg.lines = append(seg.lines, e)
			l.lines++
		}
		seg.to = max(seg.to, e.Slot)
	}
	if seg.to > seg.from || len(seg.lines) > 0 {
		l.segs = append(l.segs, seg)
	}
	return l
}

// covers reports whether slot s lies in a segment of l.
func (l *appliedLog) covers(s kvs.Slot) bool {
	for _, g := range l.segs {
		if g.from < s && s <= g.to {
			return true
		}
	}
	return false
}

// merged is the union of the logs by slot: the reference for the
// arbitration order <A and for durability. Each slot's lines come from the
// first log of pref that covers the slot; pref holds the logs with the
// most executed lines first (then by name), so that with logs that are
// prefixes of one another the longest is the reference, as a single log
// would be. Every log is compared with the union wherever it covers a
// slot (checkAgreement), so two logs that cover a slot differently are
// always reported, whichever provided it.
type merged struct {
	lines []LogEntry
	src   []string // the log each line came from
	pref  []appliedLog
	used  []string // the logs that provided lines, in order of preference
}

func unionLogs(logs []appliedLog) *merged {
	m := &merged{pref: slices.Clone(logs)}
	slices.SortStableFunc(m.pref, func(a, b appliedLog) int {
		if c := cmp.Compare(b.lines, a.lines); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	var lines []LogEntry
	var src []string
	for i, l := range m.pref {
		n := len(lines)
		for _, g := range l.segs {
			for _, e := range g.lines {
				if m.sourceAmong(i, e.Slot) < 0 {
					lines = append(lines, e)
					src = append(src, l.name)
				}
			}
		}
		if len(lines) > n {
			m.used = append(m.used, l.name)
		}
	}
	idx := make([]int, len(lines))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(lines[a].Slot, lines[b].Slot) })
	m.lines, m.src = make([]LogEntry, len(idx)), make([]string, len(idx))
	for i, j := range idx {
		m.lines[i], m.src[i] = lines[j], src[j]
	}
	return m
}

// sourceAmong returns the index of the first of the first n logs of pref
// that covers slot s, or -1.
func (m *merged) sourceAmong(n int, s kvs.Slot) int {
	for i := range n {
		if m.pref[i].covers(s) {
			return i
		}
	}
	return -1
}

// search returns the index of the first line at slot s or later.
func (m *merged) search(s kvs.Slot) int {
	i, _ := slices.BinarySearchFunc(m.lines, s, func(e LogEntry, s kvs.Slot) int { return cmp.Compare(e.Slot, s) })
	return i
}

// describe names the logs the union took lines from.
func (m *merged) describe() string {
	switch len(m.used) {
	case 0:
		return "the applied logs (all empty)"
	case 1:
		return "the applied log of replica " + m.used[0]
	}
	return "the applied logs of replicas " + strings.Join(m.used, ", ") + " merged by slot"
}

// checkAgreement reports, once per log, the first slot at which one of
// its segments differs from the union over the slots the segment covers
// (PROTOCOL.md section 2.6 item 1: the applied logs of correct replicas
// are prefixes of one another; they are compared where they overlap,
// since a log may start at a snapshot or stop at a crash).
func (m *merged) checkAgreement(l appliedLog, c *collector) {
	for _, g := range l.segs {
		lo, hi := m.search(g.from+1), m.search(g.to+1)
		u := m.lines[lo:hi]
		i := 0
		for i < len(g.lines) && i < len(u) && g.lines[i] == u[i] {
			i++
		}
		if i == len(g.lines) && i == len(u) {
			continue
		}
		// The first slot where they differ, and what each has there.
		var at kvs.Slot
		switch {
		case i == len(g.lines):
			at = u[i].Slot
		case i == len(u):
			at = g.lines[i].Slot
		default:
			at = min(g.lines[i].Slot, u[i].Slot)
		}
		mine, theirs := "nothing", "nothing"
		var ops []OpID
		if i < len(g.lines) && g.lines[i].Slot == at {
			mine = describeEntry(g.lines[i])
			ops = append(ops, g.lines[i].ID())
		}
		var other string
		if i < len(u) && u[i].Slot == at {
			theirs, other = describeEntry(u[i]), m.src[lo+i]
			ops = append(ops, u[i].ID())
		} else {
			// The union has no line at this slot: the log it took the slot
			// from covers it without one (a noop, or a skipped duplicate).
			other = m.pref[m.sourceAmong(len(m.pref), at)].name
		}
		m.disagree(l.name, at, mine, other, theirs, ops, c)
		return
	}
}

func (m *merged) disagree(name string, at kvs.Slot, mine, other, theirs string, ops []OpID, c *collector) {
	c.add(Violation{
		Rule:    RuleLogAgreement,
		Replica: name,
		Ops:     ops,
		Message: fmt.Sprintf("applied logs diverge at slot %d: replica %s has %s where replica %s has %s; "+
			"the applied logs of correct replicas must agree on every slot they both cover (PROTOCOL.md 2.6 item 1)",
			at, name, mine, other, theirs),
	})
}
