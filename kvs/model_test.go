package kvs

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Property tests against a naive model. Every sequence is generated from its
// own seed, printed on failure; replay one with
//
//	go test ./kvs -run TestStoreMatchesModel -args -kvs.seed=N
var seedFlag = flag.Uint64("kvs.seed", 0, "run the randomized kvs tests for this one seed only")

// seeds returns the seeds a randomized test runs: 1..n, or just -kvs.seed.
func seeds(n int) []uint64 {
	if *seedFlag != 0 {
		return []uint64{*seedFlag}
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(i + 1)
	}
	return out
}

// keySpaceSize is small so that random commands collide often.
const keySpaceSize = 12

// gen draws random valid commands over keySpaceSize keys starting at base.
type gen struct {
	r    *rand.Rand
	base Key
	n    int // values drawn so far, to make PUT values distinct
}

func newGen(seed uint64) *gen {
	r := rand.New(rand.NewPCG(seed, 0x6b7673))
	// Most sequences live around 0; some at the ends of the key space, to
	// exercise SCAN ranges that saturate at MaxInt64.
	bases := []Key{-4, -4, 0, math.MaxInt64 - keySpaceSize + 1, math.MinInt64}
	return &gen{r: r, base: bases[r.IntN(len(bases))]}
}

func (g *gen) key() Key { return g.base + Key(g.r.IntN(keySpaceSize)) }

func (g *gen) command() Command {
	switch x := g.r.IntN(20); {
	case x < 8:
		g.n++
		if g.r.IntN(8) == 0 {
			return put(g.key(), "") // deletes the key
		}
		// Distinct values of varying length, so a SCAN that concatenates
		// in the wrong order or drops a key cannot match the model.
		return put(g.key(), "v"+strconv.Itoa(g.n)+strings.Repeat(".", g.r.IntN(3)))
	case x < 14:
		return get(g.key())
	case x < 19:
		n := int64(g.r.IntN(6))
		if g.r.IntN(10) == 0 {
			n = int64(g.r.IntN(MaxScanCount + 1))
		}
		return scan(g.key(), n)
	}
	return noop()
}

// model is the naive specification: values and versions in two plain maps,
// a SCAN found by testing every written key for membership and sorting.
type model struct {
	val map[Key][]byte
	ver map[Key]Slot
}

func newModel() *model { return &model{val: map[Key][]byte{}, ver: map[Key]Slot{}} }

// inScan reports whether k lies in [c.Key, c.Key+c.Count] without computing
// c.Key+c.Count: the difference of two int64s always fits in a uint64.
func inScan(k Key, c Command) bool {
	return k >= c.Key && uint64(k)-uint64(c.Key) <= uint64(c.Count)
}

