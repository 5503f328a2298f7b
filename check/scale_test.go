package check

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
	"swiftpaxos/wire/applog"
)

// genParams shapes a synthetic history.
type genParams struct {
	ops, sessions, keys, hotKeys int
	hotShare                     float64 // share of operations on the hot keys
	scanShare                    float64 // share of reads that are SCANs (limit 1 to 4, to the next key or unbounded)
	deleteShare                  float64 // share of writes to cold keys that are DELETEs
	rmwShare                     float64 // share of strong operations that are a CAS or an INCR of a counter key
	counters                     int     // counter keys, apart from the others ("c0", "c1", ...)
}

// genHistory simulates a correct store (kvs.Store): every operation takes
// effect at one instant inside its [invoke, return] window, operations
// are applied in the order of those instants, and the applied log lists
// them in that order (writes of both levels, and strong reads). Sessions
// issue operations one after another, some pipelined (the next invoked
// before the previous returned). A few operations never complete; half of
// those still take effect. Records are filled by Record, as a client
// fills them. The result is correct as a whole, so every rule must pass.
func genHistory(seed uint64, p genParams) ([]Op, map[string][]LogEntry) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	type event struct {
		at      int64 // the instant the operation takes effect
		op      int
		applied bool
	}
	h := make([]Op, 0, p.ops)
	cmds := make([]kvs.Command, 0, p.ops)
	events := make([]event, 0, p.ops)
	perSession := p.ops / p.sessions
	for s := range p.sessions {
		session := SessionID(fmt.Sprintf("s%03d", s))
		pipelined := s%4 == 0
		t := rng.Int64N(1000)
		for seq := 1; seq <= perSession; seq++ {
			hot := rng.Float64() < p.hotShare
			k := key(p.hotKeys + rng.IntN(max(p.keys, 1)))
			if hot {
				k = key(rng.IntN(p.hotKeys))
			}
			o := Op{Session: session, Seq: wire.Seq(seq), Level: Weak, OK: true}
			if rng.IntN(2) == 0 {
				o.Level = Strong
			}
			cmd := kvs.Command{Op: kvs.OpGet, Key: k}
			switch {
			case o.Level == Strong && p.counters > 0 && rng.Float64() < p.rmwShare:
				cmd = kvs.Command{Op: kvs.OpIncr, Key: kvs.Key(fmt.Sprintf("c%d", rng.IntN(p.counters))), Delta: 1 + rng.Int64N(2)}
				if rng.IntN(3) == 0 {
					cmd = kvs.Command{Op: kvs.OpCAS, Key: cmd.Key, Expect: kvs.ExpectAbsent, Value: kvs.Value(fmt.Sprintf("%s.%d", session, seq))}
					if rng.IntN(2) == 0 {
						cmd = kvs.Command{Op: kvs.OpCAS, Key: cmd.Key, Expect: kvs.ExpectValue, ExpectValue: kvs.Value(fmt.Sprint(rng.IntN(8))), Delete: true}
					}
				}
			case rng.IntN(2) == 0 && !hot && rng.Float64() < p.deleteShare:
				cmd = kvs.Command{Op: kvs.OpDelete, Key: k}
			case rng.IntN(2) == 0:
				cmd = kvs.Command{Op: kvs.OpPut, Key: k, Value: kvs.Value(fmt.Sprintf("%s.%d", session, seq))}
			case p.scanShare > 0 && rng.Float64() < p.scanShare:
				cmd = kvs.Command{Op: kvs.OpScan, Key: k, Limit: 1 + rng.Int64N(4)}
				if rng.IntN(2) == 0 {
					cmd.End = k + "~"
				}
			}
			o.InvokeNS = t + rng.Int64N(2000)
			at := o.InvokeNS + 1 + rng.Int64N(5000)
			o.ReturnNS = at + 1 + rng.Int64N(5000)
			applied := true
			if rng.IntN(500) == 0 { // never completes
				o.OK, o.ReturnNS = false, 0
				applied = rng.IntN(2) == 0
			}
			if pipelined && o.OK {
				t = o.InvokeNS + rng.Int64N(o.ReturnNS-o.InvokeNS)
			} else {
				t = max(o.ReturnNS, at)
			}
			events = append(events, event{at: at, op: len(h), applied: applied})
			h = append(h, o)
			cmds = append(cmds, cmd)
		}
	}
	slices.SortStableFunc(events, func(a, b event) int { return cmp.Compare(a.at, b.at) })
	store := kvs.NewStore()
	var log []LogEntry
	for _, e := range events {
		o, cmd := &h[e.op], cmds[e.op]
		if !e.applied {
			*o = Record(*o, cmd, kvs.Result{})
			continue
		}
		if rng.IntN(1000) == 0 {
			log = append(log, LogEntry{Slot: kvs.Slot(len(log) + 1), Kind: Noop})
		}
		if !cmd.IsWrite() && o.Level == Weak { // weak reads are not in the log
			*o = Record(*o, cmd, store.Read(cmd))
			continue
		}
		slot := kvs.Slot(len(log) + 1)
		res := store.Apply(slot, cmd)
		*o = Record(*o, cmd, res)
		log = append(log, applog.EntriesOf(slot, o.Session, o.Seq, cmd, res)...)
	}
	logs := map[string][]LogEntry{"r0": log, "r1": log, "r2": log[:len(log)*9/10]}
	return h, logs
}

var scaleParams = genParams{ops: 200_000, sessions: 400, keys: 20_000, hotKeys: 4, hotShare: 0.1}

