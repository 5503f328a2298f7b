package replica

import (
	"fmt"
	"slices"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
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
	// pos is a read's place in its key's reads.
	pos int
}

// keyRecords are the records of one key: its writes in arrival order
// (KeptWrites gives them so), its reads in no order, each knowing its
// place. A read conflicts only with writes, so admitting a read walks the
// writes alone, and a read's record leaves in constant time: a key read
// by hundreds of commands at once (redis-benchmark's GET of one key)
// costs no more per command than a key read by one.
type keyRecords struct {
	writes []*witnessRecord
	reads  []*witnessRecord
}

// witness is a replica's record store (PROTOCOL.md sections 1.6, 3.4, 5.3).
// Records are keyed and removed by CmdID, never counted. A record of a
// single-key command is listed under its key (keyRecords), in a hash map
// (most commands touch one key); a SCAN walks the keys held for those of its
// range, in key order (a witness holds the records of commands not yet
// committed: few keys). A SCAN's record is listed in scans, which a
// single-key command walks to find the SCANs that cover its key (there are
// few: a SCAN's record lives until it commits).
// A protocol's own index over the records (index, nil if it keeps none)
// is told of every record added and removed here.
type witness struct {
	byCmd map[wire.CmdID]*witnessRecord
	byKey map[kvs.Key]*keyRecords
	keys  []kvs.Key // scratch for a SCAN's walk
	scans []*witnessRecord
	// lists are emptied keys' records kept for the next key, so that a
	// record on a key with no other record does not allocate them.
	lists   []*keyRecords
	index   RecordIndex
	arrival uint64
	// ignoreScanRange is Mutation.WitnessIgnoresScanRange.
	ignoreScanRange bool
	// j, in durable mode, is told of every record kept and removed.
	j *journal
}

func newWitness(index RecordIndex) *witness {
	return &witness{
		byCmd: make(map[wire.CmdID]*witnessRecord),
		byKey: make(map[kvs.Key]*keyRecords),
		index: index,
	}
}

