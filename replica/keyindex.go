package replica

import (
	"swiftpaxos/kvs"
)

// keyState lists the unapplied log entries that touch one key: the slots
// of its PUTs in slot order (writes[applied:]; the array is kept for the
// key's next writes) and the latest read (GET or SCAN) slot.
type keyState struct {
	writes   []kvs.Slot
	applied  int
	lastRead kvs.Slot
}

// live is the slots of the key's unapplied PUTs.
func (st *keyState) live() []kvs.Slot { return st.writes[st.applied:] }

// keyIndex is the per-key view of the unapplied log suffix. The leader
// uses it for speculation over the log prefix and for the Ok rule
// (PROTOCOL.md 3.5); it is the spec's lastWrite, kept on every replica so
// that a new leader need not rebuild it.
//
// A key's state lives from the first unapplied entry that touches it to
// the application of the last, which under a skewed workload over many
// keys is one entry: the states a key leaves are kept for the next key,
// so that indexing an entry does not allocate.
type keyIndex struct {
	m    map[kvs.Key]*keyState
	free []*keyState
}

func newKeyIndex() keyIndex { return keyIndex{m: make(map[kvs.Key]*keyState)} }

// reset forgets every key.
func (ix *keyIndex) reset() {
	for k, st := range ix.m {
		ix.release(k, st)
	}
}

// release forgets key k, whose state is st.
func (ix *keyIndex) release(k kvs.Key, st *keyState) {
	delete(ix.m, k)
	*st = keyState{writes: st.writes[:0]}
	if len(ix.free) < maxFreeKeyStates {
		ix.free = append(ix.free, st)
	}
}

// maxFreeKeyStates bounds the states kept for reuse: after a burst that
// touched many keys, the memory returns to the collector.
const maxFreeKeyStates = 1 << 12

func (ix *keyIndex) add(s kvs.Slot, c kvs.Command) {
	if c.Op == kvs.OpNoop {
		return
	}
	for k := range c.Keys() {
		st := ix.m[k]
		if st == nil {
			if n := len(ix.free); n > 0 {
				st, ix.free = ix.free[n-1], ix.free[:n-1]
			} else {
				st = &keyState{}
			}
			ix.m[k] = st
		}
		if c.IsWrite() {
			if st.applied > 0 && len(st.writes) == cap(st.writes) {
				// Full: the applied slots at the front make room.
				st.writes = st.writes[:copy(st.writes, st.live())]
				st.applied = 0
			}
			st.writes = append(st.writes, s)
		} else {
			st.lastRead = s
		}
	}
}

// applied forgets slot s, which must be the oldest unapplied entry.
func (ix *keyIndex) applied(s kvs.Slot, c kvs.Command) {
	if c.Op == kvs.OpNoop {
		return
	}
	for k := range c.Keys() {
		if st := ix.m[k]; st != nil {
			if w := st.live(); len(w) > 0 && w[0] == s {
				st.applied++
			}
			if st.lastRead == s {
				st.lastRead = 0
			}
			if len(st.live()) == 0 && st.lastRead == 0 {
				ix.release(k, st)
			}
		}
	}
}

func (ix keyIndex) lastWrite(k kvs.Key) (kvs.Slot, bool) {
	st := ix.m[k]
	if st == nil || len(st.live()) == 0 {
		return 0, false
	}
	return st.writes[len(st.writes)-1], true
}

// uncommittedWrites appends the slots of writes to k above commit.
func (ix keyIndex) uncommittedWrites(k kvs.Key, commit kvs.Slot, out []kvs.Slot) []kvs.Slot {
	st := ix.m[k]
	if st == nil {
		return out
	}
	w := st.live()
	for i := len(w) - 1; i >= 0 && w[i] > commit; i-- {
		out = append(out, w[i])
	}
	return out
}

// touchedAbove reports whether an entry above commit reads or writes k.
func (ix keyIndex) touchedAbove(k kvs.Key, commit kvs.Slot) bool {
	st := ix.m[k]
	if st == nil {
		return false
	}
	if st.lastRead > commit {
		return true
	}
	w := st.live()
	return len(w) > 0 && w[len(w)-1] > commit
}
