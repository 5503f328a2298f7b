package check

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// busyKey is n strong operations on key k (PUTs of fresh values,
// DELETEs, GETs), applied in a random serial order but all overlapping in
// time, as a busy key under a harsh simulation has them, and the log of
// that order.
func busyKey(seed uint64, n int) ([]Op, []LogEntry) {
	r := rand.New(rand.NewPCG(seed, 1))
	var h []Op
	found, value := false, ""
	for i := range n {
		s := fmt.Sprint("s", i)
		inv, ret := int64(r.IntN(100)), int64(1000+r.IntN(100))
		switch r.IntN(4) {
		case 0:
			value, found = fmt.Sprint("v", i), true
			h = append(h, put(s, 1, Strong, "k", value, inv, ret))
		case 1:
			h = append(h, del(s, 1, Strong, "k", found, inv, ret))
			found, value = false, ""
		default:
			h = append(h, get(s, 1, Strong, "k", value, found, inv, ret))
		}
	}
	return h, logOf(h...)
}

// Sixty overlapping operations with DELETEs are more than the search
// decides within its budget; the order the replicas applied them in is a
// legal order, so with the logs the key is decided at once.
func TestLogOrderDecidesBusyKey(t *testing.T) {
	h, log := busyKey(7, 60)
	without := Check(h, nil, Options{})
	require.Len(t, without.Unknown, 1, "the search alone decides it: the test no longer shows what the log order adds")
	requireOK(t, Check(h, logs1(log), Options{}))
}

// The log order is only a witness: when it is none (here the log lacks
// the completed GET, so logOrderLegal refuses it, as
// TestLogOrderLegalRefuses shows), the search decides the key as without
// logs, both ways.
func TestLogOrderIsOnlyAWitness(t *testing.T) {
	a := put("a", 1, Strong, "k", "v1", 0, 10)
	c := del("c", 1, Strong, "k", true, 20, 30)
	d := get("d", 1, Strong, "k", "", false, 40, 50)
	requireOK(t, Check([]Op{a, c, d}, logs1(logOf(a, c)), Options{}))

	// d read v1 after the DELETE: no order is legal, whatever the log says.
	d2 := get("d", 1, Strong, "k", "v1", true, 40, 50)
	requireViolation(t, Check([]Op{a, c, d2}, logs1(logOf(a, c)), Options{}), RuleLinearizability)
}

// logOrderLegal refuses an order that breaks real time, a step that does
// not hold in it, and a completed operation the log does not have.
func TestLogOrderLegalRefuses(t *testing.T) {
	early := sop{0, 0, 10, alwaysPut("v1"), -1}
	late := sop{1, 20, 30, alwaysPut("v2"), -1}
	require.True(t, logOrderLegal([]sop{early, late}, []int64{1, 2}))
	require.False(t, logOrderLegal([]sop{early, late}, []int64{2, 1}), "late before early, which returned before late was invoked")
	reads := func(v string) func(linState) (bool, linState) {
		return func(s linState) (bool, linState) { return s.found && s.value == v, s }
	}
	read := sop{2, 0, 40, reads("v1"), -1}
	require.False(t, logOrderLegal([]sop{early, late, read}, []int64{1, 2, 3}), "the read of v1 after v2")
	require.True(t, logOrderLegal([]sop{early, late, read}, []int64{1, 3, 2}), "positions are by part: early, read, late")
	require.False(t, logOrderLegal([]sop{early, late}, []int64{1, notInLog}), "a completed operation missing from the log")
	pending := sop{1, 20, inf, alwaysPut("v2"), -1}
	require.True(t, logOrderLegal([]sop{early, pending}, []int64{1, notInLog}), "a pending write missing from the log stands last")
	require.False(t, logOrderLegal([]sop{early}, nil))
}

// A completed read missing from the log (a leader read) stands where the
// log order holds the state it returned, after what returned before it
// was invoked; a read of a state no gap holds, one that real time forbids
// there, or a write missing from the log leaves no witness.
func TestLogOrderPlacesReadsMissingFromTheLog(t *testing.T) {
	early := sop{0, 0, 10, alwaysPut("v1"), -1}
	late := sop{1, 20, 30, alwaysPut("v2"), -1}
	reads := func(v string) func(linState) (bool, linState) {
		return func(s linState) (bool, linState) { return s.found && s.value == v, s }
	}
	absent := func(s linState) (bool, linState) { return !s.found, s }
	pos := []int64{1, 2, notInLog, notInLog}
	require.True(t, logOrderLegal([]sop{early, late, {2, 5, 25, reads("v1"), -1}, {3, 22, 40, reads("v2"), -1}}, pos))
	require.True(t, logOrderLegal([]sop{early, late, {2, -5, 25, absent, -1}}, pos[:3]), "before early")
	require.True(t, logOrderLegal([]sop{early, late, {2, 11, 12, reads("v1"), -1}, {3, 13, 14, reads("v1"), -1}}, pos),
		"two reads in one gap, in invocation order")
	require.False(t, logOrderLegal([]sop{early, late, {2, 0, 15, reads("v2"), -1}}, pos[:3]), "v2 read before v2 was written")
	require.False(t, logOrderLegal([]sop{early, late, {2, 35, 40, reads("v1"), -1}}, pos[:3]), "v1 read after v2 returned")
	require.False(t, logOrderLegal([]sop{early, late, {2, 0, 40, reads("v3"), -1}}, pos[:3]), "no gap holds v3")
	require.False(t, logOrderLegal([]sop{early, late, {2, 0, 40, alwaysPut("v3"), -1}}, pos[:3]), "a completed write missing from the log")
}

func alwaysPut(v string) func(linState) (bool, linState) {
	return func(linState) (bool, linState) { return true, linState{found: true, value: v} }
}
