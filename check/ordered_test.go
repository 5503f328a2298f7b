package check

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Two puts of one key by one session, in flight together: unordered,
// either log order is correct; ordered, the later one must be at the
// higher slot.
func TestOrderedWritesFollowTheirSession(t *testing.T) {
	a := sPut("s", 1, 1, "a1", 0, 30)
	b := sPut("s", 2, 1, "b1", 10, 20)
	requireOK(t, Check([]Op{a, b}, map[string][]LogEntry{"r0": logOf(b, a)}, Options{}))

	b.Ordered = true
	requireOK(t, Check([]Op{a, b}, map[string][]LogEntry{"r0": logOf(a, b)}, Options{}))
	r := Check([]Op{a, b}, map[string][]LogEntry{"r0": logOf(b, a)}, Options{})
	requireViolation(t, r, RuleOrdered, "s#2", "s#1", "slot 1", "slot 2", "DECISIONS.md 45")
	requireOnly(t, r, RuleOrdered)
}

// An ordered get follows the session's earlier writes of its key, not
// its earlier gets; an ordered write follows both; other keys and other
// sessions do not count.
func TestOrderedConflictsOnly(t *testing.T) {
	g1 := sGet("s", 1, 1, "", 0, 50)
	g2 := sGet("s", 2, 1, "", 5, 50)
	g2.Ordered = true
	other := sPut("s", 3, 2, "o1", 6, 50)
	foreign := sPut("t", 1, 1, "t1", 60, 70)
	h := []Op{g1, g2, other, foreign}
	requireOK(t, Check(h, map[string][]LogEntry{"r0": logOf(other, g2, g1, foreign)}, Options{}))

	w := sPut("s", 4, 1, "w1", 7, 50)
	w.Ordered = true
	// Logged after w, the gets read it: their slots are where they took
	// effect.
	g1.Ret, g1.Found = "w1", true
	g2.Ret, g2.Found = "w1", true
	h = []Op{g1, g2, other, foreign, w}
	r := Check(h, map[string][]LogEntry{"r0": logOf(w, other, g2, g1, foreign)}, Options{})
	v := requireViolation(t, r, RuleOrdered, "s#4", "s#1", "slot 4")
	require.Equal(t, []OpID{opID("s", 4), opID("s", 1)}, v.Ops)
}

// The member survives a round trip through JSON Lines, and a run without
// logs says the rule was skipped only when some operation is ordered.
func TestOrderedRecordAndSkip(t *testing.T) {
	o := sPut("s", 1, 1, "a1", 0, 30)
	o.Ordered = true
	b, err := o.MarshalJSON()
	require.NoError(t, err)
	require.Contains(t, string(b), `"ordered":true`)
	var back Op
	require.NoError(t, back.UnmarshalJSON(b))
	require.Equal(t, o, back)

	skipped := func(h []Op) bool {
		for _, s := range Check(h, nil, Options{}).Skipped {
			if s.Rule == RuleOrdered {
				return true
			}
		}
		return false
	}
	require.True(t, skipped([]Op{o}))
	o.Ordered = false
	require.False(t, skipped([]Op{o}))
}

// A DELETE is a write: an ordered get after it must follow it. One that
// read the value the DELETE removed, at a slot before it, did not.
func TestOrderedGetFollowsDelete(t *testing.T) {
	a := sPut("t", 1, 3, "a1", 0, 5)
	del := op("u", 1, Strong, Delete, 3, "", 6, 50)
	del.Found = true
	g := sGet("u", 2, 3, "", 10, 50)
	g.Ordered = true
	requireOK(t, Check([]Op{a, del, g}, map[string][]LogEntry{"r0": logOf(a, del, g)}, Options{}))
	old := sGet("u", 2, 3, "a1", 10, 50)
	old.Ordered = true
	r := Check([]Op{a, del, old}, map[string][]LogEntry{"r0": logOf(a, old, del)}, Options{})
	requireViolation(t, r, RuleOrdered, "u#2", "u#1")
}

