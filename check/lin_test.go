package check

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
)

func TestStaleStrongReadAfterCompletedWrite(t *testing.T) {
	h := []Op{
		sPut("a", 1, 7, "a1", 0, 10),
		sPut("b", 1, 7, "b1", 20, 30),
		sGet("c", 1, 7, "a1", 40, 50), // b1 completed before this get started
	}
	dir := t.TempDir()
	r := Check(h, nil, Options{VisualizeDir: dir})
	v := requireViolation(t, r, RuleLinearizability, `key "7"`, "c#1", `"a1"`, "b#1", "invoked at 40")
	requireOnly(t, r, RuleLinearizability)
	require.Equal(t, []OpID{opID("c", 1), opID("b", 1), opID("a", 1)}, v.Ops)
	require.NotEmpty(t, v.Visualization)
	require.Contains(t, v.Message, v.Visualization)
	_, err := os.Stat(v.Visualization)
	require.NoError(t, err)
}

// A conflict between large clusters is drawn from the operations the
// message names only, which keeps porcupine's search small.
func TestVisualizationOfALargeConflict(t *testing.T) {
	h := []Op{sPut("a", 1, 7, "a1", 0, 10)}
	for i := range 100 {
		h = append(h, sGet(fmt.Sprintf("r%d", i), 1, 7, "a1", 20, 1000))
	}
	h = append(h, sPut("b", 1, 7, "b1", 20, 30), sGet("c", 1, 7, "a1", 40, 50))
	dir := t.TempDir()
	r := Check(h, nil, Options{VisualizeDir: dir})
	v := requireViolation(t, r, RuleLinearizability, "c#1", "but b#1")
	html, err := os.ReadFile(v.Visualization)
	require.NoError(t, err)
	require.Contains(t, string(html), "c#1 (strong get")
	require.NotContains(t, string(html), "r50#1", "a reader the message does not name")
	require.Greater(t, len(newHistory(h, newCollector(0)).linOps("7")), maxVisualOps)
}

func TestStaleNilStrongRead(t *testing.T) {
	h := []Op{
		sPut("a", 1, 7, "a1", 0, 10),
		sGet("c", 1, 7, "", 40, 50),
	}
	requireViolation(t, Check(h, nil, Options{}), RuleLinearizability, "returning absent", "a#1")
}

func TestConcurrentStrongWriteAndReadEitherValue(t *testing.T) {
	for _, seen := range []string{"a1", "b1"} {
		t.Run(seen, func(t *testing.T) {
			h := []Op{
				sPut("a", 1, 7, "a1", 0, 10),
				sPut("b", 1, 7, "b1", 20, 40),
				sGet("c", 1, 7, seen, 25, 35), // overlaps the put of b1
			}
			requireOK(t, Check(h, nil, Options{}))
		})
	}
}

func TestStrongReadsGoingBack(t *testing.T) {
	h := []Op{
		sPut("a", 1, 7, "a1", 0, 10),
		sPut("b", 1, 7, "b1", 20, 100), // long, concurrent with both gets
		sGet("c", 1, 7, "b1", 30, 40),
		sGet("d", 1, 7, "a1", 50, 60), // after c#1 saw b1
	}
	r := Check(h, nil, Options{})
	requireViolation(t, r, RuleLinearizability, "d#1", "read from a#1", "but b#1", "must be ordered after that write and before the get",
		"a#1 completed at 10 before c#1", "c#1, which returned \"b1\", completed at 40 before the get was invoked at 50")
}

func TestPendingStrongPutObservedLater(t *testing.T) {
	h := []Op{
		sPut("a", 1, 7, "a1", 0, 10),
		pending(sPut("b", 1, 7, "b1", 20, 0)),
		sGet("c", 1, 7, "b1", 30, 40),
		sGet("c", 2, 7, "b1", 50, 60),
	}
	requireOK(t, Check(h, nil, Options{}))
	// A pending put may also never take effect.
	returns(&h[2], "a1")
	returns(&h[3], "a1")
	requireOK(t, Check(h, nil, Options{}))
	// But once observed it cannot be undone.
	returns(&h[2], "b1")
	requireViolation(t, Check(h, nil, Options{}), RuleLinearizability, "c#2")
}

