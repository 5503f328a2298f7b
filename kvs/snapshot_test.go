package kvs

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// key is the i-th key of a test, fixed-width so that keys sort by i.
func key(i int) Key { return Key(fmt.Sprintf("key%08d", i)) }

// allItems reads a whole snapshot in chunks of about maxBytes.
func allItems(sn *Snapshot, maxBytes int) []Item {
	var out []Item
	pos := ChunkPos{}
	for {
		items, next := sn.Chunk(pos, maxBytes)
		out = append(out, items...)
		if next.Done() {
			return out
		}
		pos = next
	}
}

// TestSnapshotIsFrozen: a snapshot keeps the state it was taken at while
// the store moves on, and the store is unaffected by the snapshot.
func TestSnapshotIsFrozen(t *testing.T) {
	s := NewStore()
	for i := range 1000 {
		s.Apply(Slot(i+1), put(key(i), fmt.Sprint("v", i)))
	}
	sn := s.Snapshot()
	before := allItems(sn, math.MaxInt)
	for i := range 1000 {
		s.Apply(Slot(2000+i), put(key(i), "new"))
	}
	s.Apply(4000, del(key(3)))
	s.Apply(5000, put("added", "added"))
	require.Equal(t, before, allItems(sn, math.MaxInt), "the snapshot did not change")
	require.Equal(t, Slot(1000), sn.LastApplied())
	require.Equal(t, 1000, sn.Keys())
	require.Equal(t, Entry{Value: Value("new"), Found: true, Version: 2007}, s.Get(key(7)))
	require.Equal(t, 1001, s.Keys())
}

// TestChunksCoverEverythingOnce: whatever the chunk size, the chunks list
// every key once, in the same order, and a restored store equals the
// original.
func TestChunksCoverEverythingOnce(t *testing.T) {
	s := NewStore()
	for i := range 5000 {
		s.Apply(Slot(2*i+1), put(key(i*31), fmt.Sprint("value-", i)))
		if i%7 == 0 {
			s.Apply(Slot(2*i+2), del(key(i*31)))
		}
	}
	sn := s.Snapshot()
	want := allItems(sn, math.MaxInt)
	require.Len(t, want, 5000)
	for _, size := range []int{1, 100, 4096, 1 << 20} {
		got := allItems(sn, size)
		require.Equal(t, want, got, "chunks of %d bytes", size)
	}
	r := Restore(sn.LastApplied(), want)
	require.Equal(t, want, allItems(r.Snapshot(), math.MaxInt))
	require.Equal(t, s.Len(), r.Len())
	require.Equal(t, s.LastApplied(), r.LastApplied())
}

// BenchmarkSnapshot measures taking a snapshot of a million keys of 100 B
// (O(1): issue 13 asks that a snapshot never stall the event loop longer
// than a normal batch, issue 29 under 5 ms at a million keys) and the
// writes after it, which copy the nodes they touch once.
func BenchmarkSnapshot(b *testing.B) {
	s := NewStore()
	v := make([]byte, 100)
	for i := range 1_000_000 {
		s.Apply(Slot(i+1), Command{Op: OpPut, Key: key(i), Value: v})
	}
	slot := Slot(2_000_000)
	b.Run("take", func(b *testing.B) {
		for b.Loop() {
			s.Snapshot()
		}
	})
	// A write after a snapshot copies the B-tree nodes on its path that
	// the snapshot shares: the cost a snapshot adds to the writes after it.
	b.Run("first-write-per-path", func(b *testing.B) {
		s.Snapshot()
		i := 0
		for b.Loop() {
			slot++
			s.Apply(slot, Command{Op: OpPut, Key: key(i % 1_000_000), Value: v})
			i += 997
		}
	})
}

// TestThawLeavesTheSnapshot: a store thawed from a snapshot has its state,
// and writing to it changes neither the snapshot nor a second thawed store.
func TestThawLeavesTheSnapshot(t *testing.T) {
	s := NewStore()
	for i := range 300 {
		s.Apply(Slot(i+1), put(key(i), fmt.Sprint("v", i)))
	}
	sn := s.Snapshot()
	before := allItems(sn, math.MaxInt)
	a, b := sn.Thaw(), sn.Thaw()
	require.Equal(t, Slot(300), a.LastApplied())
	require.Equal(t, 300, a.Keys())
	for i := range 300 {
		a.Apply(Slot(400+i), put(key(i), "a"))
	}
	require.Equal(t, before, allItems(sn, math.MaxInt))
	require.Equal(t, before, allItems(b.Snapshot(), math.MaxInt))
	require.Equal(t, Value("a"), a.Get(key(7)).Value)
}