// each calls f for every kept record that c touches a key of, until f
// returns false: the records of c's key (or, for a SCAN, of every key in
// its range), a key's writes first, and the SCAN records that cover c's
// key (or overlap its range: two SCANs never conflict, so a SCAN is not
// shown other SCANs). With writesOnly, only the records of writes.
func (w *witness) each(c kvs.Command, writesOnly bool, f func(r *witnessRecord) bool) {
	switch c.Op {
	case kvs.OpNoop:
		return
	case kvs.OpScan:
		keys := w.keys[:0]
		for k := range w.byKey {
			if c.Covers(k) && (!w.ignoreScanRange || k == c.Key) {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		defer func() { clear(keys); w.keys = keys[:0] }()
		for _, k := range keys {
			if !w.byKey[k].each(writesOnly, f) {
				return
			}
		}
		return
	}
	if kr := w.byKey[c.Key]; kr != nil && !kr.each(writesOnly, f) {
		return
	}
	if w.ignoreScanRange || writesOnly {
		return // a SCAN reads
	}
	for _, r := range w.scans {
		if r.Command.Covers(c.Key) && !f(r) {
			return
		}
	}
}

// each calls f for the key's writes, then its reads unless writesOnly,
// until f returns false; it reports whether f never did.
func (kr *keyRecords) each(writesOnly bool, f func(r *witnessRecord) bool) bool {
	for _, r := range kr.writes {
		if !f(r) {
			return false
		}
	}
	if writesOnly {
		return true
	}
	for _, r := range kr.reads {
		if !f(r) {
			return false
		}
	}
	return true
}

func (w *witness) get(id wire.CmdID) (*witnessRecord, bool) {
	r, ok := w.byCmd[id]
	return r, ok
}

// conflictsStrong reports whether a kept strong record conflicts with c.
// Weak records never cause a conflict (PROTOCOL.md 3.4 rule 5). A read
// conflicts only with writes: only those are walked.
func (w *witness) conflictsStrong(c kvs.Command) bool {
	found := false
	w.each(c, !c.IsWrite(), func(r *witnessRecord) bool {
		found = r.Level == wire.Strong && r.Command.Conflicts(c)
		return !found
	})
	return found
}

// writesOn appends the kept write records on c's key, or in its range,
// at most limit of them (0: all).
func (w *witness) writesOn(c kvs.Command, out []wire.Record, limit int) []wire.Record {
	n := len(out)
	w.each(c, true, func(r *witnessRecord) bool {
		out = append(out, r.Record)
		return limit == 0 || len(out)-n < limit
	})
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
	switch rec.Command.Op {
	case kvs.OpNoop:
	case kvs.OpScan:
		w.scans = append(w.scans, r)
	default:
		kr := w.byKey[rec.Command.Key]
		if kr == nil {
			if n := len(w.lists); n > 0 {
				kr, w.lists = w.lists[n-1], w.lists[:n-1]
			} else {
				kr = &keyRecords{}
			}
			w.byKey[rec.Command.Key] = kr
		}
		if rec.Command.IsWrite() {
			kr.writes = append(kr.writes, r)
		} else {
			r.pos = len(kr.reads)
			kr.reads = append(kr.reads, r)
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
	switch r.Command.Op {
	case kvs.OpNoop:
	case kvs.OpScan:
		w.scans = removeRecord(w.scans, r)
	default:
		k := r.Command.Key
		kr := w.byKey[k]
		if r.Command.IsWrite() {
			kr.writes = removeRecord(kr.writes, r)
		} else {
			last := kr.reads[len(kr.reads)-1]
			kr.reads[r.pos], last.pos = last, r.pos
			kr.reads[len(kr.reads)-1] = nil
			kr.reads = kr.reads[:len(kr.reads)-1]
		}
		if len(kr.writes) == 0 && len(kr.reads) == 0 {
			delete(w.byKey, k)
			if len(w.lists) < maxFreeLists && cap(kr.writes) <= maxFreeListCap && cap(kr.reads) <= maxFreeListCap {
				w.lists = append(w.lists, kr)
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

// check verifies the indexes agree: every record listed under a key or
// among the SCANs is the one byCmd holds for its CmdID, and every record
// of byCmd is listed exactly once. A record listed but not in byCmd is a
// leak: nothing removes it any more.
func (w *witness) check() error {
	listed := make(map[*witnessRecord]int, len(w.byCmd))
	for k, kr := range w.byKey {
		if len(kr.writes) == 0 && len(kr.reads) == 0 {
			return fmt.Errorf("key %q is listed without records", k)
		}
		for i, r := range slices.Concat(kr.writes, kr.reads) {
			switch {
			case w.byCmd[r.Cmd] != r:
				return fmt.Errorf("key %q lists a record of %v that is not the one kept for it", k, r.Cmd)
			case r.Command.Op == kvs.OpScan || r.Command.Key != k:
				return fmt.Errorf("key %q lists a record of %v on another key", k, r.Cmd)
			case (i < len(kr.writes)) != r.Command.IsWrite():
				return fmt.Errorf("key %q lists a record of %v among the wrong kind", k, r.Cmd)
			case i >= len(kr.writes) && r.pos != i-len(kr.writes):
				return fmt.Errorf("key %q lists the read %v at %d, which it thinks is at %d", k, r.Cmd, i-len(kr.writes), r.pos)
			}
			listed[r]++
		}
	}
	for _, r := range w.scans {
		if w.byCmd[r.Cmd] != r || r.Command.Op != kvs.OpScan {
			return fmt.Errorf("the SCANs list a record of %v that is not a SCAN kept for it", r.Cmd)
		}
		listed[r]++
	}
	for id, r := range w.byCmd {
		want := 1
		if r.Command.Op == kvs.OpNoop {
			want = 0
		}
		if listed[r] != want {
			return fmt.Errorf("the record of %v is listed %d times, not %d", id, listed[r], want)
		}
	}
	return nil
}
