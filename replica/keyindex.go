package replica

import (
	"swiftpaxos/kvs"
)

// keyState lists the unapplied log entries that touch one key: the slots
// of its PUTs in slot order and the latest read (GET or SCAN) slot.
type keyState struct {
	writes   []kvs.Slot
	lastRead kvs.Slot
}

// keyIndex is the per-key view of the unapplied log suffix. The leader
// uses it for speculation over the log prefix and for the Ok rule
// (PROTOCOL.md 3.5); it is the spec's lastWrite, kept on every replica so
// that a new leader need not rebuild it.
type keyIndex map[kvs.Key]*keyState

func (ix keyIndex) add(s kvs.Slot, c kvs.Command) {
	if c.Op == kvs.OpNoop {
		return
	}
	for k := range c.Keys() {
		st := ix[k]
		if st == nil {
			st = &keyState{}
			ix[k] = st
		}
		if c.IsWrite() {
			st.writes = append(st.writes, s)
		} else {
			st.lastRead = s
		}
	}
}

// applied forgets slot s, which must be the oldest unapplied entry.
func (ix keyIndex) applied(s kvs.Slot, c kvs.Command) {
	if c.Op == kvs.OpNoop {
		return
	}
	for k := range c.Keys() {
		if st := ix[k]; st != nil {
			if len(st.writes) > 0 && st.writes[0] == s {
				st.writes[0] = 0
				st.writes = st.writes[1:]
			}
			if st.lastRead == s {
				st.lastRead = 0
			}
			if len(st.writes) == 0 && st.lastRead == 0 {
				delete(ix, k)
			}
		}
	}
}

func (ix keyIndex) lastWrite(k kvs.Key) (kvs.Slot, bool) {
	st := ix[k]
	if st == nil || len(st.writes) == 0 {
		return 0, false
	}
	return st.writes[len(st.writes)-1], true
}

// uncommittedWrites appends the slots of writes to k above commit.
func (ix keyIndex) uncommittedWrites(k kvs.Key, commit kvs.Slot, out []kvs.Slot) []kvs.Slot {
	st := ix[k]
	if st == nil {
		return out
	}
	for i := len(st.writes) - 1; i >= 0 && st.writes[i] > commit; i-- {
		out = append(out, st.writes[i])
	}
	return out
}

// touchedAbove reports whether an entry above commit reads or writes k.
func (ix keyIndex) touchedAbove(k kvs.Key, commit kvs.Slot) bool {
	st := ix[k]
	if st == nil {
		return false
	}
	if st.lastRead > commit {
		return true
	}
	return len(st.writes) > 0 && st.writes[len(st.writes)-1] > commit
}
