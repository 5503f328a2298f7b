package replica

import (
	"slices"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// isViewNoop reports whether e is the no-op a new leader appends after its
// replay block (PROTOCOL.md 6.3 step 4): the only entry with no command id.
func isViewNoop(e *wire.Entry) bool { return e.Cmd.IsZero() && e.Command.Op == kvs.OpNoop }

// raftLog holds the entries of slots base+1..last. Commitment is
// prefix-closed (PROTOCOL.md section 3.2), so the log is a slice indexed by
// slot-base-1. Slots up to base were compacted into a snapshot (PROTOCOL.md
// 6.10): they are committed and applied, and only their last ballot is
// kept.
type raftLog struct {
	base       kvs.Slot
	baseBallot wire.Ballot
	entries    []wire.Entry
	// j, in durable mode, is told of every entry written and every cut.
	j *journal
}

func (l *raftLog) last() kvs.Slot { return l.base + kvs.Slot(len(l.entries)) }

// first is the first slot still held, last+1 if none.
func (l *raftLog) first() kvs.Slot { return l.base + 1 }

// at returns the entry of slot s; s must be in first..last.
func (l *raftLog) at(s kvs.Slot) *wire.Entry { return &l.entries[s-l.base-1] }

// ballotAt returns the ballot of slot s (0 for slot 0), and ok=false when
// the log has no slot s or compacted it (only base's ballot is known).
func (l *raftLog) ballotAt(s kvs.Slot) (wire.Ballot, bool) {
	switch {
	case s == l.base:
		return l.baseBallot, true
	case s < l.base || s > l.last():
		return 0, false
	}
	return l.entries[s-l.base-1].Ballot, true
}

func (l *raftLog) lastBallot() wire.Ballot {
	b, _ := l.ballotAt(l.last())
	return b
}

// append adds e at slot last+1 and returns that slot.
func (l *raftLog) append(e wire.Entry) kvs.Slot {
	e.Slot = l.last() + 1
	l.entries = append(l.entries, e)
	if l.j != nil {
		l.j.logged(e)
	}
	return e.Slot
}

// truncate drops every entry from slot s on; s must be above base. The
// kept entries move to a new array rather than being overwritten in
// place: Accepts this replica sent as a leader may still wait in a
// batcher, referring to the old array's entries, which must not change
// under the encoder. It happens only at a view change.
func (l *raftLog) truncate(s kvs.Slot) {
	l.entries = slices.Clone(l.entries[:s-l.base-1])
	if l.j != nil {
		l.j.cut(s - 1)
	}
}

// compact forgets the entries up to slot s (at most last), keeping the
// ballot of s. The rest is copied to a new array, so that the memory of the
// compacted entries is released, with room for the next n entries: grown
// from the kept entries alone, the array would be copied again and again
// as the log grows back, allocating several times its size in all.
func (l *raftLog) compact(s kvs.Slot, n int) {
	if s <= l.base {
		return
	}
	b, _ := l.ballotAt(s)
	rest := l.entries[s-l.base:]
	l.entries = append(make([]wire.Entry, 0, len(rest)+n), rest...)
	l.base, l.baseBallot = s, b
}

// reset empties the log onto a snapshot that ends at slot s of ballot b.
func (l *raftLog) reset(s kvs.Slot, b wire.Ballot) {
	l.entries, l.base, l.baseBallot = nil, s, b
	if l.j != nil {
		l.j.cut(s)
	}
}

// slice returns the entries of slots from..to (inclusive), at most max of
// them; from must be above base. They are the log's own and read-only. A
// message may carry them while the log moves on: the log never writes an
// entry twice (append writes past the end, which the slice's capacity
// excludes; truncate and compact move to a new array).
func (l *raftLog) slice(from, to kvs.Slot, max int) []wire.Entry {
	if to > l.last() {
		to = l.last()
	}
	if from > to {
		return nil
	}
	if int(to-from+1) > max {
		to = from + kvs.Slot(max) - 1
	}
	return l.entries[from-l.base-1 : to-l.base : to-l.base]
}
