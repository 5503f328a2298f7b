package replica

import (
	"slices"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// keyState lists the unapplied log entries that touch one key: the slots
// of its writes in slot order (writes[applied:]; the array is kept for the
// key's next writes) and the latest single-key read (GET) slot.
//
// spec is the key's state after its writes through slot specAt, whose
// entry has ballot specBallot (when specOK), as the leader's
// speculation last computed it (Core.stateAfter): a slot and its ballot
// name one entry, and the state after a log prefix does not depend on how
// much of it is applied, so the next write of the key is evaluated on top
// of it instead of walking every unapplied write again.
type keyState struct {
	writes     []kvs.Slot
	applied    int
	lastRead   kvs.Slot
	specOK     bool
	specAt     kvs.Slot
	specBallot wire.Ballot
	spec       kvs.Entry
}

// live is the slots of the key's unapplied writes.
func (st *keyState) live() []kvs.Slot { return st.writes[st.applied:] }

// pendingScan is an unapplied SCAN: its slot and range.
type pendingScan struct {
	slot kvs.Slot
	cmd  kvs.Command
}

// keyIndex is the per-key view of the unapplied log suffix. The leader
// uses it for speculation over the log prefix and for the Ok rule
// (PROTOCOL.md 3.5); it is the spec's lastWrite, kept on every replica so
// that a new leader need not rebuild it. It is a hash map: most commands
// touch one key, and the keys of the unapplied suffix are few, so a SCAN
// walks them all for those of its range (and sorts those), which costs
// less than keeping them ordered for every command. Unapplied SCANs are
// listed apart, in slot order (there are few), for the writes they cover.
//
// A key's state lives from the first unapplied entry that touches it to
// the application of the last, which under a skewed workload over many
// keys is one entry: the states a key leaves are kept for the next key,
// so that indexing an entry does not allocate.
type keyIndex struct {
	m     map[kvs.Key]*keyState
	scans []pendingScan
	free  []*keyState
	keys  []kvs.Key // scratch for rangeWrites
}

func newKeyIndex() keyIndex { return keyIndex{m: make(map[kvs.Key]*keyState)} }

// reset forgets every key.
func (ix *keyIndex) reset() {
	for k, st := range ix.m {
		ix.release(k, st)
	}
	clear(ix.scans)
	ix.scans = ix.scans[:0]
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
	switch c.Op {
	case kvs.OpNoop:
		return
	case kvs.OpScan:
		ix.scans = append(ix.scans, pendingScan{slot: s, cmd: c})
		return
	}
	st := ix.m[c.Key]
	if st == nil {
		if n := len(ix.free); n > 0 {
			st, ix.free = ix.free[n-1], ix.free[:n-1]
		} else {
			st = &keyState{}
		}
		ix.m[c.Key] = st
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

// applied forgets slot s, which must be the oldest unapplied entry.
func (ix *keyIndex) applied(s kvs.Slot, c kvs.Command) {
	switch c.Op {
	case kvs.OpNoop:
		return
	case kvs.OpScan:
		for i, p := range ix.scans {
			if p.slot == s {
				n := len(ix.scans)
				copy(ix.scans[i:], ix.scans[i+1:])
				ix.scans[n-1] = pendingScan{}
				ix.scans = ix.scans[:n-1]
				break
			}
		}
		return
	}
	st := ix.m[c.Key]
	if st == nil {
		return
	}
	if w := st.live(); len(w) > 0 && w[0] == s {
		st.applied++
	}
	if st.lastRead == s {
		st.lastRead = 0
	}
	if len(st.live()) == 0 && st.lastRead == 0 {
		ix.release(c.Key, st)
	}
}

// liveWrites returns the slots of k's unapplied writes, in slot order.
func (ix keyIndex) liveWrites(k kvs.Key) []kvs.Slot {
	if st := ix.m[k]; st != nil {
		return st.live()
	}
	return nil
}

// rangeWrites calls f, in key order, for each key of [start, end) (end "":
// no end) with unapplied writes, until f returns false.
func (ix *keyIndex) rangeWrites(start, end kvs.Key, f func(k kvs.Key, live []kvs.Slot) bool) {
	keys := ix.keys[:0]
	for k, st := range ix.m {
		if k >= start && (end == "" || k < end) && len(st.live()) > 0 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !f(k, ix.m[k].live()) {
			break
		}
	}
	clear(keys)
	ix.keys = keys[:0]
}

// uncommittedWrites appends the slots of writes to the keys c reads (its
// key, or every key of its range) above commit, at most limit of them (0:
// all). A read rule needs to tell only none, one and more, so the leader
// asks for two: a key with hundreds of writes in flight (a pipeline of
// INCRs) then costs each read two steps, not hundreds.
func (ix *keyIndex) uncommittedWrites(c kvs.Command, commit kvs.Slot, out []kvs.Slot, limit int) []kvs.Slot {
	add := func(_ kvs.Key, w []kvs.Slot) bool {
		for i := len(w) - 1; i >= 0 && w[i] > commit; i-- {
			if limit > 0 && len(out) == limit {
				return false
			}
			out = append(out, w[i])
		}
		return true
	}
	if c.Op == kvs.OpScan {
		ix.rangeWrites(c.Key, c.End, add)
		return out
	}
	add(c.Key, ix.liveWrites(c.Key))
	return out
}

// touchedAbove reports whether an entry above commit reads or writes k: a
// write or GET of k, or a SCAN whose range covers k.
func (ix keyIndex) touchedAbove(k kvs.Key, commit kvs.Slot) bool {
	for i := len(ix.scans) - 1; i >= 0 && ix.scans[i].slot > commit; i-- {
		if ix.scans[i].cmd.Covers(k) {
			return true
		}
	}
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