func (m *model) read(c Command) Result {
	switch c.Op {
	case OpGet:
		if v, ok := m.val[c.Key]; ok {
			return Result{Value: Value(v), Version: m.ver[c.Key]}
		}
		return Result{Version: m.ver[c.Key]}
	case OpScan:
		var keys []Key
		for k := range m.ver {
			if inScan(k, c) {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		var r Result
		for _, k := range keys {
			var v Value
			if mv, ok := m.val[k]; ok {
				v = Value(mv)
			}
			r.Items = append(r.Items, Item{Key: k, Value: v, Version: m.ver[k]})
			r.Version = max(r.Version, m.ver[k])
		}
		return r
	}
	return Result{}
}

func (m *model) apply(slot Slot, c Command) Result {
	if c.Op != OpPut {
		return m.read(c)
	}
	if len(c.Value) == 0 {
		delete(m.val, c.Key)
	} else {
		m.val[c.Key] = slices.Clone(c.Value)
	}
	m.ver[c.Key] = slot
	return Result{Version: slot}
}

// stateDiff compares every key of g's key space and the counters, and
// describes the first difference ("" if none). Plain comparisons keep the
// thousands of checks per sequence cheap; require reports the difference.
func stateDiff(s *Store, m *model, g *gen, last Slot) string {
	for i := range keySpaceSize {
		k := g.base + Key(i)
		v, ver := s.Get(k)
		mv, ok := m.val[k]
		if string(v) != string(mv) || (v != nil) != ok || ver != m.ver[k] || s.Version(k) != ver {
			return fmt.Sprintf("key %d: store %q@%d (Version %d), model %q@%d (present %v)",
				k, v, ver, s.Version(k), mv, m.ver[k], ok)
		}
	}
	if s.Len() != len(m.val) {
		return fmt.Sprintf("Len: store %d, model %d", s.Len(), len(m.val))
	}
	if s.LastApplied() != last {
		return fmt.Sprintf("LastApplied: store %d, want %d", s.LastApplied(), last)
	}
	return ""
}

func TestStoreMatchesModel(t *testing.T) {
	const steps = 60
	for _, seed := range seeds(3000) {
		g := newGen(seed)
		s, m := NewStore(), newModel()
		var slot Slot
		for step := range steps {
			c := g.command()
			require.NoError(t, c.Validate(), "seed %d: generator made an invalid command", seed)
			if c.IsRead() {
				if want, got := m.read(c), s.Read(c); !equalResult(want, got) {
					require.Equal(t, want, got, "seed %d step %d: Read(%v)", seed, step, c)
				}
			}
			slot += Slot(1 + g.r.IntN(3))
			if want, got := m.apply(slot, c), s.Apply(slot, c); !equalResult(want, got) {
				require.Equal(t, want, got, "seed %d step %d: Apply(%d, %v)", seed, step, slot, c)
			}
			require.Empty(t, stateDiff(s, m, g, slot), "seed %d step %d after %v", seed, step, c)
		}
	}
}

// naiveConflicts is PROTOCOL.md section 1.3 written out over the key space:
// some key is touched by both commands and one of them is a PUT.
func naiveConflicts(a, b Command, g *gen) bool {
	touches := func(c Command, k Key) bool {
		switch c.Op {
		case OpGet, OpPut:
			return c.Key == k
		case OpScan:
			return inScan(k, c)
		}
		return false
	}
	if a.Op != OpPut && b.Op != OpPut {
		return false
	}
	for i := range keySpaceSize {
		if k := g.base + Key(i); touches(a, k) && touches(b, k) {
			return true
		}
	}
	return false
}

func TestConflictsMatchesModel(t *testing.T) {
	for _, seed := range seeds(2000) {
		g := newGen(seed)
		for range 50 {
			a, b := g.command(), g.command()
			want := naiveConflicts(a, b, g)
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
			c := g.command()
			slot += Slot(1 + g.r.IntN(3))
			require.Equal(t, s1.Apply(slot, c), s2.Apply(slot, c), "seed %d step %d %v", seed, step, c)
		}
		all1, _ := s1.Snapshot().Chunk(ChunkPos{}, math.MaxInt)
		all2, _ := s2.Snapshot().Chunk(ChunkPos{}, math.MaxInt)
		require.Equal(t, all1, all2, "seed %d: final state", seed)
		require.Equal(t, s1.present, s2.present, "seed %d: Len", seed)
		require.Equal(t, s1.lastApplied, s2.lastApplied, "seed %d: LastApplied", seed)
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
	ra2.Version, rb2.Version = relabel(ra2.Version), relabel(rb2.Version)
	if !equalResult(ra1, ra2) {
		return fmt.Sprintf("result of %v: %v vs %v", a, ra1, ra2)
	}
	if !equalResult(rb1, rb2) {
		return fmt.Sprintf("result of %v: %v vs %v", b, rb1, rb2)
	}
	if s1.Keys() != s2.Keys() || s1.present != s2.present {
		return "different key sets"
	}
	items1, _ := s1.Snapshot().Chunk(ChunkPos{}, math.MaxInt)
	for _, it := range items1 {
		e2 := s2.get(it.Key)
		if string(it.Value) != string(e2.value) || it.Version != relabel(e2.version) {
			return fmt.Sprintf("key %d: %q@%d vs %q@%d", it.Key, it.Value, it.Version, e2.value, relabel(e2.version))
		}
	}
	return ""
}

func equalResult(x, y Result) bool {
	return string(x.Value) == string(y.Value) && (x.Value == nil) == (y.Value == nil) && x.Version == y.Version
}

func TestNonConflictingCommandsCommute(t *testing.T) {
	for _, seed := range seeds(2000) {
		g := newGen(seed)
		prefix := make([]Command, g.r.IntN(30))
		for i := range prefix {
			prefix[i] = g.command()
		}
		checked := 0
		for range 20 {
			a, b := g.command(), g.command()
			if a.Conflicts(b) {
				continue
			}
			checked++
			d := commuteDiff(prefix, a, b)
			require.Empty(t, d, "seed %d: non-conflicting %v and %v do not commute", seed, a, b)
		}
		if *seedFlag != 0 {
			t.Logf("seed %d: %d non-conflicting pairs checked", seed, checked)
		}
	}
}

// TestCommuteCheckerDetectsConflicts shows the commuting property is not
// vacuous: pairs that conflict in the sense of section 1.3 (with distinct
// values) are caught by the same checker.
func TestCommuteCheckerDetectsConflicts(t *testing.T) {
	prefix := []Command{put(1, "a"), put(2, "b"), put(3, "c")}
	for _, pair := range [][2]Command{
		{put(1, "x"), put(1, "y")},
		{put(5, "x"), put(5, "y")},
		{get(1), put(1, "x")},
		{get(1), put(1, "a")}, // same value, but the version read differs
		{scan(0, 5), put(3, "x")},
		{scan(2, 0), put(2, "")},
	} {
		a, b := pair[0], pair[1]
		require.True(t, a.Conflicts(b), "%v vs %v", a, b)
		require.NotEmpty(t, commuteDiff(prefix, a, b), "%v and %v conflict but commute", a, b)
	}
}
