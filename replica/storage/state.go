package storage

import (
	"cmp"
	"fmt"
	"slices"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// Assemble builds the state a replica restarts from out of what is on
// disk: ents sorted by slot, recs in any order. Entries the snapshot
// covers are skipped; the log must go on at the snapshot's next slot, and
// it ends at the first gap (Cut counts what lies beyond: a crash left it
// between a received snapshot and its suffix, and nothing acknowledged it).
// A log that starts above slot 1 with no snapshot below it means the
// snapshot was lost: that is an error, never an empty start.
func Assemble(hard HardState, snap *Snapshot, ents []wire.Entry, recs []wire.Record, where string) (*State, error) {
	st := &State{Hard: hard, Snapshot: snap}
	var base kvs.Slot
	if snap != nil {
		base = snap.LastSlot
	}
	i, _ := slices.BinarySearchFunc(ents, base+1, func(e wire.Entry, s kvs.Slot) int { return cmp.Compare(e.Slot, s) })
	ents = ents[i:]
	if snap == nil && len(ents) > 0 && ents[0].Slot != 1 {
		return nil, fmt.Errorf("%s: the log starts at slot %d and no snapshot covers the slots below it", where, ents[0].Slot)
	}
	n := 0
	for n < len(ents) && ents[n].Slot == base+1+kvs.Slot(n) {
		n++
	}
	st.Entries, st.Cut = ents[:n], len(ents)-n
	slices.SortFunc(recs, func(a, b wire.Record) int { return cmp.Compare(a.Arrival, b.Arrival) })
	st.Records = recs
	return st, nil
}

// LastSlot is the last slot of the log State holds.
func (s *State) LastSlot() kvs.Slot {
	if n := len(s.Entries); n > 0 {
		return s.Entries[n-1].Slot
	}
	if s.Snapshot != nil {
		return s.Snapshot.LastSlot
	}
	return 0
}
