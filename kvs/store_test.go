package kvs

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestApplySemantics(t *testing.T) {
	s := NewStore()
	assert.Equal(t, Result{}, s.Apply(1, get("k")), "GET of a never-written key: not found, version 0")
	assert.Equal(t, Result{Version: 2}, s.Apply(2, put("k", "")), "PUT returns its slot")
	assert.Equal(t, Result{Value: Value{}, Found: true, Version: 2}, s.Apply(3, get("k")), "an empty value is found")
	assert.Equal(t, Result{Found: true, Version: 4}, s.Apply(4, del("k")), "DELETE says the key held a value")
	assert.Equal(t, Result{Version: 4}, s.Apply(5, get("k")), "a deleted key: not found, the DELETE's version")
	assert.Equal(t, Result{Version: 6}, s.Apply(6, del("k")), "DELETE of an absent key")
	assert.Equal(t, 1, s.Keys(), "deleted keys are kept, with their version")
	assert.Equal(t, 0, s.Len())
	assert.Equal(t, Result{}, s.Apply(7, noop()))
	assert.Equal(t, Result{}, s.Apply(8, Command{Op: 9, Key: "k"}), "an unknown operation applies as NOOP")
	assert.Equal(t, Slot(8), s.LastApplied())
}

func TestCAS(t *testing.T) {
	s := NewStore()
	assert.Equal(t, Result{Applied: true, Value: Value("a"), Found: true, Version: 1}, s.Apply(1, cas("k", ExpectAbsent, "", "a")))
	assert.Equal(t, Result{Value: Value("a"), Found: true, Version: 1}, s.Apply(2, cas("k", ExpectAbsent, "", "b")),
		"not applied: the current value and version")
	assert.Equal(t, Result{Value: Value("a"), Found: true, Version: 1}, s.Apply(3, cas("k", ExpectValue, "x", "b")))
	assert.Equal(t, Result{Applied: true, Value: Value("b"), Found: true, Version: 4}, s.Apply(4, cas("k", ExpectValue, "a", "b")))
	byVersion := Command{Op: OpCAS, Key: "k", Expect: ExpectVersion, ExpectVersion: 1, Value: Value("c")}
	assert.Equal(t, Result{Value: Value("b"), Found: true, Version: 4}, s.Apply(5, byVersion))
	byVersion.ExpectVersion, byVersion.Value, byVersion.Delete = 4, nil, true
	assert.Equal(t, Result{Applied: true, Version: 6}, s.Apply(6, byVersion), "a CAS that deletes")
	assert.Equal(t, Result{Version: 6}, s.Apply(7, get("k")))
	// A deleted key is absent, and keeps the version of its DELETE.
	assert.Equal(t, Result{Applied: true, Value: Value(""), Found: true, Version: 8}, s.Apply(8, cas("k", ExpectAbsent, "", "")))
	never := Command{Op: OpCAS, Key: "n", Expect: ExpectVersion, ExpectVersion: 0, Value: Value("first")}
	assert.Equal(t, Result{Applied: true, Value: Value("first"), Found: true, Version: 9}, s.Apply(9, never), "version 0: never written")
}

func TestIncr(t *testing.T) {
	s := NewStore()
	assert.Equal(t, Result{Value: Value("5"), Found: true, Version: 1}, s.Apply(1, incr("n", 5)), "absent counts as 0")
	assert.Equal(t, Result{Value: Value("-2"), Found: true, Version: 2}, s.Apply(2, incr("n", -7)))
	s.Apply(3, put("x", "12a"))
	assert.Equal(t, Result{Value: Value("12a"), Found: true, Version: 3, Err: ErrNotInteger}, s.Apply(4, incr("x", 1)))
	s.Apply(5, put("e", ""))
	assert.Equal(t, ErrNotInteger, s.Apply(6, incr("e", 1)).Err, "an empty value is no integer")
	s.Apply(7, put("m", fmt.Sprint(int64(math.MaxInt64))))
	assert.Equal(t, Result{Value: Value("9223372036854775807"), Found: true, Version: 7, Err: ErrOverflow}, s.Apply(8, incr("m", 1)))
	assert.Equal(t, ErrOverflow, s.Apply(9, incr("n", math.MinInt64)).Err, "-2 + MinInt64")
	assert.Equal(t, Slot(2), s.Version("n"), "an error changes nothing")
	assert.Equal(t, Result{Value: Value("-2"), Found: true, Version: 10}, s.Apply(10, incr("n", 0)))
	assert.EqualError(t, ErrOverflow.Error(), "kvs: the increment overflows a 64-bit integer")
	assert.NoError(t, ErrNone.Error())
}

func TestScan(t *testing.T) {
	s := NewStore()
	for i, k := range []Key{"a", "b", "b\x00", "ba", "c", "d"} {
		s.Apply(Slot(i+1), put(k, string(k)))
	}
	s.Apply(7, del("ba"))
	items := func(keys ...Key) []Item {
		var out []Item
		for _, k := range keys {
			out = append(out, Item{Key: k, Value: Value(k), Found: true, Version: s.Version(k)})
		}
		return out
	}
	assert.Equal(t, Result{Items: items("b", "b\x00", "c"), Version: 5}, s.Read(scan("b", "d", 10)), "[b, d): deleted keys are not listed")
	assert.Equal(t, Result{Items: items("a", "b"), More: true, Version: 2}, s.Read(scan("", "", 2)), "the limit, and more exist")
	assert.Equal(t, Result{Items: items("c", "d"), Version: 6}, s.Read(scan("c", "", 2)), "the limit reached at the last key: no more")
	assert.Equal(t, Result{Items: items("b\x00"), More: true, Version: 3}, s.Read(scan("b\x00", "", 1)), "more beyond a deleted key")
	assert.Equal(t, Result{}, s.Read(scan("x", "", 10)))
	assert.Equal(t, Result{}, s.Read(scan("c", "b", 10)), "an end before the start covers no key")
	assert.Equal(t, Result{More: true}, s.Read(scan("a", "", 0)), "a limit out of range is clamped")
}

