package kvs

import (
	"cmp"
	"slices"
)

// Snapshot is a frozen copy of a store's state at one applied slot
// (PROTOCOL.md 6.10). Taking it costs one pass over the shard table, not
// over the keys: the store copies a frozen shard before writing to it
// again. A Snapshot is immutable, so any goroutine may read it while the
// store goes on applying.
type Snapshot struct {
	shards      [shards]*shard
	keys        int
	present     int
	lastApplied Slot
}

// Snapshot freezes the store's current state.
func (s *Store) Snapshot() *Snapshot {
	sn := &Snapshot{keys: s.keys, present: s.present, lastApplied: s.lastApplied}
	for i, sh := range s.shards {
		if sh != nil {
			sh.frozen = true
			sn.shards[i] = sh
		}
	}
	return sn
}

// LastApplied is the slot the snapshot was taken at.
func (sn *Snapshot) LastApplied() Slot { return sn.lastApplied }

// Keys is the number of keys ever written, absent values included: the
// number of items Chunk returns in all.
func (sn *Snapshot) Keys() int { return sn.keys }

// Chunk returns items of the snapshot from position from (0 at first)
// until about maxBytes of values, sorted by key within each shard, and the
// position to ask for next; next is 0 once every item was returned. The
// order depends only on the snapshot's content, so a transfer is
// deterministic.
func (sn *Snapshot) Chunk(from ChunkPos, maxBytes int) (items []Item, next ChunkPos) {
	bytes := 0
	for i := from.shard; i < shards; i++ {
		sh := sn.shards[i]
		if sh == nil {
			continue
		}
		keys := make([]Key, 0, len(sh.data))
		for k := range sh.data {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b Key) int { return cmp.Compare(a, b) })
		start := 0
		if i == from.shard {
			start = from.key
		}
		for j := start; j < len(keys); j++ {
			if bytes >= maxBytes && len(items) > 0 {
				return items, ChunkPos{shard: i, key: j, more: true}
			}
			e := sh.data[keys[j]]
			items = append(items, Item{Key: keys[j], Value: e.value, Version: e.version})
			bytes += len(e.value) + 16
		}
	}
	return items, ChunkPos{}
}

// ChunkPos is where a snapshot transfer stands.
type ChunkPos struct {
	shard, key int
	more       bool
}

// Done reports whether a position is past the last item.
func (p ChunkPos) Done() bool { return !p.more }

// Restore builds a store from a snapshot's items, applied up to slot.
// Items must name distinct keys; their values are copied.
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
		s.put(it.Version, it.Key, it.Value)
	}
}

// SetLastApplied marks a restored store as applied up to slot.
func (s *Store) SetLastApplied(slot Slot) { s.lastApplied = slot }

// Thaw returns a store whose state is the snapshot's, sharing its frozen
// shards: a write copies the shard it touches first, so the snapshot stays
// as it was. A replica restarting from disk thaws its snapshot instead of
// copying every key twice.
func (sn *Snapshot) Thaw() *Store {
	s := &Store{keys: sn.keys, present: sn.present, lastApplied: sn.lastApplied}
	s.shards = sn.shards
	return s
}
