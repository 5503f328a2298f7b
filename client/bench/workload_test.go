package bench

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/client"
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

func newGen(t *testing.T, p WorkloadParams, thread int, seed uint64) *Generator {
	t.Helper()
	if p.CommandSize == 0 {
		p.CommandSize = 16
	}
	w, err := NewWorkload(p)
	require.NoError(t, err)
	return w.Generator(ThreadID{Alias: "client0", Thread: thread}, seed)
}

// mix counts what a generator draws.
type mix struct {
	n, weak, weakWrites, weakScans, weakReads, strong, strongWrites, hot int
	deletes, cas, incr                                                   int
}

func drawMix(g *Generator, n int, hot int64) mix {
	var m mix
	m.n = n
	for range n {
		op := g.Next()
		if op.Command.Key == g.w.keys.Of(hot) || op.Command.Key == g.w.keys.Counter(hot) {
			m.hot++
		}
		switch op.Command.Op {
		case kvs.OpDelete:
			m.deletes++
		case kvs.OpCAS:
			m.cas++
		case kvs.OpIncr:
			m.incr++
		}
		if op.Level == wire.Weak {
			m.weak++
			switch op.Command.Op {
			case kvs.OpPut, kvs.OpDelete:
				m.weakWrites++
			case kvs.OpScan:
				m.weakScans++
			default:
				m.weakReads++
			}
			continue
		}
		m.strong++
		if op.Command.Op == kvs.OpPut || op.Command.Op == kvs.OpDelete {
			m.strongWrites++
		}
	}
	return m
}

// number is the key number of a benchmark key of g's workload (Keys.Of).
func number(t *testing.T, g *Generator, k kvs.Key) int64 {
	t.Helper()
	require.Len(t, string(k), g.w.keys.Width(), "%q", k)
	n, err := strconv.ParseInt(string(k), 10, 64)
	require.NoError(t, err, "%q", k)
	return n
}

func share(a, b int) float64 { return float64(a) / float64(b) }

// TestPercentMeansPercent catches the reference's rand(100) <= p, which
// turns 1% into 2%.
func TestPercentMeansPercent(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 1_000_000
	for _, p := range []int{1, 5, 50, 99} {
		hits := 0
		for range n {
			if percent(rng, p) {
				hits++
			}
		}
		assert.InDelta(t, float64(p)/100, share(hits, n), 0.0015, "p=%d", p)
	}
}

func TestWorkloadShares(t *testing.T) {
	const n = 200_000
	// Far from 0 (no hot-key collisions with uniform keys in a big space).
	p := WorkloadParams{WeakRatio: 30, WeakWrites: 20, Writes: 5, Conflicts: 7, ScanRatio: 40, ScanCount: 100,
		HotKey: 1 << 50, KeySpace: 1 << 40}
	m := drawMix(newGen(t, p, 0, 42), n, 1<<50)
	assert.InDelta(t, 0.30, share(m.weak, n), 0.004, "weakRatio")
	assert.InDelta(t, 0.07, share(m.hot, n), 0.003, "conflicts")
	assert.InDelta(t, 0.20, share(m.weakWrites, m.weak), 0.01, "weakWrites")
	assert.InDelta(t, 0.40, share(m.weakScans, m.weak-m.weakWrites), 0.012, "scanRatio")
	assert.InDelta(t, 0.05, share(m.strongWrites, m.strong), 0.003, "writes")
}

