package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// A run's keys are fmt's %0*d at the width of its largest number, and
// sort as the numbers do.
func TestKeys(t *testing.T) {
	for _, c := range []struct {
		space, hot int64
		width      int
		bound      int64
	}{
		{1_000_000, 0, 7, 1_000_000}, {999_999, 0, 6, 999_999}, {10, 0, 2, 10}, {1, 0, 1, 1},
		{1000, 5000, 4, 5001}, {1000, 9999, 5, 10_000}, {1, math.MaxInt64, 19, math.MaxInt64},
		{0, 0, 19, math.MaxInt64}, {0, 1 << 50, 19, math.MaxInt64}, {-1, -1, 19, math.MaxInt64},
	} {
		k := NewKeys(c.space, c.hot)
		require.Equal(t, c.width, k.Width(), "%+v", c)
		require.Equal(t, c.width+1, k.CounterWidth(), "%+v", c)
		require.Equal(t, c.bound, k.Bound(), "%+v", c)
		for _, i := range []int64{0, 1, 7, c.bound / 2, c.bound - 1, c.bound} {
			assert.Equal(t, kvs.Key(fmt.Sprintf("%0*d", c.width, i)), k.Of(i), "%+v: %d", c, i)
			assert.Len(t, string(k.Of(i)), c.width, "%+v: %d", c, i)
		}
	}
	k := NewKeys(1_000_000, 0)
	assert.Equal(t, kvs.Key("0000042"), k.Of(42))
	assert.Equal(t, "c"+k.Of(7), k.Counter(7))
	// Numbers no run draws keep fmt's form: never another number's key.
	assert.Equal(t, kvs.Key("-000001"), k.Of(-1))
	assert.Equal(t, kvs.Key("12345678"), k.Of(12_345_678))
	assert.Equal(t, k.Of(1_000_000), k.ScanEnd(999_990, 50), "a range past the end stops at the bound")
	assert.Equal(t, k.Of(1050), k.ScanEnd(1000, 50))
	p := NewKeys(0, 0)
	assert.Equal(t, p.Of(math.MaxInt64), p.ScanEnd(math.MaxInt64-3, 10), "no overflow")
	nums := []int64{9, 10, 0, 1 << 40, 99, 100, 1, math.MaxInt64}
	keys := make([]string, len(nums))
	for i, n := range nums {
		keys[i] = string(p.Of(n))
	}
	sort.Strings(keys)
	sort.Slice(nums, func(a, b int) bool { return nums[a] < nums[b] })
	for i, n := range nums {
		assert.Equal(t, string(p.Of(n)), keys[i])
	}
}

// refNext is the operation mix as it was drawn before DELETE, CAS and
// INCR existed (PROTOCOL.md 8.2), on a generator's own random source: a
// workload without deletes and rmw must draw exactly these operations.
type refGen struct {
	p   WorkloadParams
	rng *rand.Rand
	log float64
}

