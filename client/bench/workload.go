package bench

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"swiftpaxos/client"
	"swiftpaxos/config"
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// WorkloadParams are the knobs of the benchmark's operation mix
// (PROTOCOL.md 8.2). Percentages are integers in [0, 100]: 0 means never,
// 100 means always.
type WorkloadParams struct {
	WeakRatio  int     // % of operations that are weak
	WeakWrites int     // % of weak operations that are writes
	Writes     int     // % of strong operations that are writes
	Conflicts  int     // % of operations on the hot key
	HotKey     int64   // the hot ("conflict") key's number
	KeySpace   int64   // key numbers are drawn from [0, KeySpace); 0: private sequential keys per thread
	ZipfSkew   float64 // Zipf exponent; < MinZipfSkew means uniform
	ScanRatio  int     // % of weak reads issued as SCAN
	// StrongScanRatio is the % of strong reads issued as SCAN.
	StrongScanRatio int
	ScanCount       int // maximum SCAN limit (and range length, in key numbers)
	CommandSize     int // bytes per written value
	Deletes         int // % of writes (PUT or DELETE, either level) issued as DELETE
	RMW             int // % of strong operations issued as CAS or INCR, half each
	// Limits are the bounds on keys and values the cluster takes
	// (maxKeyBytes, maxValueBytes): CommandSize must fit.
	Limits kvs.Limits
	// Unique makes every written value unique in the run (checker mode,
	// PROTOCOL.md 2.6): it embeds alias, thread and a per-thread sequence
	// number, padded to CommandSize.
	Unique bool
}

// MinZipfSkew is the smallest exponent that selects the Zipf distribution;
// below it keys are uniform (PROTOCOL.md 7.2).
const MinZipfSkew = 0.01

// MaxZipfKeys bounds KeySpace under a Zipf distribution: the shared alias
// table costs 8 bytes per key (512 MiB at this bound).
const MaxZipfKeys = 1 << 26

// WorkloadParamsFrom takes the workload knobs from a process's settings.
func WorkloadParamsFrom(p *config.Params) WorkloadParams {
	return WorkloadParams{
		WeakRatio: p.WeakRatio, WeakWrites: p.WeakWrites, Writes: p.Writes, Conflicts: p.Conflicts,
		HotKey: p.Key, KeySpace: p.KeySpace, ZipfSkew: p.ZipfSkew,
		ScanRatio: p.ScanRatio, StrongScanRatio: p.StrongScanRatio, ScanCount: p.ScanCount, CommandSize: p.CommandSize,
		Deletes: p.Deletes, RMW: p.RMW, Limits: p.Limits(), Unique: p.CheckerMode,
	}
}

// Workload is what every benchmark thread of a process shares: the
// parameters and the read-only Zipf table. It is safe for concurrent use;
// each thread draws operations from its own Generator.
type Workload struct {
	p    WorkloadParams
	zipf *ZipfTable // nil unless keys are Zipf-distributed
	keys Keys
	// hot holds keys.Of(i) for the first numbers of a Zipf distribution,
	// the most drawn (keyOf).
	hot []kvs.Key
}

// hotKeys is how many keys Workload.hot holds: 160 KiB, for three draws
// in five at exponent 0.99 over a million keys.
const hotKeys = 4096

