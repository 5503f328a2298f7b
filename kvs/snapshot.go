package kvs

import "github.com/tidwall/btree"

// Snapshot is a frozen copy of a store's state at one applied slot
// (PROTOCOL.md 6.10). Taking it costs O(1): the store and the snapshot
// share the B-tree's nodes, and whichever writes to a shared node copies
// it first (copy on write); a snapshot is never written to, so it is
// immutable and any goroutine may read it while the store goes on
// applying.
type Snapshot struct {
	tree        *btree.Map[Key, Entry]
	present     int
	lastApplied Slot
}

// Snapshot freezes the store's current state.
func (s *Store) Snapshot() *Snapshot {
	return &Snapshot{tree: s.tree.Copy(), present: s.present, lastApplied: s.lastApplied}
}

// LastApplied is the slot the snapshot was taken at.
func (sn *Snapshot) LastApplied() Slot { return sn.lastApplied }

// Keys is the number of keys ever written, deleted ones included: the
// number of items Chunk returns in all.
func (sn *Snapshot) Keys() int { return sn.tree.Len() }

// Chunk returns items of the snapshot from position from (ChunkPos{} at
// first), in key order, until about maxBytes of values, and the position
// to ask for next; next is done once every item was returned. The order
// depends only on the snapshot's content, so a transfer is deterministic.
func (sn *Snapshot) Chunk(from ChunkPos, maxBytes int) (items []Item, next ChunkPos) {
	bytes := 0
	visit := func(k Key, e Entry) bool {
		if bytes >= maxBytes && len(items) > 0 {
			next = ChunkPos{key: k, more: true}
			return false
		}
		items = append(items, Item{Key: k, Value: e.Value, Found: e.Found, Version: e.Version})
		bytes += len(k) + len(e.Value) + 16
		return true
	}
	if from.more {
		sn.tree.Ascend(from.key, visit)
	} else {
		sn.tree.Scan(visit)
	}
	return items, next
}

// ChunkPos is where a snapshot transfer stands: the next key to send.
type ChunkPos struct {
	key  Key
	more bool
}

// Done reports whether a position is past the last item.
func (p ChunkPos) Done() bool { return !p.more }

// Restore builds a store from a snapshot's items (deleted keys included),
// applied up to slot. Items must name distinct keys; their values are
// copied.
func Restore(slot Slot, items []Item) *Store {
	s := NewStore()
	s.Load(items)
	s.lastApplied = slot
	return s
}

// Load adds snapshot items to a store being restored (Restore, or a
// transfer arriving in chunks). Values are copied.
func (s *Store) Load(items []Item) {
	for _, it := range items {
		s.write(Write{Key: it.Key, Entry: Entry{Value: it.Value, Found: it.Found, Version: it.Version}})
	}
}

// SetLastApplied marks a restored store as applied up to slot.
func (s *Store) SetLastApplied(slot Slot) { s.lastApplied = slot }

// Thaw returns a store whose state is the snapshot's, sharing its nodes:
// the store copies a node before it first writes to it, so the snapshot
// stays as it was. A replica restarting from disk thaws its snapshot
// instead of copying every value; only the point-lookup index is built
// anew, one pass over the keys.
func (sn *Snapshot) Thaw() *Store {
	s := &Store{tree: sn.tree.Copy(), index: make(map[Key]Entry, sn.tree.Len()), present: sn.present, lastApplied: sn.lastApplied}
	s.tree.Scan(func(k Key, e Entry) bool {
		s.index[k] = e
		return true
	})
	return s
}
