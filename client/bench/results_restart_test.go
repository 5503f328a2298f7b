package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/config"
)

// restartDir is a run directory of one client process over 20 s, started
// at Unix 1000 s, with replica2 killed at 5.3 s and restarted at 6.4 s:
// 90% of the strong operations are fast before the kill, none while it is
// down, 80% from second 9 on. replicaLog is replica2's log.
func restartDir(t *testing.T, replicaLog string) string {
	t.Helper()
	dir := t.TempDir()
	r := ProcessResults{Alias: "client0", Protocol: "curpht", Threads: 1, Ops: 2000, DurationS: 20, ThroughputOps: 100,
		StartUnixMs: 1_000_000, Complete: true}
	for i := range 20 {
		fast, slow := int64(90), int64(10)
		switch {
		case i >= 5 && i < 9:
			fast, slow = 0, 100
		case i >= 9:
			fast, slow = 80, 20
		}
		r.Timeline = append(r.Timeline, 100)
		r.TimelineFast = append(r.TimelineFast, fast)
		r.TimelineSlow = append(r.TimelineSlow, slow)
		r.FastPath += fast
		r.SlowPath += slow
	}
	require.NoError(t, WriteResults(filepath.Join(dir, "results-client0.json"), &r))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "events.txt"), []byte("1005300 killed replica2\n1006400 restarted replica2\n"), 0o644))
	if replicaLog != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "replica2.log"), []byte(replicaLog), 0o644))
	}
	return dir
}

func summarizeDir(t *testing.T, dir string) (RunSummary, string) {
	t.Helper()
	cfg, err := config.Parse("r.conf", strings.NewReader("-- Replicas --\nreplica0 127.0.0.1\nreplica1 127.0.0.2\nreplica2 127.0.0.3\n-- Clients --\nclient0 127.0.0.4\n---\nprotocol: curpht\n"))
	require.NoError(t, err)
	var out bytes.Buffer
	_, err = Summarize(dir, cfg, &out, SummaryOptions{})
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	var rep RunSummary
	require.NoError(t, json.Unmarshal(b, &rep))
	return rep, out.String()
}

// logLine is a replica log line in zap's console format at Unix ms.
func logLine(ms int64, msg string) string {
	return fmt.Sprintf("1970-01-01T00:%02d:%02d.%03dZ\tinfo\treplica/core.go:1\t%s\t{\"alias\": \"replica2\"}\n",
		ms/60_000, ms/1000%60, ms%1000, msg)
}

func TestSummaryOfARestart(t *testing.T) {
	log := logLine(1_000_100, "replica listening") +
		logLine(1_002_000, RejoinedMessage) + // the first lifetime: before the restart
		logLine(1_006_500, "replica listening") +
		logLine(1_007_000, "a line that mentions "+RejoinedMessage+" but says more") +
		logLine(1_007_250, RejoinedMessage)
	rep, txt := summarizeDir(t, restartDir(t, log))

	assert.Equal(t, int64(1_000_000), rep.StartUnixMs)
	require.Len(t, rep.TimelineFast, 20)
	assert.Equal(t, int64(90), rep.TimelineFast[0])
	assert.Equal(t, int64(100), rep.TimelineSlow[6])
	require.Len(t, rep.Events, 2)
	assert.InDelta(t, 5.3, rep.Events[0].S, 1e-9)

	r := rep.Restart
	require.NotNil(t, r)
	assert.Equal(t, "replica2", r.Replica)
	assert.InDelta(t, 5.3, r.KilledS, 1e-9)
	assert.InDelta(t, 6.4, r.RestartedS, 1e-9)
	require.NotNil(t, r.WitnessS)
	assert.Equal(t, int64(1_007_250), *r.WitnessUnixMs)
	assert.InDelta(t, 7.25, *r.WitnessS, 1e-9)
	assert.InDelta(t, 0.85, *r.WitnessAfterRestartS, 1e-9)
	require.NotNil(t, r.FastShareBefore)
	assert.InDelta(t, 0.9, *r.FastShareBefore, 1e-9, "seconds 0-4")
	require.NotNil(t, r.FastShareAfter)
	// Seconds 8-12: one second still down, then four at 80%.
	assert.InDelta(t, (0+4*80)/500.0, *r.FastShareAfter, 1e-9)

	assert.Contains(t, txt, "Restart of replica2: killed at 5.30 s, started again at 6.40 s, a witness again at 7.25 s (0.85 s after its start)")
	assert.Contains(t, txt, "Fast-path share: 90.0% over the 5 s before the kill, 64.0% over the 5 s after it was a witness again")
	assert.Contains(t, txt, "per second (%), s 2-12: 90 90 90 [killed] 0 [restarted] 0 [witness] 0 0 80 80 80 80")
}

func TestSummaryOfARestartWithoutRejoin(t *testing.T) {
	rep, txt := summarizeDir(t, restartDir(t, logLine(1_006_500, "replica listening")))
	r := rep.Restart
	require.NotNil(t, r)
	assert.Nil(t, r.WitnessS)
	assert.Nil(t, r.WitnessUnixMs)
	assert.Nil(t, r.FastShareAfter)
	assert.NotNil(t, r.FastShareBefore)
	assert.Contains(t, txt, `never logged "rejoined as a full member" after its start`)
	assert.Contains(t, txt, "over the 5 s before the kill, n/a over")

	// A missing log is no rejoin either; a bad events line is an error.
	rep, _ = summarizeDir(t, restartDir(t, ""))
	assert.Nil(t, rep.Restart.WitnessS)
	dir := restartDir(t, "")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "events.txt"), []byte("5 exploded replica2\n"), 0o644))
	cfg, err := config.Parse("r.conf", strings.NewReader("-- Replicas --\nreplica0 127.0.0.1\nreplica1 127.0.0.2\nreplica2 127.0.0.3\n-- Clients --\nclient0 127.0.0.4\n---\nprotocol: curpht\n"))
	require.NoError(t, err)
	_, err = Summarize(dir, cfg, &bytes.Buffer{}, SummaryOptions{})
	require.ErrorContains(t, err, "events.txt:1:")
}

// TestSummaryOfAnEarlyRestart: a kill 2.3 s into the run leaves two
// whole seconds before it, and the text says so.
func TestSummaryOfAnEarlyRestart(t *testing.T) {
	dir := restartDir(t, "")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "events.txt"), []byte("1002300 killed replica2\n1003300 restarted replica2\n"), 0o644))
	rep, txt := summarizeDir(t, dir)
	assert.InDelta(t, 0.9, *rep.Restart.FastShareBefore, 1e-9)
	assert.Contains(t, txt, "90.0% over the 2 s before the kill")
}

func TestSummaryWithoutEvents(t *testing.T) {
	dir := restartDir(t, "")
	require.NoError(t, os.Remove(filepath.Join(dir, "events.txt")))
	rep, txt := summarizeDir(t, dir)
	assert.Nil(t, rep.Restart)
	assert.Empty(t, rep.Events)
	assert.NotContains(t, txt, "Restart")
}