// An ordered get the logs do not hold (a leader read) takes effect just
// after the write it read: at or above its session's earlier writes of
// the key, below a later ordered write of the key.
func TestOrderedLeaderRead(t *testing.T) {
	a := sPut("s", 1, 1, "a1", 0, 50)
	missed := sGet("s", 2, 1, "", 10, 20)
	missed.Ordered = true
	r := Check([]Op{a, missed}, map[string][]LogEntry{"r0": logOf(a)}, Options{})
	requireViolation(t, r, RuleOrdered, "s#2", "s#1", "read the state after slot")

	saw := sGet("s", 2, 1, "a1", 10, 20)
	saw.Ordered = true
	requireOK(t, Check([]Op{a, saw}, map[string][]LogEntry{"r0": logOf(a)}, Options{}))

	b := sPut("s", 3, 1, "b1", 15, 50)
	b.Ordered = true
	early := sGet("s", 2, 1, "b1", 10, 20)
	early.Ordered = true
	r = Check([]Op{a, early, b}, map[string][]LogEntry{"r0": logOf(a, b)}, Options{})
	requireViolation(t, r, RuleOrdered, "s#3", "s#2", "slot 2")
}

// A leader read re-sent and logged again after it was answered sits at a
// slot whose state is not what it returned (nobody reads that result):
// it took effect just after the write it read, so its session's later
// ordered write may have a lower slot. A read whose answer is its slot's
// state is judged at its slot.
func TestOrderedReadLoggedAfterItsAnswer(t *testing.T) {
	a := sPut("s", 1, 1, "a1", 0, 10)
	g := sGet("s", 2, 1, "a1", 20, 30)
	g.Ordered = true
	b := sPut("s", 3, 1, "b1", 40, 50)
	b.Ordered = true
	requireOK(t, Check([]Op{a, g, b}, map[string][]LogEntry{"r0": logOf(a, b, g)}, Options{}))

	late := sGet("s", 2, 1, "b1", 20, 60)
	late.Ordered = true
	r := Check([]Op{a, late, b}, map[string][]LogEntry{"r0": logOf(a, b, late)}, Options{})
	requireViolation(t, r, RuleOrdered, "s#3", "s#2", "slot 2", "slot 3")
	requireOnly(t, r, RuleOrdered)
}

// A strong read of absent whose source is not known (a DELETE came
// before it) logged again after its answer, after its session's next
// ordered write: its answer need not have come from that slot (soak seed
// 91267 of ordered, n=5, CURP-HT: a fast-path GET whose witnesses' records
// a later leader logged after its session's next write; seed 1290 of
// host-crashes, n=5, CURP-HO: a re-send of a fast-path GET that reached
// the next leader late). It took effect where the key was absent between
// its session's earlier write and its later ordered one, if the key was
// absent anywhere there.
func TestOrderedAbsentReadLoggedAfterItsAnswer(t *testing.T) {
	a := sPut("t", 1, 1, "a1", 0, 5)
	del := op("u", 1, Strong, Delete, 1, "", 6, 10)
	del.Found = true // it deleted a1
	g := sGet("u", 2, 1, "", 20, 30)
	g.Ordered = true
	b := sPut("u", 3, 1, "b1", 40, 50)
	b.Ordered = true
	requireOK(t, Check([]Op{a, del, g, b}, map[string][]LogEntry{"r0": logOf(a, del, b, g)}, Options{}))
	del2 := op("t", 2, Strong, Delete, 1, "", 55, 60)
	del2.Found = true
	requireOK(t, Check([]Op{a, del, g, b, del2}, map[string][]LogEntry{"r0": logOf(a, del, b, del2, g)}, Options{}))

	// After its session's write v1 the key held a value up to the next
	// ordered write: the read of absent cannot come before that write.
	// Linearizability alone passes it (the DELETE was in flight).
	v1 := sPut("u", 1, 1, "v1", 6, 10)
	inFlight := op("t", 2, Strong, Delete, 1, "", 15, 60)
	inFlight.Found = true
	r := Check([]Op{a, v1, g, b, inFlight}, map[string][]LogEntry{"r0": logOf(a, v1, b, inFlight, g)}, Options{})
	requireViolation(t, r, RuleOrdered, "u#3", "u#2", "absent at no slot")
	requireOnly(t, r, RuleOrdered)

	// Unordered, the read still follows v1, which completed before it was
	// invoked; with v1 (and a) in flight it may have come before both.
	g.Ordered = false
	r = Check([]Op{a, v1, g, b, inFlight}, map[string][]LogEntry{"r0": logOf(a, v1, b, inFlight, g)}, Options{})
	requireViolation(t, r, RuleOrdered, "u#3", "u#2", "absent at no slot")
	a.ReturnNS, v1.ReturnNS = 25, 25
	requireOK(t, Check([]Op{a, v1, g, b, inFlight}, map[string][]LogEntry{"r0": logOf(a, v1, b, inFlight, g)}, Options{}))
}

