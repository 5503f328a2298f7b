package kvs

import (
	"fmt"

	"github.com/tidwall/btree"
)

// Entry is the state of one key: its value, whether it holds one, and the
// slot of its last write (the keyVersion of PROTOCOL.md section 3.1; 0:
// never written). A deleted key is kept, absent, with its DELETE's slot.
type Entry struct {
	Value   Value
	Found   bool
	Version Slot
}

// degree is the B-tree's: nodes of up to 63 keys, a few cache lines of keys
// to search per level.
const degree = 32

// Store is the versioned key-value store a replica applies committed log
// entries to: an ordered map (a B-tree with copy-on-write nodes), so that
// ranges are walked in key order and a snapshot costs O(1). The zero Store
// is not usable; call NewStore. See the package documentation for its
// invariants; it is not safe for concurrent use (its snapshots are).
type Store struct {
	tree *btree.Map[Key, Entry]
	// index holds what tree holds, for point lookups: a B-tree lookup
	// compares about log2(keys) keys, twenty at a million, where reads
	// of single keys are most of a workload. Snapshots share tree only.
	index       map[Key]Entry
	present     int // keys holding a value
	lastApplied Slot
}

// NewStore returns an empty store with nothing applied.
func NewStore() *Store {
	return &Store{tree: btree.NewMap[Key, Entry](degree), index: make(map[Key]Entry)}
}

// Apply executes c as the entry at slot and returns its result (PROTOCOL.md
// section 3.3). slot must be greater than every slot applied before; a
// violation means the replica's execution loop is broken, and Apply panics
// rather than silently reorder history.
//
// Apply does not call Validate: it is total (Eval), so a bad entry in the
// log gives every replica the same outcome. A write copies its value; the
// caller may reuse c's buffers afterwards.
func (s *Store) Apply(slot Slot, c Command) Result {
	if slot <= s.lastApplied {
		panic(fmt.Sprintf("kvs: Apply(%d, %v) after slot %d: slots must be strictly increasing",
			slot, c, s.lastApplied))
	}
	s.lastApplied = slot
	// GET and PUT, most of a log, do what Eval would without its copies
	// of the command and its results, which are over a hundred bytes each.
	switch c.Op {
	case OpGet:
		e := s.index[c.Key]
		return Result{Value: e.Value, Found: e.Found, Version: e.Version}
	case OpPut:
		s.write(Write{Key: c.Key, Entry: Entry{Value: c.Value, Found: true, Version: slot}})
		return Result{Version: slot}
	}
	res, w, ok := s.Eval(slot, c, nil)
	if ok {
		stored := s.write(w)
		if res.Found && res.Version == slot {
			res.Value = stored // not the command's buffer, which the caller may reuse
		}
	}
	return res
}

// write stores w, copying its value into an exact-size buffer: the
// caller's may be reused, and cap == len keeps appends to a returned value
// out of the store.
func (s *Store) write(w Write) Value {
	e := Entry{Found: w.Found, Version: w.Version}
	if w.Found {
		e.Value = make(Value, len(w.Value))
		copy(e.Value, w.Value)
	}
	old, _ := s.tree.Set(w.Key, e) // tree and index hold the same
	s.index[w.Key] = e
	switch {
	case !old.Found && e.Found:
		s.present++
	case old.Found && !e.Found:
		s.present--
	}
	return e.Value
}

// Read evaluates a GET or SCAN against the applied state without applying
// it (the weak read of PROTOCOL.md section 4.6). Any other command yields
// the zero Result: Read never writes.
func (s *Store) Read(c Command) Result { return s.ReadOver(c, nil) }

// ReadOver is Read with an overlay consulted before the store; a nil
// overlay reads the store alone.
func (s *Store) ReadOver(c Command, over Overlay) Result {
	switch c.Op {
	case OpGet: // what Eval does, without its copies (Apply)
		e, ok := Entry{}, false
		if over != nil {
			e, ok = over.Lookup(c.Key)
		}
		if !ok {
			e = s.index[c.Key]
		}
		return Result{Value: e.Value, Found: e.Found, Version: e.Version}
	case OpScan:
	default:
		return Result{}
	}
	res, _, _ := s.Eval(0, c, over)
	return res
}

// Get returns the state of k. Its value shares memory with the store and
// is read-only.
func (s *Store) Get(k Key) Entry { return s.index[k] }

// Version returns the slot of the last write applied to k, 0 if none.
func (s *Store) Version(k Key) Slot { return s.Get(k).Version }

// Keys returns the number of keys ever written, deleted ones included.
func (s *Store) Keys() int { return len(s.index) }

// Len returns the number of keys holding a value.
func (s *Store) Len() int { return s.present }

// LastApplied returns the last slot passed to Apply, 0 if none.
func (s *Store) LastApplied() Slot { return s.lastApplied }
