package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/check"
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
	"swiftpaxos/wire/applog"
)

func writeEvents(t *testing.T, dir, text string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, eventsFile), []byte(text), 0o644))
}

func TestReadEventsOfANemesis(t *testing.T) {
	dir := t.TempDir()
	writeEvents(t, dir, `11000 killed replica1
11001 begin 1 kill replica1 leader
12000 restarted replica1
12010 end 1
13000 skipped 2 pause
14000 killed client1
14001 begin 3 client client1 -
15000 begin 4 partition replica0>replica2 leader>follower:one-way:hold
`)
	ev, err := readEvents(dir, 10_000)
	require.NoError(t, err)
	assert.Len(t, ev.procs, 3)
	require.Len(t, ev.faults, 4)
	f := ev.faults[0]
	assert.Equal(t, FaultJSON{ID: 1, Kind: "kill", Target: "replica1", Detail: "leader", StartUnixMs: 11001, StartS: 1.001,
		EndUnixMs: ptr(int64(12010)), EndS: ptr(2.01)}, f)
	assert.True(t, ev.faults[1].Skipped)
	assert.Nil(t, ev.faults[2].EndUnixMs, "a client kill is never undone")
	assert.Equal(t, "replica0>replica2", ev.faults[3].Target)
	assert.Nil(t, ev.faults[3].EndUnixMs, "not healed (yet)")
	assert.Equal(t, []string{"client1"}, killedClients([]string{"client0", "client1"}, ev.procs))

	for text, want := range map[string]string{
		"1 paused replica0\n":                  `unknown event "paused"`,
		"x killed replica0\n":                  "want UNIX_MS EVENT",
		"1 begin 1 kill replica0\n":            "begin takes 6 words",
		"1 end 1\n":                            "fault 1 ends without beginning, or twice",
		"1 skipped 1 kill\n1 end 1\n":          "fault 1 ends without beginning, or twice",
		"1 begin 0 kill r leader\n":            "a fault ID is a positive number",
		"1 skipped 2 kill\n2 skipped 2 kill\n": "fault 2 is recorded twice",
	} {
		writeEvents(t, dir, text)
		_, err := readEvents(dir, 0)
		require.Error(t, err, text)
		assert.Contains(t, err.Error(), want, text)
		assert.Contains(t, err.Error(), "events.txt:", "names the file and line")
	}
}

func ptr[T any](v T) *T { return &v }

// histOp is a completed history record from ms a to ms b.
func histOp(seq wire.Seq, level check.Level, a, b int64) check.Op {
	return check.Op{Session: "s", Seq: seq, Level: level, Kind: check.Get, Key: "k", InvokeNS: a * 1e6, ReturnNS: b * 1e6, OK: true}
}

