package kvs

import (
	"fmt"

	"github.com/tidwall/btree"
)

// Result is the outcome of a command (PROTOCOL.md section 1.2).
//
// For a GET, Value is the key's value (nil when absent) and Version the slot
// of the last PUT to the key (0 if never written). For a SCAN, Items holds
// the per-key form, one Item for every key of the range that was ever
// written (Version > 0), in key order, a key missing from Items being
// absent and never written; Value is nil and Version is the largest
// version in the range. A PUT yields a nil Value and its own slot as
// Version, a NOOP the zero Result.
type Result struct {
	Value   Value
	Version Slot
	Items   []Item
}

// Item is one key of a SCAN result: its value (nil when absent) and the
// slot of the last PUT to it.
type Item struct {
	Key     Key
	Value   Value
	Version Slot
}

// ItemOf returns the value and version of k in a SCAN result's items
// (sorted by key): NIL and 0 when the key is not listed.
func ItemOf(items []Item, k Key) (Value, Slot) {
	lo, hi := 0, len(items)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if items[m].Key < k {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(items) && items[lo].Key == k {
		return items[lo].Value, items[lo].Version
	}
	return nil, 0
}

// entry is what the store keeps per key: the value (nil when absent) and the
// slot of the last PUT (the keyVersion of PROTOCOL.md section 3.1).
type entry struct {
	value   Value
	version Slot
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
	tree        *btree.Map[Key, entry]
	present     int // keys with a non-empty value
	lastApplied Slot
}

// NewStore returns an empty store with nothing applied.
func NewStore() *Store { return &Store{tree: btree.NewMap[Key, entry](degree)} }

// Apply executes c as the entry at slot and returns its result (PROTOCOL.md
// section 3.3). slot must be greater than every slot applied before; a
// violation means the replica's execution loop is broken, and Apply panics
// rather than silently reorder history.
//
// Apply does not call Validate: it is total (see Command.KeyRange), so a bad
// entry in the log gives every replica the same outcome. A PUT copies its
// value; the caller may reuse c.Value afterwards.
func (s *Store) Apply(slot Slot, c Command) Result {
	if slot <= s.lastApplied {
		panic(fmt.Sprintf("kvs: Apply(%d, %v) after slot %d: slots must be strictly increasing",
			slot, c, s.lastApplied))
	}
	s.lastApplied = slot
	switch c.Op {
	case OpPut:
		s.put(slot, c.Key, c.Value)
		return Result{Version: slot}
	case OpGet, OpScan:
		return s.ReadOver(c, nil)
	}
	return Result{}
}

func (s *Store) put(slot Slot, k Key, v Value) {
	var stored Value
	if len(v) > 0 {
		// An exact-size copy: the caller's buffer may be reused, and
		// cap == len keeps appends to a returned value out of the store.
		stored = make(Value, len(v))
		copy(stored, v)
	}
	old, _ := s.tree.Set(k, entry{value: stored, version: slot})
	switch {
	case len(old.value) == 0 && stored != nil:
		s.present++
	case len(old.value) != 0 && stored == nil:
		s.present--
	}
}

// Read evaluates a GET or SCAN against the applied state without applying
// it (the weak read of PROTOCOL.md section 4.6). For a PUT, NOOP or unknown
// operation it returns the zero Result: it never writes.
func (s *Store) Read(c Command) Result { return s.ReadOver(c, nil) }

// Overlay shadows the store for reads: when ok is true, (v, version) is
// used for key k instead of the applied entry. The leader passes its
// lastWrite map this way to compute speculative results against the log
// prefix rather than the applied state (PROTOCOL.md section 3.5).
type Overlay func(k Key) (v Value, version Slot, ok bool)

// ReadOver is Read with an overlay consulted before the store for every key;
// a nil overlay reads the store alone. Like Read it never writes.
func (s *Store) ReadOver(c Command, over Overlay) Result {
	switch c.Op {
	case OpGet:
		v, ver := s.lookup(c.Key, over)
		return Result{Value: v, Version: ver}
	case OpScan:
		var r Result
		for k := range c.Keys() {
			if v, ver := s.lookup(k, over); ver > 0 {
				r.Items = append(r.Items, Item{Key: k, Value: v, Version: ver})
				r.Version = max(r.Version, ver)
			}
		}
		return r
	}
	return Result{}
}

func (s *Store) lookup(k Key, over Overlay) (Value, Slot) {
	if over != nil {
		if v, ver, ok := over(k); ok {
			return v, ver
		}
	}
	e := s.get(k)
	return e.value, e.version
}

func (s *Store) get(k Key) entry {
	e, _ := s.tree.Get(k)
	return e
}

// Get returns the value of k (nil when absent) and its version (0 if never
// written). The value shares memory with the store and is read-only.
func (s *Store) Get(k Key) (Value, Slot) {
	e := s.get(k)
	return e.value, e.version
}

// Version returns the slot of the last PUT applied to k, 0 if none.
func (s *Store) Version(k Key) Slot { return s.get(k).version }

// Keys returns the number of keys ever written (absent values included).
func (s *Store) Keys() int { return s.tree.Len() }

// Len returns the number of keys holding a present (non-empty) value.
func (s *Store) Len() int { return s.present }

// LastApplied returns the last slot passed to Apply, 0 if none.
func (s *Store) LastApplied() Slot { return s.lastApplied }