// NewWorkload checks p and builds the shared key table it needs.
func NewWorkload(p WorkloadParams) (*Workload, error) {
	var errs []error
	for _, c := range []struct {
		name string
		v    int
	}{{"weakRatio", p.WeakRatio}, {"weakWrites", p.WeakWrites}, {"writes", p.Writes},
		{"conflicts", p.Conflicts}, {"scanRatio", p.ScanRatio}, {"strongScanRatio", p.StrongScanRatio}, {"deletes", p.Deletes}, {"rmw", p.RMW}} {
		if c.v < 0 || c.v > 100 {
			errs = append(errs, fmt.Errorf("%s: %d is not a percentage in [0, 100]", c.name, c.v))
		}
	}
	if p.KeySpace < 0 {
		errs = append(errs, fmt.Errorf("keySpace: %d is negative", p.KeySpace))
	}
	if p.HotKey < 0 {
		errs = append(errs, fmt.Errorf("key: %d is negative (a key number, 0 or more)", p.HotKey))
	}
	if p.Limits == (kvs.Limits{}) {
		p.Limits = kvs.DefaultLimits
	}
	keys := NewKeys(p.KeySpace, p.HotKey)
	if p.Limits.MaxKey < keys.CounterWidth() {
		errs = append(errs, fmt.Errorf("maxKeyBytes: %d is shorter than the benchmark's keys (%d bytes)", p.Limits.MaxKey, keys.CounterWidth()))
	}
	if p.ZipfSkew < 0 || math.IsNaN(p.ZipfSkew) || math.IsInf(p.ZipfSkew, 0) {
		errs = append(errs, fmt.Errorf("zipfSkew: %v is not a non-negative number", p.ZipfSkew))
	}
	if p.CommandSize < 1 || p.CommandSize > p.Limits.MaxValue {
		errs = append(errs, fmt.Errorf("commandSize: %d is not in [1, %d] (maxValueBytes)", p.CommandSize, p.Limits.MaxValue))
	}
	if (p.ScanRatio > 0 || p.StrongScanRatio > 0) && (p.ScanCount < 1 || p.ScanCount > kvs.MaxScanLimit) {
		errs = append(errs, fmt.Errorf("scanCount: %d is not in [1, %d] (scanRatio is %d, strongScanRatio %d)", p.ScanCount, kvs.MaxScanLimit, p.ScanRatio, p.StrongScanRatio))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("workload: %w", err)
	}
	w := &Workload{p: p, keys: keys}
	if p.KeySpace > 0 && p.ZipfSkew >= MinZipfSkew {
		t, err := NewZipfTable(p.KeySpace, p.ZipfSkew)
		if err != nil {
			return nil, fmt.Errorf("workload: %w", err)
		}
		w.zipf = t
		w.hot = make([]kvs.Key, min(p.KeySpace, hotKeys))
		for i := range w.hot {
			w.hot[i] = keys.Of(int64(i))
		}
	}
	return w, nil
}

// keyOf is w.keys.Of(n), from the table of hot keys when it holds n: a key
// made anew is an allocation, on every operation of the benchmark.
func (w *Workload) keyOf(n int64) kvs.Key {
	if n >= 0 && n < int64(len(w.hot)) {
		return w.hot[n]
	}
	return w.keys.Of(n)
}

// Params returns the workload's parameters.
func (w *Workload) Params() WorkloadParams { return w.p }

// ThreadID names one benchmark thread: the client process's alias, its
// index among the configuration's clients, and the thread's index in it.
type ThreadID struct {
	Alias   string
	Process int
	Thread  int
}

// privateKeyBase is the first private key of a thread when KeySpace is 0:
// each thread owns 2^32 consecutive keys, disjoint across the threads and
// processes of a run (up to 2^19 processes of 2^12 threads).
func privateKeyBase(id ThreadID) int64 {
	return int64(id.Process+1)<<44 | int64(id.Thread&(1<<12-1))<<32
}

// Generator draws the operations of one thread. It is not safe for
// concurrent use.
type Generator struct {
	w       *Workload
	id      ThreadID
	rng     *rand.Rand
	keys    keySource
	value   kvs.Value // the thread's value when values need not be unique
	prefix  string    // "alias/thread/" for unique values
	written uint64    // unique values produced so far
	last    kvs.Value // the value of the thread's latest write (a CAS expects it)
	logScan float64   // ln(ScanCount+1)
}

// Generator returns the operation source of thread id, seeded with seed.
func (w *Workload) Generator(id ThreadID, seed uint64) *Generator {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	g := &Generator{w: w, id: id, rng: rng, prefix: id.Alias + "/" + strconv.Itoa(id.Thread) + "/"}
	switch {
	case w.p.KeySpace == 0:
		g.keys = &privateKeys{cur: privateKeyBase(id)}
	case w.zipf != nil:
		g.keys = zipfKeys{w.zipf}
	default:
		g.keys = uniformKeys{w.p.KeySpace}
	}
	if !w.p.Unique {
		// The reference reuses one random value per thread; the session
		// keeps written values in its cache, so the slice is never mutated.
		g.value = make(kvs.Value, w.p.CommandSize)
		for i := range g.value {
			g.value[i] = byte(rng.Uint32())
		}
	}
	if w.p.ScanCount > 0 {
		g.logScan = math.Log(float64(w.p.ScanCount) + 1)
	}
	return g
}

// percent is true with probability p%: rand(100) < p, so 0 never and 100
// always (PROTOCOL.md 8.2 corrects the reference's <=).
func percent(rng *rand.Rand, p int) bool { return rng.IntN(100) < p }

// WarmUp is operation 0 of a thread: a strong read of the hot key, which
// also establishes reply routing at the replicas (PROTOCOL.md 8.1).
func (g *Generator) WarmUp() client.Op {
	return client.Op{Level: wire.Strong, Command: kvs.Command{Op: kvs.OpGet, Key: g.w.keys.Of(g.w.p.HotKey)}}
}

