package check

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/wire/applog"
)

// restartRun is a run of eight strong puts (slots 1-8) in which replica r2
// was killed after applying slot 3 (its last line lost with the crash)
// and came back empty, installing a snapshot of slots 1-5 before applying
// 6-8. r0 and r1 applied everything; r0 was itself killed after slot 6.
func restartRun() ([]Op, map[string][]LogEntry) {
	var h []Op
	for i := range 8 {
		h = append(h, sPut("a", uint64(i+1), i%3, "v"+string(rune('1'+i)), int64(10*i), int64(10*i+5)))
	}
	full := logOf(h...)
	second := append([]LogEntry{{Slot: 5, Kind: Snapshot}}, full[5:]...)
	return h, map[string][]LogEntry{
		"r0":   full[:6],
		"r1":   full,
		"r2.1": full[:2],
		"r2.2": second,
	}
}

func TestLogsAcrossRestarts(t *testing.T) {
	t.Run("lifetimes and a snapshot agree", func(t *testing.T) {
		h, logs := restartRun()
		requireOK(t, Check(h, logs, Options{}))
	})
	t.Run("disagreement in the overlap of two lifetimes", func(t *testing.T) {
		h, logs := restartRun()
		bad := append([]LogEntry{}, logs["r2.2"]...)
		bad[2].Value = "v1" // slot 7 applied a#8's value under a#7: a mismatch too
		logs["r2.2"] = bad
		r := Check(h, logs, Options{})
		v := requireViolation(t, r, RuleLogAgreement, "diverge at slot 7", "replica r2.2", "replica r1")
		require.Equal(t, "r2.2", v.Replica)
	})
	t.Run("a lifetime that skips a slot inside what it covers", func(t *testing.T) {
		h, logs := restartRun()
		second := logs["r2.2"]
		logs["r2.2"] = append([]LogEntry{second[0], second[1]}, second[3:]...) // no slot 7, but 8
		r := Check(h, logs, Options{})
		requireViolation(t, r, RuleLogAgreement, "diverge at slot 7", "replica r2.2 has nothing", "replica r1 has slot 7")
		requireOnly(t, r, RuleLogAgreement)
	})
	t.Run("slots before the snapshot are not compared", func(t *testing.T) {
		// r2.2 lists nothing below its snapshot: nothing to disagree with.
		h, logs := restartRun()
		logs["r2.2"] = logs["r2.2"][:1]
		requireOK(t, Check(h, logs, Options{}))
	})
	t.Run("a write only the first lifetime applied is durable", func(t *testing.T) {
		// Every other log starts later: the union still has slot 1.
		h, full := restartRun()
		logs := map[string][]LogEntry{
			"r0.1": full["r1"][:3],
			"r0.2": append([]LogEntry{{Slot: 4, Kind: Snapshot}}, full["r1"][4:]...),
			"r1":   append([]LogEntry{{Slot: 1, Kind: Snapshot}}, full["r1"][1:]...),
		}
		r := Check(h, logs, Options{})
		requireOK(t, r)
		lost := sPut("z", 1, 9, "z1", 100, 110)
		r = Check(append(h, lost), logs, Options{})
		requireViolation(t, r, RuleDurability, "z#1", "missing from the applied logs of replicas r1, r0.1 merged by slot")
		requireOnly(t, r, RuleDurability)
		// Without the first lifetime, a#1 is lost: slot 1 is in no log.
		delete(logs, "r0.1")
		r = Check(h, logs, Options{})
		requireViolation(t, r, RuleDurability, "a#1", "missing from the applied log of replica r1")
		requireOnly(t, r, RuleDurability)
	})
	t.Run("a command applied before and after a snapshot", func(t *testing.T) {
		h, logs := restartRun()
		again := logs["r1"][1] // a#2 of slot 2, applied again at slot 9
		again.Slot = 9
		logs["r2.2"] = append(append([]LogEntry{}, logs["r2.2"]...), again)
		r := Check(h, logs, Options{})
		requireViolation(t, r, RuleAtMostOnce, "a#2", "slot 2 by replica r1", "slot 9 by replica r2.2")
	})
	t.Run("a snapshot in the middle of a life", func(t *testing.T) {
		h, logs := restartRun()
		full := logs["r1"]
		logs["r3"] = append(append(append([]LogEntry{}, full[:2]...), LogEntry{Slot: 6, Kind: Snapshot}), full[6:]...)
		requireOK(t, Check(h, logs, Options{}))
	})
	t.Run("a snapshot marker cannot go back", func(t *testing.T) {
		h, logs := restartRun()
		full := logs["r1"]
		logs["r3"] = append(append(append([]LogEntry{}, full[:4]...), LogEntry{Slot: 2, Kind: Snapshot}), full[4:]...)
		requireViolation(t, Check(h, logs, Options{}), RuleLogInvalid, "replica r3", "snapshot marker cannot go back")
	})
}

