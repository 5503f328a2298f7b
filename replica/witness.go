package replica

import (
	"fmt"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
)

// witnessRecord is a witness record plus the instant it was last flushed
// to the leader (its creation until the first flush), used to flush
// records of commands that never commit (PROTOCOL.md 3.4 rule 4).
type witnessRecord struct {
	wire.Record
	lastFlushed int64
	born        int64 // when the record was created
	// batch, in durable mode, is the batch that wrote the record down
	// (0: on disk before this life, or never written: a read's).
	batch uint64
}

// witness is a replica's record store (PROTOCOL.md sections 1.6, 3.4, 5.3).
// Records are keyed and removed by CmdID, never counted; each key has an
// ordered list of the records that touch it. A SCAN record is listed under
// every key of its range.
// A protocol's own index over the records (index, nil if it keeps none)
// is told of every record added and removed here.
type witness struct {
	byCmd map[wire.CmdID]*witnessRecord
	byKey map[kvs.Key][]*witnessRecord
	// lists are emptied key lists kept for the next key, so that a
	// record on a key with no other record does not allocate one.
	lists   [][]*witnessRecord
	index   RecordIndex
	arrival uint64
	// j, in durable mode, is told of every record kept and removed.
	j *journal
}

func newWitness(index RecordIndex) *witness {
	return &witness{
		byCmd: make(map[wire.CmdID]*witnessRecord),
		byKey: make(map[kvs.Key][]*witnessRecord),
		index: index,
	}
}

func (w *witness) get(id wire.CmdID) (*witnessRecord, bool) {
	r, ok := w.byCmd[id]
	return r, ok
}

// conflictsStrong reports whether a kept strong record conflicts with c.
// Weak records never cause a conflict (PROTOCOL.md 3.4 rule 5).
func (w *witness) conflictsStrong(c kvs.Command) bool {
	for k := range c.Keys() {
		for _, r := range w.byKey[k] {
			if r.Level == wire.Strong && r.Command.Conflicts(c) {
				return true
			}
		}
	}
	return false
}

// writesOn appends the kept write records overlapping the range of c.
func (w *witness) writesOn(c kvs.Command, out []wire.Record) []wire.Record {
	for k := range c.Keys() {
		for _, r := range w.byKey[k] {
			if r.Command.IsWrite() {
				out = append(out, r.Record)
			}
		}
	}
	return out
}

// add stores a record, replacing any record kept for the same CmdID (at
// most one record per CmdID, PROTOCOL.md 3.4 rule 6): a leader that appends
// a command it holds as a record of an older ballot keeps only its own.
func (w *witness) add(rec wire.Record, now int64) *witnessRecord {
	w.remove(rec.Cmd)
	w.arrival++
	rec.Arrival = w.arrival
	r := &witnessRecord{Record: rec, lastFlushed: now, born: now}
	w.byCmd[rec.Cmd] = r
	if rec.Command.Op != kvs.OpNoop {
		for k := range rec.Command.Keys() {
			l, ok := w.byKey[k]
			if n := len(w.lists); !ok && n > 0 {
				l, w.lists = w.lists[n-1], w.lists[:n-1]
			}
			w.byKey[k] = append(l, r)
		}
	}
	if w.index != nil {
		w.index.RecordKept(r.Record)
	}
	if w.j != nil && !rec.Command.IsRead() {
		// A read's record is never written down: no acknowledgement
		// depends on it surviving a crash (Core.readAckUnsynced).
		r.batch = w.j.kept(r.Record)
	}
	return r
}

// restore keeps a record read back from disk with its arrival number, so
// that recovery replays in the order the records arrived before the crash
// (docs/DECISIONS.md 18).
func (w *witness) restore(rec wire.Record, now int64) {
	arrival := rec.Arrival
	w.add(rec, now).Arrival = arrival
	w.arrival = max(w.arrival, arrival)
}

// remove deletes the record of id, if kept.
func (w *witness) remove(id wire.CmdID) {
	r, ok := w.byCmd[id]
	if !ok {
		return
	}
	delete(w.byCmd, id)
	if r.Command.Op != kvs.OpNoop {
		for k := range r.Command.Keys() {
			if l := removeRecord(w.byKey[k], r); len(l) == 0 {
				delete(w.byKey, k)
				if len(w.lists) < maxFreeLists && cap(l) <= maxFreeListCap {
					w.lists = append(w.lists, l)
				}
			} else {
				w.byKey[k] = l
			}
		}
	}
	if w.index != nil {
		w.index.RecordDropped(r.Record)
	}
	if w.j != nil && !r.Command.IsRead() {
		w.j.dropped(id)
	}
}

// removeOlderThan drops every record whose ballot is below b (PROTOCOL.md
// 6.3 step 6).
func (w *witness) removeOlderThan(b wire.Ballot) {
	for id, r := range w.byCmd {
		if r.Ballot < b {
			w.remove(id)
		}
	}
}

// maxFreeLists and maxFreeListCap bound the emptied key lists a witness
// keeps: a burst of records leaves no lasting memory behind.
const (
	maxFreeLists   = 1 << 12
	maxFreeListCap = 8
)

func removeRecord(l []*witnessRecord, r *witnessRecord) []*witnessRecord {
	for i, x := range l {
		if x == r {
			copy(l[i:], l[i+1:])
			l[len(l)-1] = nil
			return l[:len(l)-1]
		}
	}
	return l
}

// check verifies the indexes agree: every record listed under a key is
// the one byCmd holds for its CmdID, and every record of byCmd is listed
// exactly once under each key of its range. A record listed but not in
// byCmd is a leak: nothing removes it any more.
func (w *witness) check() error {
	listed := make(map[*witnessRecord]int, len(w.byCmd))
	for k, l := range w.byKey {
		for _, r := range l {
			if w.byCmd[r.Cmd] != r {
				return fmt.Errorf("key %d lists a record of %v that is not the one kept for it", k, r.Cmd)
			}
			if lo, hi := r.Command.KeyRange(); k < lo || k > hi {
				return fmt.Errorf("key %d lists a record of %v outside its range", k, r.Cmd)
			}
			listed[r]++
		}
	}
	for id, r := range w.byCmd {
		if r.Command.Op == kvs.OpNoop {
			continue
		}
		lo, hi := r.Command.KeyRange()
		if want := uint64(hi-lo) + 1; uint64(listed[r]) != want {
			return fmt.Errorf("the record of %v is listed under %d keys, not %d", id, listed[r], want)
		}
	}
	return nil
}