// A weak put is not ordered by real time against strong operations: a
// strong read may miss an acknowledged weak write that a later strong read
// observes (CURP-HO acknowledges weak writes before the leader orders them).
func TestWeakPutObservedByStrongReads(t *testing.T) {
	h := []Op{
		wPut("w", 1, 7, "w1", 0, 1),
		sGet("c", 1, 7, "", 2, 3),
		sGet("c", 2, 7, "w1", 4, 5),
	}
	requireOK(t, Check(h, nil, Options{}))

	h = []Op{
		wPut("w", 1, 7, "w1", 0, 1),
		sGet("c", 1, 7, "w1", 2, 3),
		sGet("d", 1, 7, "", 4, 5), // strong reads went back to NIL
	}
	requireViolation(t, Check(h, nil, Options{}), RuleLinearizability, "d#1", "c#1")
}

// Hundreds of mutually concurrent operations on one key, each get reading
// a different put: legal, and decided without searching orders.
func TestManyConcurrentOperationsDecided(t *testing.T) {
	var h []Op
	for i := range 500 {
		s := fmt.Sprintf("s%d", i)
		h = append(h, sPut(s, 1, 1, fmt.Sprintf("v%d", i), 0, 1_000_000))
		h = append(h, sGet(s+"r", 1, 1, fmt.Sprintf("v%d", (i*7)%500), 1, 1_000_000))
	}
	requireOK(t, Check(h, nil, Options{}))
	// One get that returned before every put was invoked cannot read one.
	h = append(h, sGet("late", 1, 1, "v3", -10, -5))
	r := Check(h, nil, Options{})
	requireViolation(t, r, RuleLinearizability, "late#1", "invoked only after the get returned")
	require.Empty(t, r.Unknown)
}

func TestStrongWriteOrderInLog(t *testing.T) {
	a := sPut("a", 1, 1, "a1", 0, 10)
	b := sPut("b", 1, 1, "b1", 20, 30)
	h := []Op{a, b}
	requireOK(t, Check(h, map[string][]LogEntry{"r0": logOf(a, b)}, Options{}))

	r := Check(h, map[string][]LogEntry{"r0": logOf(b, a)}, Options{})
	requireViolation(t, r, RuleStrongWriteOrder, "a#1", "b#1", "slot 2", "slot 1", "PROTOCOL.md 2.6 item 3")
	requireOnly(t, r, RuleStrongWriteOrder)
}

// Linearizability is local: strong writes of different keys may be
// replayed in either order by recovery (PROTOCOL.md 1.7, 6.4), and no
// client can observe it.
func TestStrongWriteOrderIsPerKey(t *testing.T) {
	a := sPut("a", 1, 1, "a1", 0, 10)
	b := sPut("b", 1, 2, "b1", 20, 30)
	requireOK(t, Check([]Op{a, b}, map[string][]LogEntry{"r0": logOf(b, a)}, Options{}))
}

// Both puts span all the gets, so only the gets order the two values.
func TestLinearizabilityExplainedThroughReads(t *testing.T) {
	h := []Op{
		sPut("a", 1, 7, "a1", 0, 100),
		sPut("b", 1, 7, "b1", 0, 100),
		sGet("c", 1, 7, "a1", 10, 20),
		sGet("c", 2, 7, "b1", 30, 40),
		sGet("c", 3, 7, "a1", 50, 60),
	}
	r := Check(h, nil, Options{})
	v := requireViolation(t, r, RuleLinearizability, "c#3", "read from a#1", "but b#1",
		"c#1, which returned \"a1\", completed at 20 before c#2, which returned \"b1\", was invoked at 30",
		"c#2, which returned \"b1\", completed at 40 before the get was invoked at 50")
	require.Equal(t, []OpID{opID("c", 3), opID("b", 1), opID("a", 1), opID("c", 1), opID("c", 2)}, v.Ops)
	requireOnly(t, r, RuleLinearizability)
}