// Next draws the next operation (PROTOCOL.md 8.2). DELETEs and the CAS
// and INCR of rmw draw from the generator only when their share is set,
// so that a workload without them draws exactly the operations it drew
// before they existed.
func (g *Generator) Next() client.Op {
	p := &g.w.p
	var op client.Op
	if percent(g.rng, p.WeakRatio) {
		op.Level = wire.Weak
		switch {
		case percent(g.rng, p.WeakWrites):
			op.Command.Op = g.write()
		case percent(g.rng, p.ScanRatio):
			op.Command.Op = kvs.OpScan
			op.Command.Limit = g.scanLength()
		default:
			op.Command.Op = kvs.OpGet
		}
	} else {
		op.Level = wire.Strong
		switch {
		case p.RMW > 0 && percent(g.rng, p.RMW):
			op.Command.Op = kvs.OpCAS
			if g.rng.IntN(2) == 0 {
				op.Command.Op = kvs.OpIncr
			}
		case percent(g.rng, p.Writes):
			op.Command.Op = g.write()
		case p.StrongScanRatio > 0 && percent(g.rng, p.StrongScanRatio):
			op.Command.Op = kvs.OpScan
			op.Command.Limit = g.scanLength()
		default:
			op.Command.Op = kvs.OpGet
		}
	}
	n := p.HotKey
	if !percent(g.rng, p.Conflicts) {
		n = g.keys.next(g.rng)
	}
	c := &op.Command
	switch c.Op {
	case kvs.OpIncr:
		c.Key, c.Delta = g.w.keys.Counter(n), 1
		return op
	case kvs.OpScan:
		c.Key, c.End = g.w.keys.Of(n), g.w.keys.ScanEnd(n, c.Limit)
		return op
	}
	c.Key = g.w.keyOf(n)
	switch c.Op {
	case kvs.OpPut:
		c.Value = g.nextValue()
	case kvs.OpCAS:
		// Compare with the thread's latest written value, which another
		// thread's write to the key since (or none yet) makes fail; one
		// CAS in four expects instead a key never written (version 0),
		// and one in four deletes the key rather than writing it.
		c.Expect, c.ExpectValue = kvs.ExpectValue, g.last
		if g.last == nil {
			c.Expect = kvs.ExpectAbsent
		}
		if g.rng.IntN(4) == 0 {
			c.Expect, c.ExpectValue = kvs.ExpectVersion, nil
		}
		if g.rng.IntN(4) == 0 {
			c.Delete = true
		} else {
			c.Value = g.nextValue()
		}
	}
	return op
}

// write draws the operation of a write: a PUT, or a DELETE for the
// deletes share.
func (g *Generator) write() kvs.Op {
	if g.w.p.Deletes > 0 && percent(g.rng, g.w.p.Deletes) {
		return kvs.OpDelete
	}
	return kvs.OpPut
}

// scanLength draws a SCAN's limit log-uniformly from [1, ScanCount]:
// P(L = l) = ln((l+1)/l) / ln(ScanCount+1). The SCAN covers the key
// numbers [k, k+L): at most L keys, so the limit never cuts it.
func (g *Generator) scanLength() int64 {
	l := int64(math.Exp(g.rng.Float64() * g.logScan))
	return min(max(l, 1), int64(g.w.p.ScanCount))
}

// nextValue returns the value of the next write: the thread's value, or a
// unique one "alias/thread/n" padded with '.' to CommandSize. A unique
// value longer than CommandSize is kept whole: uniqueness wins.
func (g *Generator) nextValue() kvs.Value {
	if !g.w.p.Unique {
		g.last = g.value
		return g.value
	}
	g.written++
	v := make(kvs.Value, 0, max(g.w.p.CommandSize, len(g.prefix)+20))
	v = append(v, g.prefix...)
	v = strconv.AppendUint(v, g.written, 10)
	for len(v) < g.w.p.CommandSize {
		v = append(v, '.')
	}
	g.last = v
	return v
}

// keySource draws the numbers of keys that are not the hot key.
type keySource interface {
	next(rng *rand.Rand) int64
}

type uniformKeys struct{ n int64 }

func (u uniformKeys) next(rng *rand.Rand) int64 { return rng.Int64N(u.n) }

type zipfKeys struct{ t *ZipfTable }

func (z zipfKeys) next(rng *rand.Rand) int64 { return z.t.Key(rng.Uint64()) }

// privateKeys is a thread's own sequence of keys (KeySpace 0): no other
// thread touches them, so there is no contention (PROTOCOL.md 7.2).
type privateKeys struct{ cur int64 }

func (p *privateKeys) next(*rand.Rand) int64 {
	k := p.cur
	p.cur++
	return k
}
