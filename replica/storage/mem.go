package storage

import (
	"cmp"
	"slices"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// Mem is durable state kept in memory: what a disk holds after the batches
// applied to it, with the same outcome as Store. The simulator keeps one
// per replica as the replica's disk and applies a batch when its simulated
// sync completes; what it never applied is what a crash lost.
type Mem struct {
	hard    HardState
	snap    *Snapshot
	entries map[kvs.Slot]wire.Entry
	records map[wire.CmdID]wire.Record
}

// NewMem returns an empty disk.
func NewMem() *Mem {
	return &Mem{hard: HardState{Vote: wire.NoReplica}, entries: make(map[kvs.Slot]wire.Entry), records: make(map[wire.CmdID]wire.Record)}
}

// Apply makes b durable. A snapshot the replica took is written at once
// here, which Store may do later; both leave a log that starts after it.
func (m *Mem) Apply(b *Batch) {
	if b.Installed && b.Truncated {
		m.truncate(b.LogEnd)
	}
	if b.Snapshot != nil {
		m.SaveSnapshot(b.Snapshot)
	}
	if b.Hard != nil {
		m.hard = *b.Hard
	}
	for _, e := range b.Entries {
		m.entries[e.Slot] = e
	}
	if b.Truncated {
		m.truncate(b.LogEnd)
	}
	for _, op := range b.Records {
		if op.Remove {
			delete(m.records, op.Record.Cmd)
		} else {
			m.records[op.Record.Cmd] = op.Record
		}
	}
}

func (m *Mem) truncate(end kvs.Slot) {
	for s := range m.entries {
		if s > end {
			delete(m.entries, s)
		}
	}
}

// SaveSnapshot keeps sn if it is later than the one kept, and drops the
// log entries it covers.
func (m *Mem) SaveSnapshot(sn *Snapshot) {
	if m.snap != nil && sn.LastSlot <= m.snap.LastSlot {
		return
	}
	m.snap = sn
	for s := range m.entries {
		if s <= sn.LastSlot {
			delete(m.entries, s)
		}
	}
}

// State returns what a replica restarting on this disk finds. Entries
// above a gap are dropped from the disk too, as Store does when it opens.
func (m *Mem) State() (*State, error) {
	ents := make([]wire.Entry, 0, len(m.entries))
	for _, e := range m.entries {
		ents = append(ents, e)
	}
	slices.SortFunc(ents, func(a, b wire.Entry) int { return cmp.Compare(a.Slot, b.Slot) })
	recs := make([]wire.Record, 0, len(m.records))
	for _, r := range m.records {
		recs = append(recs, r)
	}
	st, err := Assemble(m.hard, m.snap, ents, recs, "memory")
	if err != nil {
		return nil, err
	}
	if st.Cut > 0 {
		m.truncate(st.LastSlot())
	}
	return st, nil
}
