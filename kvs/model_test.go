package kvs

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
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

// keySpace is small so that random commands collide often; it has keys
// that are prefixes of others, a zero byte and a 0xff byte, so that
// bytewise order and range ends are exercised.
var keySpace = []Key{"a", "ab", "abc", "b", "b\x00", "b\x01", "c", "k1", "k10", "k2", "\xff", "\xff\xff"}

// gen draws random valid commands over keySpace.
type gen struct {
	r *rand.Rand
	n int // values drawn so far, to make PUT values distinct
}

func newGen(seed uint64) *gen { return &gen{r: rand.New(rand.NewPCG(seed, 0x6b7673))} }

func (g *gen) key() Key { return keySpace[g.r.IntN(len(keySpace))] }

// bound is a SCAN bound: a key of the space, one between two keys, or
// none ("").
func (g *gen) bound() Key {
	switch g.r.IntN(5) {
	case 0:
		return ""
	case 1:
		return g.key() + "\x00"
	}
	return g.key()
}

func (g *gen) value() Value {
	g.n++
	switch g.r.IntN(6) {
	case 0:
		return Value{} // empty, which is not absent
	case 1:
		return Value(strconv.Itoa(g.r.IntN(7) - 3)) // a counter
	case 2:
		return Value(strconv.FormatInt(math.MaxInt64-int64(g.r.IntN(3)), 10))
	}
	return Value("v" + strconv.Itoa(g.n))
}

// command draws a command; st, when given, lets CAS expect what a key
// holds now often enough for CAS to apply.
func (g *gen) command(st func(Key) Entry) Command {
	switch x := g.r.IntN(24); {
	case x < 6:
		return Command{Op: OpPut, Key: g.key(), Value: g.value()}
	case x < 8:
		return Command{Op: OpDelete, Key: g.key()}
	case x < 12:
		return Command{Op: OpGet, Key: g.key()}
	case x < 16:
		start, end := g.bound(), g.bound()
		if end != "" && end < start {
			start, end = end, start
		}
		limit := int64(1 + g.r.IntN(4))
		if g.r.IntN(5) == 0 {
			limit = MaxScanLimit
		}
		return Command{Op: OpScan, Key: start, End: end, Limit: limit}
	case x < 20:
		c := Command{Op: OpCAS, Key: g.key(), Expect: Expect(1 + g.r.IntN(3))}
		now := Entry{}
		if st != nil && g.r.IntN(2) == 0 {
			now = st(c.Key)
		}
		switch c.Expect {
		case ExpectValue:
			c.ExpectValue = now.Value
			if len(c.ExpectValue) == 0 {
				c.ExpectValue = g.value()
			}
		case ExpectVersion:
			c.ExpectVersion = now.Version
		}
		if g.r.IntN(3) == 0 {
			c.Delete = true
		} else {
			c.Value = g.value()
		}
		return c
	case x < 23:
		deltas := []int64{1, -1, 5, math.MaxInt64, math.MinInt64, 0}
		return Command{Op: OpIncr, Key: g.key(), Delta: deltas[g.r.IntN(len(deltas))]}
	}
	return Command{Op: OpNoop}
}

// model is the naive specification: every key's entry in a plain map, a
// SCAN found by sorting the keys and testing each for membership.
type model struct{ m map[Key]Entry }

func newModel() *model { return &model{m: map[Key]Entry{}} }

func inRange(k Key, c Command) bool { return k >= c.Key && (c.End == "" || k < c.End) }