// absentBetween: the state after lo, then the writes above it and below
// hi; a DELETE counts only if invoked by the time the read returned.
func TestAbsentBetween(t *testing.T) {
	kp := putSlots{"k": {{pos: 1, value: true, invoke: 0}, {pos: 2, value: false, invoke: 50}, {pos: 4, value: true, invoke: 0}}}
	require.True(t, kp.absentBetween("k", 0, 9, 0), "the initial state")
	require.False(t, kp.absentBetween("k", 2, 9, 20), "after a DELETE invoked after the read returned")
	require.True(t, kp.absentBetween("k", 2, 9, 50), "after a DELETE invoked when it returned")
	require.False(t, kp.absentBetween("k", 1, 9, 20), "a DELETE above lo invoked too late")
	require.True(t, kp.absentBetween("k", 1, 9, 60), "a DELETE above lo")
	require.False(t, kp.absentBetween("k", 1, 2, 60), "a DELETE at hi is not below it")
	require.False(t, kp.absentBetween("k", 4, 9, 60), "after a later value")
}

// doneWrites: the highest position of the writes completed before each
// instant asked, in order or not.
func TestDoneWrites(t *testing.T) {
	d := doneWrites{lo: -1}
	require.Equal(t, int64(-1), d.before(5))
	d.add(30, 7)
	d.add(10, 3)
	d.add(20, 9)
	require.Equal(t, int64(3), d.before(15))
	require.Equal(t, int64(9), d.before(25))
	require.Equal(t, int64(3), d.before(12), "an instant asked out of order")
	require.Equal(t, int64(9), d.before(31), "the heap's answer again")
}

// An ordered GET of absent whose source is not known (a DELETE came
// before it), logged where the key holds a value, still follows its
// session's earlier write: after that write the key is never absent again,
// so the read took effect before it. Linearizability alone passes it (the
// write was in flight).
func TestOrderedAbsentReadBeforeItsSessionsWrite(t *testing.T) {
	a0 := sPut("t", 1, 1, "a0", 0, 5)
	del := op("t", 2, Strong, Delete, 1, "", 6, 10)
	del.Found = true
	a := sPut("t", 3, 1, "a", 11, 15)
	v := sPut("u", 1, 1, "v", 12, 40)
	g := sGet("u", 2, 1, "", 13, 20)
	g.Ordered = true
	r := Check([]Op{a0, del, a, v, g}, map[string][]LogEntry{"r0": logOf(a0, del, a, g, v)}, Options{})
	requireViolation(t, r, RuleOrdered, "u#2", "u#1", "absent at no slot")
	requireOnly(t, r, RuleOrdered)

	// A DELETE logged after the session's write, invoked after the read
	// returned, cannot be what the read saw.
	del2 := op("t", 4, Strong, Delete, 1, "", 41, 45)
	del2.Found = true
	r = Check([]Op{a0, del, a, v, g, del2}, map[string][]LogEntry{"r0": logOf(a0, del, a, g, v, del2)}, Options{})
	requireViolation(t, r, RuleOrdered, "u#2", "u#1", "absent at no slot")
	requireOnly(t, r, RuleOrdered)

	// Invoked before the read returned, it may be: the rule cannot place
	// the read and leaves it to linearizability.
	del2.InvokeNS = 18
	requireOK(t, Check([]Op{a0, del, a, v, g, del2}, map[string][]LogEntry{"r0": logOf(a0, del, a, g, v, del2)}, Options{}))
}