// The first conflict of a key is stated as a get that read a value
// another put must precede; that is always possible when no get returned
// before its put was invoked. With such a get, the other conflicts may
// have no get to name, and are stated as two puts that must each come
// first.
func TestLinearizabilityConflictBetweenPuts(t *testing.T) {
	h := []Op{
		sPut("a", 1, 7, "a1", 50, 60),
		sGet("a", 2, 7, "a1", 0, 10), // returned before a#1 was invoked
		sPut("b", 1, 7, "b1", 20, 30),
	}
	x := newHistory(h, newCollector(0))
	lops := x.linOps("7")
	conflicts := x.decideLin(lops)
	require.Len(t, conflicts, 2)
	msg, ops := x.explainConflict(lops, conflicts[0])
	require.Contains(t, msg, "a#2 (strong get of key \"7\" returning \"a1\", invoked at 0, returned at 10) read from a#1")
	require.Contains(t, msg, "invoked only after the get returned")
	require.Equal(t, []OpID{opID("a", 2), opID("a", 1)}, ops)
	msg, ops = x.explainConflict(lops, conflicts[1])
	require.Contains(t, msg, "must each be ordered before the other")
	require.Contains(t, msg, "a#2, which returned \"a1\", completed at 10 before b#1 was invoked at 20")
	require.Contains(t, msg, "b#1 completed at 30 before a#1 was invoked at 50")
	require.ElementsMatch(t, []OpID{opID("a", 1), opID("b", 1), opID("a", 2)}, ops)
}

// Weak puts that take effect after they were acknowledged (as CURP-HO
// allows) and strong gets that read in effect order form a valid HYB
// history, even though a strong get may miss a weak put that returned
// before it was invoked. Writers never read, so no session guarantee is at
// stake, and each writer's puts take effect in session order (CC-ARB).
func TestWeakPutsTakingEffectAfterTheirAck(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	type event struct {
		at int64
		op int
	}
	var h []Op
	var events []event
	for s := range 8 {
		writer := s%2 == 0
		session := fmt.Sprintf("s%d", s)
		t0, lastAt := int64(0), int64(0)
		for seq := 1; seq <= 300; seq++ {
			inv := t0 + rng.Int64N(100)
			ret := inv + 1 + rng.Int64N(100)
			key := rng.IntN(3)
			var o Op
			var at int64
			if writer {
				o = wPut(session, uint64(seq), key, fmt.Sprintf("%s.%d", session, seq), inv, ret)
				at = max(lastAt+1, ret+rng.Int64N(1000)) // takes effect after the ack
				lastAt = at
			} else {
				o = sGet(session, uint64(seq), key, "", inv, ret)
				at = inv + rng.Int64N(ret-inv+1)
			}
			t0 = ret
			events = append(events, event{at, len(h)})
			h = append(h, o)
		}
	}
	slices.SortStableFunc(events, func(a, b event) int { return cmp.Compare(a.at, b.at) })
	store := map[kvs.Key]string{}
	var order []Op
	for _, e := range events {
		o := &h[e.op]
		if o.Kind == Put {
			store[o.Key] = o.Value
		} else {
			returns(o, store[o.Key])
		}
		order = append(order, *o)
	}
	// Make sure the history exercises the point: some strong get misses a
	// weak put that was acknowledged before the get was invoked.
	pos := map[OpID]int{}
	for i, o := range order {
		pos[o.ID()] = i
	}
	missed := 0
	for _, r := range h {
		for _, w := range h {
			if r.Kind == Get && w.Kind == Put && w.Key == r.Key && w.ReturnNS < r.InvokeNS && pos[w.ID()] > pos[r.ID()] {
				missed++
				break
			}
		}
	}
	require.Positive(t, missed)
	requireOK(t, Check(h, nil, Options{}))
	requireOK(t, Check(h, map[string][]LogEntry{"r0": logOf(order...)}, Options{}))
}