// A SCAN stops at MaxScanBytes and says more exist, but always returns at
// least one item: a reply always fits in a frame.
func TestScanByteBound(t *testing.T) {
	s := NewStore()
	big := strings.Repeat("x", MaxScanBytes/3)
	for i := range 5 {
		s.Apply(Slot(i+1), put(Key(fmt.Sprint("k", i)), big))
	}
	r := s.Read(scan("", "", 100))
	require.Len(t, r.Items, 2)
	assert.True(t, r.More)
	s.Apply(6, put("a", strings.Repeat("y", MaxScanBytes+10)))
	r = s.Read(scan("", "", 100))
	require.Len(t, r.Items, 1)
	assert.Equal(t, Key("a"), r.Items[0].Key)
	assert.True(t, r.More)
}

func TestApplyLenCountsPresentKeys(t *testing.T) {
	s := NewStore()
	steps := []struct {
		c   Command
		len int
	}{
		{del("a"), 0},
		{put("a", ""), 1}, // absent -> present (empty)
		{put("a", "b"), 1},
		{put("b", "x"), 2},
		{del("a"), 1},
		{incr("a", 1), 2},
		{cas("a", ExpectValue, "1", ""), 2},
		{Command{Op: OpCAS, Key: "b", Expect: ExpectValue, ExpectValue: Value("x"), Delete: true}, 1},
		{get("a"), 1},
	}
	for i, st := range steps {
		s.Apply(Slot(i+1), st.c)
		require.Equal(t, st.len, s.Len(), "after step %d (%v)", i, st.c)
	}
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
				s.Apply(tt.prev, put("k", "a"))
			}
			apply := func() { s.Apply(tt.slot, put("k", "b")) }
			if !tt.panic {
				require.NotPanics(t, apply)
				assert.Equal(t, tt.slot, s.LastApplied())
				return
			}
			msg := fmt.Sprintf("kvs: Apply(%d, %v) after slot %d: slots must be strictly increasing", tt.slot, put("k", "b"), tt.prev)
			require.PanicsWithValue(t, msg, apply)
			assert.Equal(t, tt.prev, s.Version("k"), "a rejected Apply changes nothing")
			assert.Equal(t, tt.prev, s.LastApplied())
		})
	}
}

// The store copies what it keeps: a caller may reuse its buffers, and a
// CAS's or INCR's result is the stored value, not the command's buffer.
func TestApplyCopiesValues(t *testing.T) {
	s := NewStore()
	buf := []byte("hello")
	s.Apply(1, Command{Op: OpPut, Key: "k", Value: buf})
	buf[0] = 'j'
	assert.Equal(t, Value("hello"), s.Get("k").Value)
	nv := []byte("new")
	r := s.Apply(2, Command{Op: OpCAS, Key: "k", Expect: ExpectValue, ExpectValue: Value("hello"), Value: nv})
	nv[0] = 'x'
	assert.Equal(t, Value("new"), r.Value)
	assert.Equal(t, Value("new"), s.Get("k").Value)
	v := s.Get("k").Value
	assert.Equal(t, len(v), cap(v), "appending to a returned value cannot write into the store")
}

func TestItemOf(t *testing.T) {
	items := []Item{{Key: "a", Value: Value("1"), Found: true, Version: 3}, {Key: "c", Value: Value("2"), Found: true, Version: 5}}
	v, found, ver := ItemOf(items, "c")
	assert.Equal(t, Value("2"), v)
	assert.True(t, found)
	assert.Equal(t, Slot(5), ver)
	_, found, ver = ItemOf(items, "b")
	assert.False(t, found)
	assert.Zero(t, ver)
}

// Read evaluates reads only: a write given to it changes nothing.
func TestReadDoesNotWrite(t *testing.T) {
	s := NewStore()
	s.Apply(1, put("a", "x"))
	for _, c := range []Command{put("a", "y"), del("a"), incr("a", 1), cas("a", ExpectValue, "x", "z")} {
		assert.Equal(t, Result{}, s.Read(c), "%v", c)
	}
	assert.Equal(t, Entry{Value: Value("x"), Found: true, Version: 1}, s.Get("a"))
	assert.Equal(t, Slot(1), s.LastApplied())
}

// A SCAN over an overlay merges the overlay's keys, and their deletions,
// with the store's, in key order.
func TestReadOverOverlay(t *testing.T) {
	s := NewStore()
	s.Apply(1, put("a", "a"))
	s.Apply(2, put("c", "c"))
	over := mapOverlay{"b": {Value: Value("B"), Found: true, Version: 3}, "c": {Version: 4}, "d": {Value: Value("D"), Found: true, Version: 5}}
	r := s.ReadOver(scan("", "", 10), over)
	assert.Equal(t, []Item{{Key: "a", Value: Value("a"), Found: true, Version: 1}, {Key: "b", Value: Value("B"), Found: true, Version: 3},
		{Key: "d", Value: Value("D"), Found: true, Version: 5}}, r.Items)
	assert.Equal(t, Result{Version: 4}, s.ReadOver(get("c"), over))
	assert.Equal(t, Result{Items: []Item{{Key: "b", Value: Value("B"), Found: true, Version: 3}}, More: true, Version: 3},
		s.ReadOver(scan("b", "", 1), over))
}
