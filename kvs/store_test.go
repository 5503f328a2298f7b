package kvs

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestApplySemantics(t *testing.T) {
	s := NewStore()
	assert.Equal(t, Result{}, s.Apply(1, get(5)), "GET of a never-written key is NIL, version 0")

	assert.Equal(t, Result{Version: 2}, s.Apply(2, put(5, "a")), "PUT returns NIL and its slot")
	assert.Equal(t, Result{Value: Value("a"), Version: 2}, s.Apply(3, get(5)))

	s.Apply(7, put(3, "c")) // gaps in slots are allowed
	s.Apply(8, put(4, "dd"))
	assert.Equal(t, Result{Version: 8, Items: []Item{{3, Value("c"), 7}, {4, Value("dd"), 8}, {5, Value("a"), 2}}}, s.Apply(9, scan(2, 4)),
		"SCAN lists every written key of its range in key order, version is the max")
	assert.Equal(t, Result{Version: 8, Items: []Item{{4, Value("dd"), 8}}}, s.Apply(10, scan(4, 0)))
	assert.Equal(t, Result{}, s.Apply(11, scan(100, 10)), "SCAN of an empty range")
	assert.Equal(t, Result{}, s.Apply(12, noop()))
	assert.Equal(t, Result{}, s.Apply(13, badOp(5, 0)), "unknown operation applies as NOOP")
	assert.Equal(t, Slot(13), s.LastApplied())
	assert.Equal(t, 3, s.Len())

	// A PUT of the empty value makes the key absent but versions it.
	assert.Equal(t, Result{Version: 14}, s.Apply(14, put(4, "")))
	assert.Equal(t, Result{Version: 14}, s.Apply(15, get(4)), "absent value, version of the deleting PUT")
	assert.Equal(t, Result{Version: 14, Items: []Item{{3, Value("c"), 7}, {4, nil, 14}, {5, Value("a"), 2}}}, s.Apply(16, scan(3, 2)),
		"an absent but written key is listed with its version and no value")
	assert.Equal(t, 2, s.Len())

	v, ver := s.Get(5)
	assert.Equal(t, Value("a"), v)
	assert.Equal(t, Slot(2), ver)
	assert.Equal(t, Slot(7), s.Version(3))
	assert.Equal(t, Slot(0), s.Version(99))
}

func TestApplyLenCountsPresentKeys(t *testing.T) {
	s := NewStore()
	steps := []struct {
		c   Command
		len int
	}{
		{put(1, ""), 0}, // absent -> absent
		{put(1, "a"), 1},
		{put(1, "b"), 1}, // present -> present
		{put(2, "x"), 2},
		{put(1, ""), 1}, // present -> absent
		{put(1, ""), 1},
		{get(2), 1},
	}
	for i, st := range steps {
		s.Apply(Slot(i+1), st.c)
		require.Equal(t, st.len, s.Len(), "after step %d (%v)", i, st.c)
	}
}

func TestApplyScanAtKeySpaceEdges(t *testing.T) {
	s := NewStore()
	s.Apply(1, put(math.MaxInt64, "z"))
	s.Apply(2, put(math.MaxInt64-1, "y"))
	s.Apply(3, put(math.MinInt64, "a"))
	yz := Result{Version: 2, Items: []Item{{math.MaxInt64 - 1, Value("y"), 2}, {math.MaxInt64, Value("z"), 1}}}
	assert.Equal(t, yz, s.Apply(4, scan(math.MaxInt64-1, MaxScanCount)),
		"a SCAN whose range saturates at MaxInt64 terminates")
	assert.Equal(t, Result{Version: 1, Items: []Item{{math.MaxInt64, Value("z"), 1}}}, s.Apply(5, scan(math.MaxInt64, 0)))
	assert.Equal(t, Result{Version: 3, Items: []Item{{math.MinInt64, Value("a"), 3}}}, s.Apply(6, scan(math.MinInt64, 3)))
	assert.Equal(t, yz, s.Apply(7, scan(math.MaxInt64-5, 1<<40)),
		"an invalid Count is clamped, not iterated")
}

func TestApplyPanicsOnNonIncreasingSlot(t *testing.T) {
	for _, tt := range []struct {
		name  string
		prev  Slot
		slot  Slot
		panic bool
	}{
		{"slot 0 first", 0, 0, true},
		{"repeat", 5, 5, true},
		{"backwards", 5, 4, true},
		{"next", 5, 6, false},
		{"gap", 5, 9, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStore()
			if tt.prev > 0 {
				s.Apply(tt.prev, put(1, "a"))
			}
			apply := func() { s.Apply(tt.slot, put(1, "b")) }
			if !tt.panic {
				require.NotPanics(t, apply)
				assert.Equal(t, tt.slot, s.LastApplied())
				return
			}
			require.PanicsWithValue(t, panicMessage(tt.slot, put(1, "b"), tt.prev), apply)
			v, ver := s.Get(1)
			assert.Equal(t, tt.prev, ver, "a rejected Apply changes nothing")
			assert.Equal(t, tt.prev, s.LastApplied())
			if tt.prev > 0 {
				assert.Equal(t, Value("a"), v)
			}
		})
	}
}