func TestWorkloadExtremes(t *testing.T) {
	const n = 20_000
	cases := []struct {
		name  string
		p     WorkloadParams
		check func(t *testing.T, m mix)
	}{
		{"all strong reads", WorkloadParams{}, func(t *testing.T, m mix) {
			assert.Equal(t, n, m.strong)
			assert.Zero(t, m.strongWrites)
			assert.Zero(t, m.hot)
		}},
		{"all weak writes on the hot key", WorkloadParams{WeakRatio: 100, WeakWrites: 100, Conflicts: 100}, func(t *testing.T, m mix) {
			assert.Equal(t, n, m.weakWrites)
			assert.Equal(t, n, m.hot)
		}},
		{"all weak scans", WorkloadParams{WeakRatio: 100, ScanRatio: 100, ScanCount: 10}, func(t *testing.T, m mix) {
			assert.Equal(t, n, m.weakScans)
		}},
		{"weak reads, no scans", WorkloadParams{WeakRatio: 100, ScanCount: 10}, func(t *testing.T, m mix) {
			assert.Equal(t, n, m.weakReads)
		}},
		{"all strong writes", WorkloadParams{Writes: 100}, func(t *testing.T, m mix) {
			assert.Equal(t, n, m.strongWrites)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.p.HotKey, c.p.KeySpace = 5000, 1000
			c.check(t, drawMix(newGen(t, c.p, 0, 7), n, 5000))
		})
	}
}

func TestScanLengthLogUniform(t *testing.T) {
	const n, max = 200_000, 1000
	g := newGen(t, WorkloadParams{WeakRatio: 100, ScanRatio: 100, ScanCount: max, KeySpace: 10}, 0, 3)
	counts := map[int64]int{}
	for range n {
		op := g.Next()
		c := op.Command
		if c.Op != kvs.OpScan || c.Limit < 1 || c.Limit > max || op.Validate(kvs.DefaultLimits) != nil {
			t.Fatalf("bad scan %v", op)
		}
		// The range is the limit's key numbers from the start, cut at the
		// key space's end.
		require.Equal(t, min(number(t, g, c.Key)+c.Limit, 10), number(t, g, c.End), "%v", c)
		counts[c.Limit]++
	}
	// P(L = l) = ln((l+1)/l) / ln(max+1).
	for _, l := range []int64{1, 2, 10} {
		want := math.Log(float64(l+1)/float64(l)) / math.Log(max+1)
		assert.InDelta(t, want, share(counts[l], n), 0.004, "P(L=%d)", l)
	}
	// Half of the mass lies below sqrt(max+1) ≈ 31.6.
	below := 0
	for l, c := range counts {
		if l <= 30 {
			below += c
		}
	}
	assert.InDelta(t, math.Log(31)/math.Log(max+1), share(below, n), 0.006)
}

func TestUniformKeysCoverKeySpace(t *testing.T) {
	const keys, n = 50, 100_000
	g := newGen(t, WorkloadParams{KeySpace: keys, HotKey: 1 << 20}, 0, 9)
	counts := make([]int, keys)
	for range n {
		k := number(t, g, g.Next().Command.Key)
		if k < 0 || k >= keys {
			t.Fatalf("key %d out of range", k)
		}
		counts[k]++
	}
	for k, c := range counts {
		assert.InDelta(t, 1.0/keys, share(c, n), 0.003, "key %d", k)
	}
}

func TestPrivateKeysAreDisjointAndSequential(t *testing.T) {
	p := WorkloadParams{CommandSize: 8}
	w, err := NewWorkload(p)
	require.NoError(t, err)
	seen := map[int64]ThreadID{}
	for _, id := range []ThreadID{{"client0", 0, 0}, {"client0", 0, 1}, {"client1", 1, 0}} {
		g := w.Generator(id, 1)
		prev := int64(-1)
		for i := range 1000 {
			k := number(t, g, g.Next().Command.Key)
			if i > 0 {
				require.Equal(t, prev+1, k)
			}
			prev = k
			other, dup := seen[k]
			require.False(t, dup, "key %d of %v also used by %v", k, id, other)
			seen[k] = id
		}
	}
}

