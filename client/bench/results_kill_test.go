package bench

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// killDir is a run directory of one client process over 10 s, started at
// Unix 1000 s, with events as events.txt and logs as the replicas' logs:
// 100 operations a second, half of them strong, none strong in second 5.
func killDir(t *testing.T, events string, logs map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	r := ProcessResults{Alias: "client0", Protocol: "curpht", Threads: 1, Ops: 1000, DurationS: 10, ThroughputOps: 100,
		StartUnixMs: 1_000_000, Complete: true}
	for i := range 10 {
		strong := int64(50)
		if i == 5 {
			strong = 0
		}
		r.Timeline = append(r.Timeline, 50+strong)
		r.TimelineFast = append(r.TimelineFast, strong)
		r.TimelineSlow = append(r.TimelineSlow, 0)
		r.FastPath += strong
	}
	require.NoError(t, WriteResults(filepath.Join(dir, "results-client0.json"), &r))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "events.txt"), []byte(events), 0o644))
	for alias, log := range logs {
		require.NoError(t, os.WriteFile(filepath.Join(dir, alias+".log"), []byte(log), 0o644))
	}
	return dir
}

// The leader's kill: the summary names the replica that started the next
// view and when (the first such line after the kill in a surviving
// replica's log), and shows the operations per second around it.
func TestSummaryOfALeadersKill(t *testing.T) {
	dir := killDir(t, "1005300 killed replica0\n", map[string]string{
		"replica0": logLine(1_000_050, ViewStartedMessage),
		"replica1": logLine(1_000_100, "replica listening") + logLine(1_007_000, ViewStartedMessage),
		"replica2": logLine(1_006_100, ViewStartedMessage) + logLine(1_006_200, "elected leader"),
	})
	rep, txt := summarizeDir(t, dir)
	require.NotNil(t, rep.Kill)
	k := rep.Kill
	assert.Equal(t, "replica0", k.Replica)
	assert.Equal(t, 5.3, k.KilledS)
	assert.Equal(t, "replica2", k.NewLeader, "the first view after the kill")
	require.NotNil(t, k.ViewS)
	assert.Equal(t, int64(1_006_100), *k.ViewUnixMs)
	assert.Equal(t, 6.1, *k.ViewS)
	assert.InDelta(t, 0.8, *k.ViewAfterKillS, 1e-9)
	assert.Nil(t, rep.Restart)
	assert.Contains(t, txt, "Kill of replica0 at 5.30 s: replica2 started a view at 6.10 s (0.80 s after the kill)\n")
	assert.Contains(t, txt, "  all operations per second, s 2-9: 100 100 100 [killed] 50 [replica2 leads] 100 100 100 100\n")
	assert.Contains(t, txt, "  strong operations per second, s 2-9: 50 50 50 [killed] 0 [replica2 leads] 50 50 50 50\n")
}

// A follower's kill starts no view; a replica killed and started again is
// a restart, not a kill.
func TestSummaryOfAFollowersKillAndOfARestart(t *testing.T) {
	rep, txt := summarizeDir(t, killDir(t, "1005300 killed replica2\n", nil))
	require.NotNil(t, rep.Kill)
	assert.Nil(t, rep.Kill.ViewS)
	assert.Empty(t, rep.Kill.NewLeader)
	assert.Contains(t, txt, "Kill of replica2 at 5.30 s: no other replica started a view after it\n")
	assert.Contains(t, txt, "  strong operations per second, s 2-8: 50 50 50 [killed] 0 50 50 50\n")

	rep, txt = summarizeDir(t, killDir(t, "1005300 killed replica2\n1006400 restarted replica2\n", nil))
	assert.Nil(t, rep.Kill)
	assert.NotNil(t, rep.Restart)
	assert.NotContains(t, txt, "Kill of")
}