func panicMessage(slot Slot, c Command, last Slot) string {
	return fmt.Sprintf("kvs: Apply(%d, %v) after slot %d: slots must be strictly increasing", slot, c, last)
}

func TestApplyCopiesPutValue(t *testing.T) {
	s := NewStore()
	buf := []byte("hello")
	s.Apply(1, Command{Op: OpPut, Key: 1, Value: buf})
	copy(buf, "XXXXX") // the codec reuses its buffer
	v, _ := s.Get(1)
	assert.Equal(t, Value("hello"), v, "the store must not alias the caller's buffer")

	// Appending to a returned value must not write into the store's memory.
	r := s.Apply(2, get(1))
	_ = append(r.Value, '!')
	s.Apply(3, put(2, "w"))
	assert.Equal(t, Result{Version: 3, Items: []Item{{1, Value("hello"), 1}, {2, Value("w"), 3}}}, s.Apply(4, scan(1, 1)))
	assert.Equal(t, len(r.Value), cap(r.Value))
}

func TestScanItemsAreFresh(t *testing.T) {
	s := NewStore()
	s.Apply(1, put(1, "abc"))
	r := s.Apply(2, scan(1, 0))
	r.Items[0] = Item{Key: 9}
	assert.Equal(t, Result{Version: 1, Items: []Item{{1, Value("abc"), 1}}}, s.Read(scan(1, 0)),
		"a SCAN's item list must not be shared with the store or another result")
}

func TestItemOf(t *testing.T) {
	items := []Item{{-3, Value("a"), 4}, {2, nil, 7}, {5, Value("c"), 9}}
	for _, tt := range []struct {
		k   Key
		v   Value
		ver Slot
	}{{-3, Value("a"), 4}, {2, nil, 7}, {5, Value("c"), 9}, {0, nil, 0}, {-9, nil, 0}, {6, nil, 0}} {
		v, ver := ItemOf(items, tt.k)
		assert.Equal(t, tt.v, v, "key %d", tt.k)
		assert.Equal(t, tt.ver, ver, "key %d", tt.k)
	}
}

func TestReadDoesNotWrite(t *testing.T) {
	s := NewStore()
	s.Apply(1, put(1, "a"))
	s.Apply(2, put(2, "b"))

	assert.Equal(t, Result{Value: Value("a"), Version: 1}, s.Read(get(1)))
	assert.Equal(t, Result{Version: 2, Items: []Item{{1, Value("a"), 1}, {2, Value("b"), 2}}}, s.Read(scan(0, 5)))
	assert.Equal(t, Result{}, s.Read(put(1, "zzz")), "Read of a PUT is a no-op")
	assert.Equal(t, Result{}, s.Read(noop()))

	v, ver := s.Get(1)
	assert.Equal(t, Value("a"), v)
	assert.Equal(t, Slot(1), ver)
	assert.Equal(t, Slot(2), s.LastApplied(), "Read does not consume a slot")
}

func TestReadOverOverlay(t *testing.T) {
	s := NewStore()
	s.Apply(1, put(1, "a"))
	s.Apply(2, put(2, "b"))
	s.Apply(3, put(3, "c"))
	// The leader's lastWrite: slot 5 rewrote key 2, slot 6 deleted key 3,
	// slot 7 created key 4; none of them applied yet.
	pending := map[Key]entry{2: {Value("B"), 5}, 3: {nil, 6}, 4: {Value("D"), 7}}
	over := func(k Key) (Value, Slot, bool) {
		e, ok := pending[k]
		return e.value, e.version, ok
	}
	assert.Equal(t, Result{Value: Value("a"), Version: 1}, s.ReadOver(get(1), over), "no overlay entry: the store")
	assert.Equal(t, Result{Value: Value("B"), Version: 5}, s.ReadOver(get(2), over))
	assert.Equal(t, Result{Version: 6}, s.ReadOver(get(3), over))
	assert.Equal(t, Result{Version: 7, Items: []Item{{1, Value("a"), 1}, {2, Value("B"), 5}, {3, nil, 6}, {4, Value("D"), 7}}}, s.ReadOver(scan(0, 10), over))
	assert.Equal(t, Result{Version: 3, Items: []Item{{1, Value("a"), 1}, {2, Value("b"), 2}, {3, Value("c"), 3}}}, s.ReadOver(scan(0, 10), nil))
	assert.Equal(t, Result{}, s.ReadOver(put(2, "x"), over))
	assert.Equal(t, Slot(3), s.LastApplied())
}