// TestAvailabilityFromTheHistories: a fault is served again when an
// operation invoked after it completes (those in flight do not count),
// the longest gap is between completions while the clients issued, and
// medians are per kind.
func TestAvailabilityFromTheHistories(t *testing.T) {
	sum := &Summary{StartUnixMs: 10_000, Timeline: []int64{5, 0, 3, 4, 1}}
	ops := []check.Op{
		histOp(1, check.Weak, 10_100, 10_200),
		histOp(2, check.Strong, 10_900, 12_500), // in flight at the fault: not served after it
		histOp(3, check.Weak, 11_000, 12_100),
		histOp(4, check.Strong, 12_200, 12_300),
		histOp(5, check.Weak, 13_000, 13_100),
		histOp(6, check.Strong, 14_000, 14_500),
		histOp(7, check.Strong, 14_100, 14_900), // after the clients stopped issuing: left out of the gap
		{Session: "s", Seq: 8, Level: check.Strong, Kind: check.Put, Key: "k", Value: "v", InvokeNS: 14_000 * 1e6},
	}
	faults := []FaultJSON{
		{ID: 1, Kind: "kill", StartUnixMs: 11_000, EndUnixMs: ptr(int64(11_500))},
		{ID: 2, Kind: "kill", StartUnixMs: 12_900},
		{ID: 3, Kind: "pause", Skipped: true, StartUnixMs: 13_000},
	}
	a := availabilityOf(faults, ops, sum, 14_600)
	assert.Equal(t, "history", a.From)
	assert.Equal(t, 5, a.Seconds)
	assert.Equal(t, 4, a.SecondsWithOps)
	assert.InDelta(t, 0.8, a.Share, 1e-9)
	assert.InDelta(t, 1.9, a.LongestGapS, 1e-9, "from 10.2 s to 12.1 s")
	assert.InDelta(t, 0.2, a.LongestGapAtS, 1e-9)
	assert.InDelta(t, 1.1, *faults[0].FirstOpAfterS, 1e-9, "op 3, invoked at the fault")
	assert.InDelta(t, 1.3, *faults[0].FirstStrongAfterS, 1e-9, "op 4")
	assert.InDelta(t, 0.2, *faults[1].FirstOpAfterS, 1e-9)
	assert.InDelta(t, 1.6, *faults[1].FirstStrongAfterS, 1e-9)
	assert.Nil(t, faults[2].FirstOpAfterS, "skipped")
	assert.InDelta(t, 1.1, *faults[0].GapS, 1e-9, "from the fault to 12.1 s, within a second after its heal")
	assert.InDelta(t, 0.8, *faults[1].GapS, 1e-9, "from 13.1 s to a second after a fault never undone")
	k := a.ByKind["kill"]
	assert.Equal(t, 2, k.Faults)
	assert.InDelta(t, 0.65, *k.MedianFirstOpS, 1e-9)
	assert.InDelta(t, 1.45, *k.MedianFirstStrongS, 1e-9)
	assert.InDelta(t, 0.95, *k.MedianGapS, 1e-9)
	assert.Equal(t, KindAvailabilityJSON{Skipped: 1}, a.ByKind["pause"])

	availabilityOf(faults[:1], ops, sum, 11_300)
	assert.InDelta(t, 0.3, *faults[0].GapS, 1e-9, "the window ends when the clients stopped issuing")
}

// TestAvailabilityFromTheTimeline: without histories, to the second.
func TestAvailabilityFromTheTimeline(t *testing.T) {
	sum := &Summary{StartUnixMs: 10_000, Timeline: []int64{5, 0, 0, 4, 0, 2}}
	faults := []FaultJSON{{ID: 1, Kind: "pause", StartUnixMs: 11_500}, {ID: 2, Kind: "pause", StartUnixMs: 13_200}}
	a := availabilityOf(faults, nil, sum, 0)
	assert.Equal(t, "timeline", a.From)
	assert.Equal(t, 6, a.Seconds)
	assert.Equal(t, 3, a.SecondsWithOps)
	assert.InDelta(t, 2, a.LongestGapS, 1e-9)
	assert.InDelta(t, 1, a.LongestGapAtS, 1e-9)
	assert.InDelta(t, 1.5, *faults[0].FirstOpAfterS, 1e-9, "second 3 starts 1.5 s later")
	assert.InDelta(t, 0, *faults[1].FirstOpAfterS, 1e-9, "second 3 has operations")
	assert.Nil(t, faults[1].FirstStrongAfterS)
	assert.InDelta(t, 0.75, *a.ByKind["pause"].MedianFirstOpS, 1e-9)
	assert.InDelta(t, 2, *faults[0].GapS, 1e-9, "seconds 1 and 2")
	assert.InDelta(t, 1, *faults[1].GapS, 1e-9, "second 4")
	assert.InDelta(t, 1.5, *a.ByKind["pause"].MedianGapS, 1e-9)
}

