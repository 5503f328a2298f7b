package check

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// Each history below is linearizable: the decision may pick its own order.
// The applied log fixes the order of the puts, and the strong reads must
// agree with it (PROTOCOL.md 2.6 item 4).

func logs1(entries []LogEntry) map[string][]LogEntry { return map[string][]LogEntry{"r0": entries} }

// Clause a: a strong put completed before the get was invoked, and is
// later in the log than the get's source.
func TestStrongReadOrderOverwritten(t *testing.T) {
	a := sPut("a", 1, 7, "a1", 0, 10)
	b := sPut("b", 1, 7, "b1", 5, 30) // concurrent with a#1
	r := sGet("c", 1, 7, "b1", 40, 50)
	h := []Op{a, b, r}
	requireOK(t, Check(h, logs1(logOf(a, b, r)), Options{}))

	rep := Check(h, logs1(logOf(b, a, r)), Options{})
	v := requireViolation(t, rep, RuleStrongReadOrder, "c#1 (strong get of key \"7\" returning \"b1\"", "read from b#1",
		"a#1 (strong put", "completed before the get was invoked", "b#1 at slot 1, then slot 2", "PROTOCOL.md 2.6 item 4")
	require.Equal(t, []OpID{opID("c", 1), opID("a", 1), opID("b", 1)}, v.Ops)
	requireOnly(t, rep, RuleStrongReadOrder)

	// When the put is the reader's own, read-your-writes says it; the
	// read is not reported twice.
	a.Session = "c"
	a.Seq = 0
	rep = Check([]Op{a, b, r}, logs1(logOf(b, a, r)), Options{})
	requireViolation(t, rep, RuleReadYourWrites, "c#1")
	requireOnly(t, rep, RuleReadYourWrites)
}

// Clause c: strong gets that follow each other in real time read sources
// going back in the log.
func TestStrongReadOrderGoingBack(t *testing.T) {
	a := sPut("a", 1, 7, "a1", 0, 100)
	b := sPut("b", 1, 7, "b1", 0, 100)
	r1 := sGet("c", 1, 7, "a1", 10, 20)
	r2 := sGet("d", 1, 7, "b1", 30, 40)
	h := []Op{a, b, r1, r2}
	requireOK(t, Check(h, logs1(logOf(a, b, r1, r2)), Options{}))

	returns(&r1, "b1")
	returns(&r2, "a1") // linearizable as b1, r1, a1, r2
	h = []Op{a, b, r1, r2}
	rep := Check(h, logs1(logOf(a, b, r1, r2)), Options{})
	v := requireViolation(t, rep, RuleStrongReadOrder, "d#1 (strong get of key \"7\" returning \"a1\"", "read from a#1",
		"c#1 (strong get", "which completed before the get was invoked, had read b#1", "a#1 at slot 1, then slot 2")
	require.Equal(t, []OpID{opID("d", 1), opID("c", 1), opID("a", 1), opID("b", 1)}, v.Ops)
	requireOnly(t, rep, RuleStrongReadOrder)
}

// Clause d: a strong put invoked after the get returned precedes the
// get's source in the log. The put may be pending.
func TestStrongReadOrderPrecededByLaterPut(t *testing.T) {
	b := sPut("b", 1, 7, "b1", 0, 100)
	r := sGet("c", 1, 7, "b1", 10, 20)
	for _, s := range []Op{sPut("a", 1, 7, "a1", 30, 40), pending(sPut("a", 1, 7, "a1", 30, 0))} {
		h := []Op{b, r, s}
		requireOK(t, Check(h, logs1(logOf(b, r, s)), Options{}))

		rep := Check(h, logs1(logOf(s, b, r)), Options{})
		v := requireViolation(t, rep, RuleStrongReadOrder, "c#1 (strong get of key \"7\" returning \"b1\"", "read from b#1",
			"a#1 (strong put", "invoked after the get returned, precedes that write", "slot 1, then b#1 at slot 2")
		require.Equal(t, []OpID{opID("c", 1), opID("a", 1), opID("b", 1)}, v.Ops)
		requireOnly(t, rep, RuleStrongReadOrder)
	}
}

// A get of NIL is preceded in the log by nothing: clause a applies to it,
// clause d never does.
func TestStrongReadOrderNil(t *testing.T) {
	a := sPut("a", 1, 7, "a1", 0, 100)
	r := sGet("c", 1, 7, "", 10, 20)
	s := sPut("d", 1, 7, "d1", 30, 40)
	h := []Op{a, r, s}
	requireOK(t, Check(h, logs1(logOf(a, s)), Options{}))
	r.InvokeNS, r.ReturnNS = 110, 120 // a#1 completed at 100: NIL is stale
	s.InvokeNS, s.ReturnNS = 130, 140
	rep := Check([]Op{a, r, s}, logs1(logOf(a, s)), Options{})
	requireViolation(t, rep, RuleStrongReadOrder, "c#1", "read from the initial NIL", "the initial NIL, then slot 1")
}

// naiveReadOrder applies clauses a, c and d of PROTOCOL.md 2.6 item 4
// pairwise to a small history and its log positions, returning the
// strong gets that break one, except those in skip.
func naiveReadOrder(h []Op, pos map[OpID]int64, skip map[OpID]bool) map[OpID]bool {
	end := func(o Op) int64 {
		if o.OK {
			return o.ReturnNS
		}
		return inf
	}
	srcPos := func(r Op) (int64, bool) {
		if r.Value == "" {
			return -1, true
		}
		for _, w := range h {
			if w.Kind == Put && w.Key == r.Key && w.Value == r.Value {
				p, ok := pos[w.ID()]
				return p, ok
			}
		}
		return 0, false
	}
	out := map[OpID]bool{}
	for _, r := range h {
		if r.Kind != Get || r.Level != Strong || !r.OK || skip[r.ID()] {
			continue
		}
		pw, ok := srcPos(r)
		if !ok {
			continue
		}
		for _, o := range h {
			if o.Key != r.Key || o.Level != Strong {
				continue
			}
			switch p, inLog := pos[o.ID()]; {
			case o.Kind == Put && inLog && o.OK && end(o) < r.InvokeNS && p > pw: // a
				out[r.ID()] = true
			case o.Kind == Put && inLog && r.ReturnNS < o.InvokeNS && p < pw: // d
				out[r.ID()] = true
			case o.Kind == Get && o.OK && end(o) < r.InvokeNS: // c
				if p1, ok := srcPos(o); ok && p1 > pw {
					out[r.ID()] = true
				}
			}
		}
	}
	return out
}

// The sweeps flag exactly the gets the pairwise clauses flag.
func TestStrongReadOrderMatchesNaiveModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	flagged := 0
	for range 5000 {
		h, log := randomCausalHistory(rng)
		pos := map[OpID]int64{}
		for _, e := range log {
			pos[e.ID()] = int64(e.Slot)
		}
		r := Check(asReads(h), logs1(log), Options{})
		skip, got := map[OpID]bool{}, map[OpID]bool{}
		for _, v := range r.Violations {
			switch v.Rule {
			case RuleReadYourWrites, RuleMonotonicReads:
				skip[v.Ops[0]] = true
			case RuleStrongReadOrder:
				got[v.Ops[0]] = true
			}
		}
		want := naiveReadOrder(h, pos, skip)
		flagged += len(want)
		require.Equal(t, want, got, "history %+v\nlog %+v\n%s", h, log, r)
	}
	t.Logf("%d gets flagged", flagged)
	require.Positive(t, flagged)
}