func TestCheckLargeValidHistory(t *testing.T) {
	p := scaleParams
	if testing.Short() {
		p.ops /= 10
	}
	h, logs := genHistory(1, p)
	require.Len(t, h, p.ops)

	start, cpu := time.Now(), cpuTime()
	var buf bytes.Buffer
	require.NoError(t, WriteHistory(&buf, h))
	size := buf.Len()
	back, err := ReadHistory(&buf, "large.jsonl")
	require.NoError(t, err)
	require.Equal(t, h, back)
	t.Logf("JSONL round trip of %d ops (%d MB): %v (CPU %v)", len(h), size>>20, time.Since(start), cpuTime()-cpu)

	start, cpu = time.Now(), cpuTime()
	r := Check(h, logs, Options{MaxPerRule: 5})
	t.Logf("Check of %d ops with %d-entry logs: %v (CPU %v)", len(h), len(logs["r0"]), time.Since(start), cpuTime()-cpu)
	requireOK(t, r)
	require.Equal(t, len(h), r.Checked)

	start, cpu = time.Now(), cpuTime()
	requireOK(t, Check(h, nil, Options{MaxPerRule: 5}))
	t.Logf("Check of %d ops without logs: %v (CPU %v)", len(h), time.Since(start), cpuTime()-cpu)
}

// cpuTime is the user plus system time of this process so far; the wall
// clock alone says little on a shared machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// The generator must be able to produce failures too, or the test above
// proves little: corrupt one strong read and expect it to be caught.
func TestCheckLargeHistoryCatchesCorruption(t *testing.T) {
	p := scaleParams
	p.ops /= 20
	h, logs := genHistory(2, p)
	for i := range h {
		if h[i].Kind == Get && h[i].Level == Strong && h[i].OK && h[i].Found && len(h[i].Key) == 1 {
			h[i].Found, h[i].Ret = false, "" // read absent from a hot key that was written long ago
			break
		}
	}
	r := Check(h, logs, Options{})
	require.False(t, r.OK())
	requireViolation(t, r, RuleLinearizability)
}

func BenchmarkCheck200k(b *testing.B) {
	h, logs := genHistory(1, scaleParams)
	b.ResetTimer()
	for range b.N {
		if r := Check(h, logs, Options{}); !r.OK() {
			b.Fatal(r)
		}
	}
}

// A causal anomaly across sessions and keys must be caught at scale too:
// session B's get b1 read put wy of session A, A wrote x before wy, and a
// later weak get bx of x by B is made to return NIL.
func TestCheckLargeHistoryCatchesCausalAnomaly(t *testing.T) {
	p := scaleParams
	p.ops /= 20
	h, logs := genHistory(3, p)
	writer := map[string]int{}
	for i, o := range h {
		if o.Kind == Put {
			writer[o.Value] = i
		}
	}
	bx := -1
	for i := 0; i < len(h) && bx < 0; i++ {
		b1 := h[i]
		wy, ok := writer[b1.Ret]
		if b1.Kind != Get || !b1.OK || !b1.Found || !ok || h[wy].Session == b1.Session {
			continue
		}
		for _, ax := range h { // A's earlier put of another key
			if ax.Session != h[wy].Session || ax.Kind != Put || !ax.OK || ax.ReturnNS >= h[wy].InvokeNS || ax.Key == b1.Key {
				continue
			}
			for j, o := range h { // B's later weak get of that key
				if o.Session == b1.Session && o.Kind == Get && o.Level == Weak && o.OK && o.Key == ax.Key && o.InvokeNS > b1.ReturnNS {
					bx = j
					break
				}
			}
			if bx >= 0 {
				break
			}
		}
	}
	require.GreaterOrEqual(t, bx, 0, "no candidate in the generated history")
	h[bx].Found, h[bx].Ret = false, ""
	r := Check(h, logs, Options{})
	requireViolation(t, r, RuleCausalVisibility, h[bx].ID().String(), "causal chain")
	requireOnly(t, r, RuleCausalVisibility, RuleReadYourWrites, RuleMonotonicReads)
}

// hotKeyParams is one key under 60 sessions (a quarter of them pipelined):
// the case that made a search over orders time out.
var hotKeyParams = genParams{ops: 160_000, sessions: 60, keys: 1, hotKeys: 1, hotShare: 1}

// One hot key is decided exactly and quickly, and a single stale strong
// read among 160,000 operations is found.
func TestHotKeyDecidedExactly(t *testing.T) {
	h, logs := genHistory(4, hotKeyParams)
	start, cpu := time.Now(), cpuTime()
	r := Check(h, logs, Options{})
	t.Logf("Check of %d ops on one key: %v (CPU %v)", len(h), time.Since(start), cpuTime()-cpu)
	requireOK(t, r)

	// Make a late strong get return the value of the first strong put to
	// complete, which many strong puts have overwritten since.
	first := -1
	for i, o := range h {
		if o.Kind == Put && o.Level == Strong && o.OK && (first < 0 || o.ReturnNS < h[first].ReturnNS) {
			first = i
		}
	}
	stale := -1
	for i := len(h) - 1; i >= 0 && stale < 0; i-- {
		if o := h[i]; o.Kind == Get && o.Level == Strong && o.OK && o.Session != h[first].Session {
			stale = i
		}
	}
	h[stale].Found, h[stale].Ret = true, h[first].Value
	start = time.Now()
	r = Check(h, logs, Options{MaxPerRule: 5})
	t.Logf("Check with one stale read: %v", time.Since(start))
	requireViolation(t, r, RuleLinearizability, h[stale].ID().String()+" (strong get of key \"0\"", "read from "+h[first].ID().String())
}
