package kvs

// Conflicts and commuting against a naive model (model_test.go has the
// generator and the store's model).

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// naiveConflicts is PROTOCOL.md section 1.3 written out over the key space
// (and keys between its keys): some key is touched by both commands and
// one of them writes.
func naiveConflicts(a, b Command) bool {
	touches := func(c Command, k Key) bool {
		switch c.Op {
		case OpNoop:
			return false
		case OpScan:
			return inRange(k, c)
		}
		return c.Key == k
	}
	if !a.IsWrite() && !b.IsWrite() {
		return false
	}
	for _, k := range keySpace {
		for _, k := range []Key{k, k + "\x00"} {
			if touches(a, k) && touches(b, k) {
				return true
			}
		}
	}
	return false
}

func TestConflictsMatchesModel(t *testing.T) {
	for _, seed := range seeds(2000) {
		g := newGen(seed)
		for range 50 {
			a, b := g.command(nil), g.command(nil)
			want := naiveConflicts(a, b)
			require.Equal(t, want, a.Conflicts(b), "seed %d: %v vs %v", seed, a, b)
			require.Equal(t, want, b.Conflicts(a), "seed %d: %v vs %v (symmetry)", seed, b, a)
		}
	}
}

func TestDeterminism(t *testing.T) {
	for _, seed := range seeds(500) {
		g := newGen(seed)
		s1, s2 := NewStore(), NewStore()
		var slot Slot
		for step := range 100 {
			c := g.command(s1.Get)
			slot += Slot(1 + g.r.IntN(3))
			require.Empty(t, resultDiff(s1.Apply(slot, c), s2.Apply(slot, c)), "seed %d step %d %v", seed, step, c)
		}
		all1, _ := s1.Snapshot().Chunk(ChunkPos{}, math.MaxInt)
		all2, _ := s2.Snapshot().Chunk(ChunkPos{}, math.MaxInt)
		require.Equal(t, all1, all2, "seed %d: final state", seed)
		require.Equal(t, s1.present, s2.present, "seed %d: Len", seed)
	}
}

// commuteDiff applies prefix to two stores, then a and b in both orders at
// the next two slots, and describes how the outcomes differ ("" if they do
// not). Each command keeps its own slot across the two orders: versions from
// the second store are relabelled by swapping those two slots.
func commuteDiff(prefix []Command, a, b Command) string {
	s1, s2 := NewStore(), NewStore()
	for i, c := range prefix {
		s1.Apply(Slot(i+1), c)
		s2.Apply(Slot(i+1), c)
	}
	p := Slot(len(prefix))
	ra1, rb1 := s1.Apply(p+1, a), s1.Apply(p+2, b)
	rb2, ra2 := s2.Apply(p+1, b), s2.Apply(p+2, a)
	relabel := func(v Slot) Slot {
		switch v {
		case p + 1:
			return p + 2
		case p + 2:
			return p + 1
		}
		return v
	}
	for _, r := range []*Result{&ra2, &rb2} {
		r.Version = relabel(r.Version)
		for i := range r.Items {
			r.Items[i].Version = relabel(r.Items[i].Version)
		}
	}
	if d := resultDiff(ra1, ra2); d != "" {
		return fmt.Sprintf("result of %v: %s", a, d)
	}
	if d := resultDiff(rb1, rb2); d != "" {
		return fmt.Sprintf("result of %v: %s", b, d)
	}
	if s1.Keys() != s2.Keys() || s1.present != s2.present {
		return "different key sets"
	}
	items1, _ := s1.Snapshot().Chunk(ChunkPos{}, math.MaxInt)
	for _, it := range items1 {
		e2 := s2.Get(it.Key)
		if string(it.Value) != string(e2.Value) || it.Found != e2.Found || it.Version != relabel(e2.Version) {
			return fmt.Sprintf("key %q: %+v vs %+v", it.Key, it, e2)
		}
	}
	return ""
}

func TestNonConflictingCommandsCommute(t *testing.T) {
	for _, seed := range seeds(2000) {
		g := newGen(seed)
		prefix := make([]Command, g.r.IntN(30))
		for i := range prefix {
			prefix[i] = g.command(nil)
		}
		for range 20 {
			a, b := g.command(nil), g.command(nil)
			if a.Conflicts(b) {
				continue
			}
			require.Empty(t, commuteDiff(prefix, a, b), "seed %d: non-conflicting %v and %v do not commute", seed, a, b)
		}
	}
}

// TestCommuteCheckerDetectsConflicts shows the commuting property is not
// vacuous: pairs that conflict in the sense of section 1.3 are caught by
// the same checker.
func TestCommuteCheckerDetectsConflicts(t *testing.T) {
	prefix := []Command{put("a", "1"), put("b", "x"), put("c", "c")}
	for _, pair := range [][2]Command{
		{put("a", "x"), put("a", "y")},
		{get("a"), put("a", "1")}, // same value, but the version read differs
		{get("b"), del("b")},
		{scan("a", "c", 10), put("b\x00", "x")},
		{scan("", "", 10), del("c")},
		{incr("a", 1), incr("a", 2)},
		{cas("b", ExpectValue, "x", "y"), get("b")},
		{cas("z", ExpectAbsent, "", "new"), put("z", "other")},
	} {
		a, b := pair[0], pair[1]
		require.True(t, a.Conflicts(b), "%v vs %v", a, b)
		require.NotEmpty(t, commuteDiff(prefix, a, b), "%v and %v conflict but commute", a, b)
	}
}
