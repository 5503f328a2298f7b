package replica

import (
	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
)

// isViewNoop reports whether e is the no-op a new leader appends after its
// replay block (PROTOCOL.md 6.3 step 4): the only entry with no command id.
func isViewNoop(e *wire.Entry) bool { return e.Cmd.IsZero() && e.Command.Op == kvs.OpNoop }

// raftLog holds the entries of slots 1..last. Commitment is prefix-closed
// (PROTOCOL.md section 3.2), so the log is a plain slice indexed by slot-1.
type raftLog struct {
	entries []wire.Entry
}

func (l *raftLog) last() kvs.Slot { return kvs.Slot(len(l.entries)) }

// at returns the entry of slot s; s must be in 1..last.
func (l *raftLog) at(s kvs.Slot) *wire.Entry { return &l.entries[s-1] }

// ballotAt returns the ballot of slot s, 0 for slot 0, and ok=false when the
// log has no slot s.
func (l *raftLog) ballotAt(s kvs.Slot) (wire.Ballot, bool) {
	if s == 0 {
		return 0, true
	}
	if s > l.last() {
		return 0, false
	}
	return l.entries[s-1].Ballot, true
}

func (l *raftLog) lastBallot() wire.Ballot {
	b, _ := l.ballotAt(l.last())
	return b
}

// append adds e at slot last+1 and returns that slot.
func (l *raftLog) append(e wire.Entry) kvs.Slot {
	e.Slot = l.last() + 1
	l.entries = append(l.entries, e)
	return e.Slot
}

// truncate drops every entry from slot s on.
func (l *raftLog) truncate(s kvs.Slot) {
	for i := s - 1; i < l.last(); i++ {
		l.entries[i] = wire.Entry{} // release values for the GC
	}
	l.entries = l.entries[:s-1]
}

// slice returns the entries of slots from..to (inclusive), at most max of them.
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
	return l.entries[from-1 : to]
}
