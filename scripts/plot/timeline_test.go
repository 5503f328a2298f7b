package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/check"
	"swiftpaxos/client/bench"
	"swiftpaxos/wire"
)

// writeNemesisRun writes the summary.json of a 5-s run with three faults
// (one healed, a client kill, a kill for good) and one skipped, and,
// with ops, a history.
func writeNemesisRun(t *testing.T, ops []check.Op) string {
	t.Helper()
	dir := t.TempDir()
	end := 2.5
	s := bench.RunSummary{Protocol: "curpho", StartUnixMs: 10_000,
		Timeline: []int64{100, 50, 0, 80, 90}, TimelineFast: []int64{40, 20, 0, 30, 30}, TimelineSlow: []int64{10, 5, 0, 10, 10},
		Nemesis: []bench.FaultJSON{
			{ID: 1, Kind: "pause", Target: "replica1", StartS: 1.2, EndS: &end},
			{ID: 2, Kind: "client", Target: "client0", StartS: 3},
			{ID: 3, Kind: "kill", Skipped: true, StartS: 3.5},
			{ID: 4, Kind: "kill", Target: "replica2", StartS: 4},
		}}
	b, err := json.Marshal(s)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "summary.json"), b, 0o644))
	if ops != nil {
		require.NoError(t, check.WriteHistoryFile(filepath.Join(dir, "history-client1.jsonl"), ops))
	}
	return dir
}

func TestLoadTimelineRunFromTheSummary(t *testing.T) {
	r, err := loadTimelineRun(writeNemesisRun(t, nil))
	require.NoError(t, err)
	assert.Equal(t, 1.0, r.Bin)
	assert.Equal(t, []float64{100, 50, 0, 80, 90}, r.All)
	assert.Equal(t, []float64{50, 25, 0, 40, 40}, r.Strong)
	assert.Equal(t, []faultBand{
		{Kind: "pause", Target: "replica1", From: 1.2, To: 2.5},
		{Kind: "client", Target: "client0", From: 3, To: 3},
		{Kind: "kill", Target: "replica2", From: 4, To: 4, Open: true},
	}, r.Faults, "the skipped fault is not drawn")
}

// TestLoadTimelineRunFromTheHistories: a checked run is drawn in 100-ms
// bins of completions; pending operations do not count.
func TestLoadTimelineRunFromTheHistories(t *testing.T) {
	op := func(seq wire.Seq, level check.Level, retMs int64) check.Op {
		return check.Op{Session: "s", Seq: seq, Level: level, Kind: check.Get, Key: "k", InvokeNS: (retMs - 1) * 1e6, ReturnNS: retMs * 1e6, OK: true}
	}
	ops := []check.Op{op(1, check.Weak, 10_050), op(2, check.Strong, 10_080), op(3, check.Strong, 10_250),
		{Session: "s", Seq: 4, Level: check.Strong, Kind: check.Get, Key: "k", InvokeNS: 10_300e6}}
	r, err := loadTimelineRun(writeNemesisRun(t, ops))
	require.NoError(t, err)
	assert.Equal(t, historyBin, r.Bin)
	require.Len(t, r.All, 3)
	assert.InDeltaSlice(t, []float64{20, 0, 10}, r.All, 1e-9)
	assert.InDeltaSlice(t, []float64{10, 0, 10}, r.Strong, 1e-9)
}

func TestPlotMainTimeline(t *testing.T) {
	dir := writeNemesisRun(t, nil)
	out := filepath.Join(t.TempDir(), "charts")
	var stdout bytes.Buffer
	require.NoError(t, plotMain([]string{"-timeline", dir, "-labels", "nemesis run", "-out", out}, &stdout))
	f := filepath.Join(out, "timeline-nemesis_run.png")
	assert.Equal(t, f+"\n", stdout.String())
	requirePNG(t, f)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "summary.json"), []byte(`{"protocol": "curpho"}`), 0o644))
	assert.ErrorContains(t, plotMain([]string{"-timeline", dir, "-out", out}, &stdout), "no start_unix_ms or no timeline")
}