func TestFaultNote(t *testing.T) {
	faults := []FaultJSON{
		{ID: 1, Kind: "pause", Target: "replica1", StartUnixMs: 1000, EndUnixMs: ptr(int64(2000))},
		{ID: 2, Kind: "client", Target: "client0", StartUnixMs: 2500},
		{ID: 3, Kind: "kill", Target: "replica2", Skipped: true, StartUnixMs: 3000},
		{ID: 4, Kind: "kill", Target: "replica0", StartUnixMs: 4000},
	}
	for _, c := range []struct {
		lo, hi int64
		want   string
	}{
		{100, 900, "outside the faults"},
		{900, 1100, "during fault 1 (pause replica1)"},
		{2100, 2400, "outside the faults, 0.100 s after fault 1 (pause replica1) ended"},
		{1500, 2600, "during fault 1 (pause replica1), fault 2 (client client0)"},
		{3000, 3100, "outside the faults, 0.500 s after fault 2 (client client0) ended"},
		{9000, 9100, "during fault 4 (kill replica0)"},
	} {
		assert.Equal(t, c.want, faultNote(faults, c.lo, c.hi), "[%d, %d]", c.lo, c.hi)
	}
}

// TestSummaryOfANemesisRun: a client the nemesis killed left a journal
// and no results; the run is complete without it, its journal is
// checked in place of its history (its unfinished write pending, and
// in the log: no log-mismatch), and the summary lists the faults.
func TestSummaryOfANemesisRun(t *testing.T) {
	dir := t.TempDir()
	writeComplete(t, dir, "client0")
	writeEvents(t, dir, "1000500 killed client1\n1000501 begin 1 client client1 -\n")
	done := check.Op{Session: "c1", Seq: 1, Level: check.Strong, Kind: check.Put, Key: "k", Value: "v1", InvokeNS: 1_000_100e6, ReturnNS: 1_000_200e6, OK: true}
	open := check.Op{Session: "c1", Seq: 2, Level: check.Weak, Kind: check.Put, Key: "k", Value: "v2", InvokeNS: 1_000_300e6}
	var j []byte
	j = check.AppendOp(j, check.Op{Session: "c1", Seq: 1, Level: check.Strong, Kind: check.Put, Key: "k", Value: "v1", InvokeNS: 1_000_100e6})
	j = check.AppendOp(j, open)
	j = check.AppendOp(j, done)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "journal-client1.jsonl"), j, 0o644))
	read := check.Op{Session: "c0", Seq: 1, Level: check.Strong, Kind: check.Get, Key: "k", Found: true, Ret: "v2", InvokeNS: 1_000_600e6, ReturnNS: 1_000_700e6, OK: true}
	require.NoError(t, check.WriteHistoryFile(filepath.Join(dir, "history-client0.jsonl"), []check.Op{read}))
	log := []check.LogEntry{
		{Slot: 1, Session: "c1", Seq: 1, Kind: applog.Put, Key: kvs.Key("k"), Value: "v1"},
		{Slot: 2, Session: "c1", Seq: 2, Kind: applog.Put, Key: kvs.Key("k"), Value: "v2"},
		{Slot: 3, Session: "c0", Seq: 1, Kind: applog.Get, Key: kvs.Key("k"), Ret: "v2", Found: true},
	}
	for _, r := range []string{"replica0", "replica1"} {
		require.NoError(t, check.WriteLogFile(filepath.Join(dir, "log-"+r+".jsonl"), log))
	}
	var out bytes.Buffer
	rep, err := Summarize(dir, summaryConf(t), &out, SummaryOptions{})
	require.NoError(t, err)
	assert.True(t, rep.OK(), out.String())
	assert.True(t, rep.Complete)
	assert.Empty(t, rep.MissingClients)
	assert.Equal(t, []string{"client1"}, rep.KilledClients)
	assert.Equal(t, 3, rep.Check.Checked, "the journal's two operations and client0's")
	require.Len(t, rep.Nemesis, 1)
	require.NotNil(t, rep.Availability)
	assert.Nil(t, rep.Kill, "a nemesis run has no single-kill account")
	assert.Contains(t, out.String(), "Killed by the nemesis: client1")
	assert.Contains(t, out.String(), "Nemesis: 1 faults (client 1)")
	assert.True(t, strings.Contains(out.String(), "Check: checked 3 operations: OK"), out.String())
}
