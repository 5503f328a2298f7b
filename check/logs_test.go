package check

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// logHistory is a small valid history and its full applied log.
func logHistory() ([]Op, []LogEntry) {
	h := []Op{
		sPut("a", 1, 1, "a1", 0, 10),
		wPut("b", 1, 2, "b1", 5, 15),
		sGet("c", 1, 1, "a1", 20, 30),
		wPut("a", 2, 1, "a2", 40, 50),
	}
	full := logOf(h...)
	full = append(full[:3:3], LogEntry{Slot: 4, Kind: Noop}, LogEntry{Slot: 5, Session: "a", Seq: 2, Kind: Put, Key: "1", Value: "a2"})
	return h, full
}

func TestLogAgreement(t *testing.T) {
	h, full := logHistory()
	t.Run("prefixes agree", func(t *testing.T) {
		requireOK(t, Check(h, map[string][]LogEntry{"r0": full, "r1": full[:3], "r2": nil}, Options{}))
	})
	t.Run("diverging", func(t *testing.T) {
		other := append([]LogEntry{}, full[:3]...)
		other[1], other[0] = full[0], full[1]
		other[0].Slot, other[1].Slot = 1, 2
		r := Check(h, map[string][]LogEntry{"r0": full, "r1": other}, Options{})
		v := requireViolation(t, r, RuleLogAgreement, "slot 1", "replica r1", "b#1", "replica r0", "a#1")
		require.Equal(t, "r1", v.Replica)
		requireOnly(t, r, RuleLogAgreement)
	})
	t.Run("same commands, different slots", func(t *testing.T) {
		other := append([]LogEntry{}, full[:2]...)
		other[1].Slot = 7
		r := Check(h, map[string][]LogEntry{"r0": full, "r1": other}, Options{})
		requireViolation(t, r, RuleLogAgreement, "diverge at slot 2", "replica r1 has nothing", "replica r0 has slot 2: b#1")
		// Without agreement on slot 2, the command ran twice in the
		// replicated state machine: once at each slot.
		requireViolation(t, r, RuleAtMostOnce, "b#1", "slot 2 by replica r0", "slot 7 by replica r1")
	})
}

func TestAtMostOnce(t *testing.T) {
	h, full := logHistory()
	requireOK(t, Check(h, map[string][]LogEntry{"r0": full}, Options{}))
	twice := append(append([]LogEntry{}, full...), LogEntry{Slot: 6, Session: "b", Seq: 1, Kind: Put, Key: "2", Value: "b1"})
	r := Check(h, map[string][]LogEntry{"r0": twice}, Options{})
	requireViolation(t, r, RuleAtMostOnce, "replica r0", "b#1", "slot 2", "slot 6")
	requireOnly(t, r, RuleAtMostOnce)
}

func TestDurability(t *testing.T) {
	h, full := logHistory()
	missing := append([]LogEntry{}, full[:3]...) // loses a#2, acknowledged at 50
	r := Check(h, map[string][]LogEntry{"r0": missing}, Options{})
	requireViolation(t, r, RuleDurability, "a#2", `"a2"`, "returned at 50", "replica r0")
	requireOnly(t, r, RuleDurability)

	// A put that never completed may be lost.
	h[3] = pending(h[3])
	requireOK(t, Check(h, map[string][]LogEntry{"r0": missing}, Options{}))
}

func TestLogMismatch(t *testing.T) {
	h, full := logHistory()
	bad := append([]LogEntry{}, full...)
	bad[1].Value = "zzz"
	r := Check(h, map[string][]LogEntry{"r0": bad}, Options{})
	requireViolation(t, r, RuleLogMismatch, "b#1", `"zzz"`, `"b1"`)

	bad = append(bad[:0:0], full...)
	bad = append(bad, LogEntry{Slot: 9, Session: "q", Seq: 1, Kind: Get, Key: "1"})
	requireViolation(t, Check(h, map[string][]LogEntry{"r0": bad}, Options{}), RuleLogMismatch, "q#1", "no operation")
}

func TestLogSlotsMustIncrease(t *testing.T) {
	h, full := logHistory()
	bad := append([]LogEntry{}, full...)
	bad[2].Slot = 1
	requireViolation(t, Check(h, map[string][]LogEntry{"r0": bad}, Options{}), RuleLogInvalid, "entry 3", "strictly increase")
}

func TestMaxPerRule(t *testing.T) {
	var h []Op
	for i := range 5 {
		h = append(h, wGet("r", uint64(i+1), 1, "ghost"+string(rune('a'+i)), int64(i*10), int64(i*10+5)))
	}
	r := Check(h, nil, Options{MaxPerRule: 2})
	require.Len(t, r.Violations, 2)
	require.Equal(t, map[Rule]int{RuleReadNeverWritten: 3}, r.Omitted)
	require.False(t, r.OK())
	require.Contains(t, r.String(), "3 more not shown")
}

// TestDurabilityExemptsCrashedSessionsWeakPuts: a crashed client's weak put
// may be lost (PROTOCOL.md 6.8); its strong puts may not.
func TestDurabilityExemptsCrashedSessionsWeakPuts(t *testing.T) {
	h := []Op{
		{Session: "a", Seq: 1, Level: Weak, Kind: Put, Key: "1", Value: "a1", InvokeNS: 1, ReturnNS: 2, OK: true},
		{Session: "b", Seq: 1, Level: Strong, Kind: Put, Key: "2", Value: "b1", InvokeNS: 3, ReturnNS: 4, OK: true},
	}
	logs := map[string][]LogEntry{"r0": {}}
	crashed := map[SessionID]bool{"a": true, "b": true}
	rep := Check(h, logs, Options{Crashed: crashed})
	require.Len(t, rep.Violations, 1)
	require.Equal(t, RuleDurability, rep.Violations[0].Rule)
	require.Contains(t, rep.Violations[0].Message, "b#1")
	rep = Check(h, logs, Options{})
	require.Len(t, rep.Violations, 2)
}