func newRef(p WorkloadParams, seed uint64) *refGen {
	r := &refGen{p: p, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	for range p.CommandSize { // the thread's random value
		r.rng.Uint32()
	}
	r.log = math.Log(float64(p.ScanCount) + 1)
	return r
}

func (r *refGen) next() (wire.Level, kvs.Op, int64, int64) {
	var level wire.Level
	var op kvs.Op
	var count int64
	if percent(r.rng, r.p.WeakRatio) {
		level = wire.Weak
		switch {
		case percent(r.rng, r.p.WeakWrites):
			op = kvs.OpPut
		case percent(r.rng, r.p.ScanRatio):
			op = kvs.OpScan
			count = min(max(int64(math.Exp(r.rng.Float64()*r.log)), 1), int64(r.p.ScanCount))
		default:
			op = kvs.OpGet
		}
	} else {
		level, op = wire.Strong, kvs.OpGet
		if percent(r.rng, r.p.Writes) {
			op = kvs.OpPut
		}
	}
	key := r.p.HotKey
	if !percent(r.rng, r.p.Conflicts) {
		key = r.rng.Int64N(r.p.KeySpace)
	}
	return level, op, key, count
}

func TestDefaultMixIsUnchanged(t *testing.T) {
	p := WorkloadParams{WeakRatio: 50, WeakWrites: 50, Writes: 30, Conflicts: 5, HotKey: 7, KeySpace: 1000,
		ScanRatio: 20, ScanCount: 50, CommandSize: 16}
	g, ref := newGen(t, p, 0, 99), newRef(p, 99)
	for i := range 20_000 {
		op := g.Next()
		level, kind, key, count := ref.next()
		require.Equal(t, level, op.Level, "op %d", i)
		require.Equal(t, kind, op.Command.Op, "op %d", i)
		require.Equal(t, g.w.keys.Of(key), op.Command.Key, "op %d", i)
		if kind == kvs.OpScan {
			require.Equal(t, count, op.Command.Limit, "op %d", i)
		}
	}
}

// deletes is a share of the writes at both levels, rmw of the strong
// operations, CAS and INCR half each; INCRs go to counter keys.
func TestDeletesAndRMWShares(t *testing.T) {
	const n = 200_000
	p := WorkloadParams{WeakRatio: 50, WeakWrites: 40, Writes: 40, Deletes: 25, RMW: 20, KeySpace: 1 << 30, HotKey: 1 << 40, CommandSize: 8}
	g := newGen(t, p, 0, 5)
	var m mix
	writes := 0
	for range n {
		op := g.Next()
		c := op.Command
		require.NoError(t, op.Validate(kvs.DefaultLimits), "%v", op)
		switch c.Op {
		case kvs.OpPut:
			writes++
		case kvs.OpDelete:
			writes++
			m.deletes++
		case kvs.OpCAS:
			m.cas++
			require.Equal(t, wire.Strong, op.Level)
			require.Len(t, string(c.Key), g.w.keys.Width())
		case kvs.OpIncr:
			m.incr++
			require.Equal(t, wire.Strong, op.Level)
			require.Equal(t, kvs.Key("c"), c.Key[:1], "%q", c.Key)
			require.Equal(t, int64(1), c.Delta)
		}
		if op.Level == wire.Strong {
			m.strong++
		}
	}
	assert.InDelta(t, 0.25, share(m.deletes, writes), 0.01, "deletes")
	assert.InDelta(t, 0.20, share(m.cas+m.incr, m.strong), 0.01, "rmw")
	assert.InDelta(t, 0.5, share(m.cas, m.cas+m.incr), 0.02, "CAS against INCR")
}

// A CAS expects the value of the thread's latest write (absent before its
// first), or one in four a key never written (version 0), and writes a new
// value, or one in four deletes; in checker mode every value stays unique.
func TestCASExpectsTheThreadsLastValue(t *testing.T) {
	g := newGen(t, WorkloadParams{Writes: 50, RMW: 50, KeySpace: 10, CommandSize: 4, Unique: true}, 0, 3)
	var last kvs.Value
	seen := map[string]bool{}
	var byVersion, deletes, cases int
	for range 2000 {
		c := g.Next().Command
		switch c.Op {
		case kvs.OpCAS:
			cases++
			switch {
			case c.Expect == kvs.ExpectVersion:
				byVersion++
				assert.Zero(t, c.ExpectVersion)
			case last == nil:
				assert.Equal(t, kvs.ExpectAbsent, c.Expect)
			default:
				assert.Equal(t, kvs.ExpectValue, c.Expect)
				assert.Equal(t, last, c.ExpectValue)
			}
			if c.Delete {
				deletes++
				assert.Empty(t, c.Value)
				continue
			}
			fallthrough
		case kvs.OpPut:
			require.False(t, seen[string(c.Value)], "value %q written twice", c.Value)
			seen[string(c.Value)] = true
			last = c.Value
		}
	}
	assert.InDelta(t, 0.25, float64(byVersion)/float64(cases), 0.05, "version expectations")
	assert.InDelta(t, 0.25, float64(deletes)/float64(cases), 0.05, "deleting CASes")
	assert.NotNil(t, last)
}