func (m *model) apply(slot Slot, c Command) Result {
	e := m.m[c.Key]
	set := func(v Value, found bool) {
		m.m[c.Key] = Entry{Value: slices.Clone(v), Found: found, Version: slot}
	}
	switch c.Op {
	case OpGet:
		return Result{Value: e.Value, Found: e.Found, Version: e.Version}
	case OpPut:
		set(c.Value, true)
		return Result{Version: slot}
	case OpDelete:
		set(nil, false)
		return Result{Found: e.Found, Version: slot}
	case OpCAS:
		ok := c.Expect == ExpectAbsent && !e.Found ||
			c.Expect == ExpectValue && e.Found && bytes.Equal(e.Value, c.ExpectValue) ||
			c.Expect == ExpectVersion && e.Version == c.ExpectVersion
		if !ok {
			return Result{Value: e.Value, Found: e.Found, Version: e.Version}
		}
		if c.Delete {
			set(nil, false)
			return Result{Applied: true, Version: slot}
		}
		set(c.Value, true)
		return Result{Applied: true, Value: c.Value, Found: true, Version: slot}
	case OpIncr:
		var n int64
		if e.Found {
			var err error
			if n, err = strconv.ParseInt(string(e.Value), 10, 64); err != nil {
				return Result{Value: e.Value, Found: true, Version: e.Version, Err: ErrNotInteger}
			}
		}
		sum := n + c.Delta
		if (c.Delta > 0) != (sum > n) && c.Delta != 0 {
			return Result{Value: e.Value, Found: e.Found, Version: e.Version, Err: ErrOverflow}
		}
		set(Value(strconv.FormatInt(sum, 10)), true)
		return Result{Value: Value(strconv.FormatInt(sum, 10)), Found: true, Version: slot}
	case OpScan:
		var keys []Key
		for k, e := range m.m {
			if e.Found && inRange(k, c) {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		var r Result
		for i, k := range keys {
			if int64(i) == c.Limit {
				r.More = true
				break
			}
			e := m.m[k]
			r.Items = append(r.Items, Item{Key: k, Value: e.Value, Found: true, Version: e.Version})
			r.Version = max(r.Version, e.Version)
		}
		return r
	}
	return Result{}
}

// resultDiff describes how two results differ ("" if they do not): values
// are compared as bytes, so an empty value and a nil one are the same
// bytes, and Found tells absent from empty.
func resultDiff(want, got Result) string {
	same := string(want.Value) == string(got.Value) && want.Found == got.Found && want.Version == got.Version &&
		want.More == got.More && want.Applied == got.Applied && want.Err == got.Err && len(want.Items) == len(got.Items)
	for i := 0; same && i < len(want.Items); i++ {
		a, b := want.Items[i], got.Items[i]
		same = a.Key == b.Key && string(a.Value) == string(b.Value) && a.Found == b.Found && a.Version == b.Version
	}
	if same {
		return ""
	}
	return fmt.Sprintf("want %+v, got %+v", want, got)
}

// stateDiff compares every key of the key space and the counters, and
// describes the first difference ("" if none).
func stateDiff(s *Store, m *model, last Slot) string {
	present := 0
	for _, k := range keySpace {
		e, me := s.Get(k), m.m[k]
		if string(e.Value) != string(me.Value) || e.Found != me.Found || e.Version != me.Version {
			return fmt.Sprintf("key %q: store %+v, model %+v", k, e, me)
		}
		if me.Found {
			present++
		}
	}
	if s.Len() != present || s.Keys() != len(m.m) {
		return fmt.Sprintf("Len %d Keys %d, model %d and %d", s.Len(), s.Keys(), present, len(m.m))
	}
	if s.LastApplied() != last {
		return fmt.Sprintf("LastApplied: store %d, want %d", s.LastApplied(), last)
	}
	return ""
}

func TestStoreMatchesModel(t *testing.T) {
	const steps = 80
	for _, seed := range seeds(3000) {
		g := newGen(seed)
		s, m := NewStore(), newModel()
		var slot Slot
		for step := range steps {
			c := g.command(s.Get)
			require.NoError(t, c.Validate(DefaultLimits), "seed %d: generator made an invalid command", seed)
			if c.IsRead() {
				want := m.apply(slot, c)
				require.Empty(t, resultDiff(want, s.Read(c)), "seed %d step %d: Read(%v)", seed, step, c)
			}
			slot += Slot(1 + g.r.IntN(3))
			want := m.apply(slot, c)
			require.Empty(t, resultDiff(want, s.Apply(slot, c)), "seed %d step %d: Apply(%d, %v)", seed, step, slot, c)
			require.Empty(t, stateDiff(s, m, slot), "seed %d step %d after %v", seed, step, c)
		}
	}
}

// mapOverlay is an Overlay over a plain map, ranged by sorting.
type mapOverlay map[Key]Entry

func (o mapOverlay) Lookup(k Key) (Entry, bool) { e, ok := o[k]; return e, ok }

func (o mapOverlay) Range(start, end Key, yield func(Key, Entry) bool) {
	keys := make([]Key, 0, len(o))
	for k := range o {
		if k >= start && (end == "" || k < end) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !yield(k, o[k]) {
			return
		}
	}
}

// The leader's speculation (PROTOCOL.md 3.5): evaluating the commands of a
// log prefix against the applied store shadowed by an overlay of the
// prefix's earlier writes gives the results that applying them gives.
func TestEvalOverOverlayMatchesApply(t *testing.T) {
	for _, seed := range seeds(2000) {
		g := newGen(seed)
		applied, full := NewStore(), NewStore()
		var slot Slot
		for range g.r.IntN(30) {
			c := g.command(full.Get)
			slot++
			applied.Apply(slot, c)
			full.Apply(slot, c)
		}
		over := mapOverlay{}
		for step := range 30 {
			c := g.command(full.Get)
			slot++
			res, w, ok := applied.Eval(slot, c, over)
			if ok {
				over[w.Key] = Entry{Value: slices.Clone(w.Value), Found: w.Found, Version: w.Version}
			}
			require.Empty(t, resultDiff(full.Apply(slot, c), res), "seed %d step %d: Eval(%v) over the prefix", seed, step, c)
		}
	}
}