func TestReadLogAfterKill(t *testing.T) {
	good := `{"slot":1,"session":"a","seq":1,"op":"put","key":"1","value":"v"}` + "\n"
	t.Run("a last line cut short is a crash", func(t *testing.T) {
		l, err := ReadLog(strings.NewReader(good+`{"slot":2,"session":"a","se`), "r.jsonl")
		require.NoError(t, err)
		require.Len(t, l, 1)
	})
	t.Run("a complete last line without its newline counts", func(t *testing.T) {
		l, err := ReadLog(strings.NewReader(good+`{"slot":2,"op":"noop"}`), "r.jsonl")
		require.NoError(t, err)
		require.Len(t, l, 2)
	})
	t.Run("a cut line followed by more is an error", func(t *testing.T) {
		_, err := ReadLog(strings.NewReader(`{"slot":2,"session":"a","se`+"\n"+good), "r.jsonl")
		require.ErrorContains(t, err, "r.jsonl:1:")
	})
	t.Run("a bad but complete last line is an error", func(t *testing.T) {
		_, err := ReadLog(strings.NewReader(good+`{"slot":2,"op":"put"}`), "r.jsonl")
		require.ErrorContains(t, err, "r.jsonl:2:")
	})
	t.Run("histories are not forgiven", func(t *testing.T) {
		_, err := ReadHistory(strings.NewReader(`{"session":"a","se`), "h.jsonl")
		require.ErrorContains(t, err, "h.jsonl:1:")
	})
	t.Run("the snapshot marker", func(t *testing.T) {
		l, err := ReadLog(strings.NewReader(`{"slot":5,"op":"snapshot"}`+"\n"+good), "r.jsonl")
		require.NoError(t, err)
		require.Equal(t, LogEntry{Slot: 5, Kind: Snapshot}, l[0])
		var buf bytes.Buffer
		require.NoError(t, WriteLog(&buf, l[:1]))
		back, err := ReadLog(&buf, "again.jsonl")
		require.NoError(t, err)
		require.Equal(t, l[:1], back)
		_, err = ReadHistory(strings.NewReader(`{"session":"a","seq":1,"level":"weak","op":"snapshot","key":"1","value":"","invoke_ns":1,"return_ns":2,"ok":true}`), "h.jsonl")
		require.ErrorContains(t, err, "h.jsonl:1:")
	})
}

// TestAppendLine: the replica's streaming encoder writes what WriteLog
// writes for commands, and every line reads back as the entry.
func TestAppendLine(t *testing.T) {
	entries := []LogEntry{
		{Slot: 1, Session: "e32ad949e6b35983", Seq: 1, Kind: Get, Key: "0", Found: true, Ret: ""},
		{Slot: 2, Session: "a", Seq: 18446744073709551615, Kind: Put, Key: "\x00\xffbinary", Value: "plain value"},
		{Slot: 3, Session: "a", Seq: 2, Kind: Put, Key: "7", Value: "quote\" backslash\\ tab\t nul\x00 <html>& é \u2028 bad\xff"},
		{Slot: 4, Session: "b", Seq: 1, Kind: Scan, Key: "8", End: "9", Limit: 3, Items: 1},
	}
	var want bytes.Buffer
	require.NoError(t, WriteLog(&want, entries))
	var got []byte
	for _, e := range entries {
		got = applog.AppendLine(got, e)
	}
	require.Equal(t, want.String(), string(got))
	back, err := ReadLog(bytes.NewReader(got), "all.jsonl")
	require.NoError(t, err)
	require.Equal(t, entries, back)

	marks := []LogEntry{{Slot: 5, Kind: Noop}, {Slot: 9, Kind: Snapshot}}
	got = nil
	for _, e := range marks {
		got = applog.AppendLine(got, e)
	}
	require.Equal(t, `{"slot":5,"op":"noop"}`+"\n"+`{"slot":9,"op":"snapshot"}`+"\n", string(got))
	back, err = ReadLog(bytes.NewReader(got), "marks.jsonl")
	require.NoError(t, err)
	require.Equal(t, marks, back)
}