func TestValues(t *testing.T) {
	t.Run("size", func(t *testing.T) {
		g := newGen(t, WorkloadParams{Writes: 100, KeySpace: 10, CommandSize: 100}, 0, 1)
		first := g.Next().Command.Value
		require.Len(t, first, 100)
		assert.Len(t, g.Next().Command.Value, 100)
	})
	t.Run("unique in checker mode", func(t *testing.T) {
		w, err := NewWorkload(WorkloadParams{WeakRatio: 50, WeakWrites: 100, Writes: 100, KeySpace: 10, CommandSize: 40, Unique: true})
		require.NoError(t, err)
		seen := map[string]bool{}
		for _, id := range []ThreadID{{"client0", 0, 0}, {"client0", 0, 1}, {"client1", 1, 0}} {
			g := w.Generator(id, 5) // same seed on purpose
			for range 5000 {
				v := g.Next().Command.Value
				require.Len(t, v, 40)
				require.False(t, seen[string(v)], "value %q written twice", v)
				seen[string(v)] = true
				require.True(t, strings.HasPrefix(string(v), id.Alias+"/"), "%q", v)
			}
		}
	})
	t.Run("unique beats a too small commandSize", func(t *testing.T) {
		g := newGen(t, WorkloadParams{Writes: 100, KeySpace: 10, CommandSize: 2, Unique: true}, 3, 1)
		a, b := g.Next().Command.Value, g.Next().Command.Value
		assert.Equal(t, "client0/3/1", string(a))
		assert.NotEqual(t, a, b)
	})
	t.Run("random when not unique", func(t *testing.T) {
		g := newGen(t, WorkloadParams{Writes: 100, KeySpace: 10, CommandSize: 64}, 0, 1)
		assert.NotEqual(t, bytes.Repeat([]byte{0}, 64), []byte(g.Next().Command.Value))
	})
}

func TestWarmUpIsStrongRead(t *testing.T) {
	g := newGen(t, WorkloadParams{WeakRatio: 100, KeySpace: 10, HotKey: 3}, 0, 1)
	assert.Equal(t, client.Op{Level: wire.Strong, Command: kvs.Command{Op: kvs.OpGet, Key: "03"}}, g.WarmUp())
}

func TestSameSeedSameOperations(t *testing.T) {
	p := WorkloadParams{WeakRatio: 50, WeakWrites: 50, Writes: 50, Conflicts: 10, KeySpace: 1000, ZipfSkew: 0.99}
	a, b := newGen(t, p, 0, 11), newGen(t, p, 0, 11)
	for range 1000 {
		require.Equal(t, a.Next(), b.Next())
	}
}

func TestNewWorkloadRejects(t *testing.T) {
	cases := []struct {
		p    WorkloadParams
		want string
	}{
		{WorkloadParams{WeakRatio: 101, CommandSize: 1}, "weakRatio: 101"},
		{WorkloadParams{Conflicts: -1, CommandSize: 1}, "conflicts: -1"},
		{WorkloadParams{CommandSize: 0}, "commandSize: 0"},
		{WorkloadParams{CommandSize: 1, ScanRatio: 10}, "scanCount: 0"},
		{WorkloadParams{CommandSize: 1, ScanRatio: 10, ScanCount: kvs.MaxScanLimit + 1}, "scanCount: 10001"},
		{WorkloadParams{CommandSize: 1, HotKey: -1}, "key: -1 is negative"},
		{WorkloadParams{CommandSize: 1, Deletes: 101}, "deletes: 101"},
		{WorkloadParams{CommandSize: 1, RMW: -1}, "rmw: -1"},
		{WorkloadParams{CommandSize: 9, Limits: kvs.Limits{MaxKey: 64, MaxValue: 8}}, "commandSize: 9 is not in [1, 8] (maxValueBytes)"},
		{WorkloadParams{CommandSize: 1, KeySpace: 1000, Limits: kvs.Limits{MaxKey: 4, MaxValue: 8}}, "maxKeyBytes: 4 is shorter than the benchmark's keys (5 bytes)"},
		{WorkloadParams{CommandSize: 1, Limits: kvs.Limits{MaxKey: 19, MaxValue: 8}}, "maxKeyBytes: 19 is shorter than the benchmark's keys (20 bytes)"},
		{WorkloadParams{CommandSize: 1, KeySpace: MaxZipfKeys + 1, ZipfSkew: 1}, "key space"},
	}
	for _, c := range cases {
		_, err := NewWorkload(c.p)
		require.Error(t, err, "%+v", c.p)
		assert.Contains(t, err.Error(), c.want)
	}
}
