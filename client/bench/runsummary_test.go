package bench

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/config"
	"swiftpaxos/cost"
)

// Two processes that ran one after the other: the summary has one
// throughput, over the span from the first start to the last end, in both
// files; an interrupted run says so and is not clean.
func TestSummaryThroughputAndInterruption(t *testing.T) {
	dir := t.TempDir()
	for _, r := range []ProcessResults{
		{Alias: "client0", Protocol: "curpht", Threads: 1, Ops: 1000, DurationS: 1, ThroughputOps: 1000, StartUnixMs: 1_000_000, Complete: true},
		{Alias: "client1", Protocol: "curpht", Threads: 1, Ops: 1000, DurationS: 1, ThroughputOps: 1000, StartUnixMs: 1_003_000, Complete: false, Error: "thread 0: context canceled"},
	} {
		require.NoError(t, WriteResults(filepath.Join(dir, "results-"+r.Alias+".json"), &r))
	}
	var out bytes.Buffer
	rep, err := Summarize(dir, summaryConf(t), &out, SummaryOptions{Interrupted: true})
	require.NoError(t, err)
	assert.False(t, rep.OK())
	assert.InDelta(t, 4, rep.DurationS, 1e-9)
	assert.InDelta(t, 500, rep.ThroughputOps, 1e-9, "2000 ops over 4 s, not 1000 + 1000 ops/s")

	txt, err := os.ReadFile(filepath.Join(dir, "summary.txt"))
	require.NoError(t, err)
	assert.Equal(t, out.String(), string(txt))
	assert.True(t, strings.HasPrefix(out.String(), "INTERRUPTED RUN: "), out.String())
	assert.Equal(t, 1, strings.Count(out.String(), "ops/s\n")-2, "one run throughput besides the two per-process lines:\n%s", out.String())
	assert.Contains(t, out.String(), "Throughput:       500.0 ops/s\n")

	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	var js map[string]any
	require.NoError(t, json.Unmarshal(b, &js))
	assert.Equal(t, true, js["interrupted"])
	assert.InDelta(t, 500, js["throughput_ops"], 1e-9)
}

// summaryConf is a configuration of three replicas and two clients.
func summaryConf(t *testing.T) *config.Config {
	t.Helper()
	cfg, err := config.Parse("r.conf", strings.NewReader("-- Replicas --\nreplica0 127.0.0.1\nreplica1 127.0.0.2\nreplica2 127.0.0.3\n-- Clients --\nclient0 127.0.0.4\nclient1 127.0.0.5\n---\nprotocol: curpht\n"))
	require.NoError(t, err)
	return cfg
}

// writeComplete writes a complete results file for each alias into dir,
// with the process's cost.
func writeComplete(t *testing.T, dir string, aliases ...string) {
	t.Helper()
	for i, a := range aliases {
		r := ProcessResults{Alias: a, Protocol: "curpht", Threads: 1, Ops: 1000, DurationS: 1, ThroughputOps: 1000, StartUnixMs: 1_000_000 + int64(i), Complete: true,
			Cost: &cost.Usage{Alias: a, Role: cost.RoleClient, UserUs: 1000}}
		require.NoError(t, WriteResults(filepath.Join(dir, "results-"+a+".json"), &r))
	}
}

// A checked run whose clients recorded nothing has not passed its check:
// an empty history breaks no rule, and proves nothing either.
func TestSummaryEmptyHistoriesFailTheCheck(t *testing.T) {
	dir := t.TempDir()
	writeComplete(t, dir, "client0", "client1")
	for _, a := range []string{"client0", "client1"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "history-"+a+".jsonl"), nil, 0o644))
	}
	var out bytes.Buffer
	rep, err := Summarize(dir, summaryConf(t), &out, SummaryOptions{})
	require.NoError(t, err)
	assert.True(t, rep.Check.Ran)
	assert.False(t, rep.Check.OK)
	assert.False(t, rep.OK())
	assert.Contains(t, out.String(), "Check: FAILED: history-*.jsonl: no operation recorded: an empty history proves nothing\n")
}

// A client of the configuration without a results file makes the run
// incomplete, and the summary names it, rather than merging the others
// and saying complete.
func TestSummaryNamesClientsWithoutResults(t *testing.T) {
	dir := t.TempDir()
	writeComplete(t, dir, "client0")
	var out bytes.Buffer
	rep, err := Summarize(dir, summaryConf(t), &out, SummaryOptions{})
	require.NoError(t, err)
	assert.False(t, rep.Complete)
	assert.False(t, rep.OK())
	assert.Equal(t, []string{"client1"}, rep.MissingClients)
	require.NotNil(t, rep.Cost)
	assert.Equal(t, []string{"replica0", "replica1", "replica2", "client1"}, rep.Cost.Missing, "the cost line names it too")
	assert.True(t, strings.HasPrefix(out.String(),
		"INCOMPLETE RUN: client1 left no results-client1.json: the process did not run, or did not finish; the figures leave it out\n"), out.String())

	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	var js map[string]any
	require.NoError(t, json.Unmarshal(b, &js))
	assert.Equal(t, false, js["complete"])
	assert.Equal(t, []any{"client1"}, js["missing_clients"])

	// Every client reported: complete, and no missing_clients.
	writeComplete(t, dir, "client1")
	rep, err = Summarize(dir, summaryConf(t), &out, SummaryOptions{})
	require.NoError(t, err)
	assert.True(t, rep.Complete)
	assert.True(t, rep.OK())
	assert.Empty(t, rep.MissingClients)
}
