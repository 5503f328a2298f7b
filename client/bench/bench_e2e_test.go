package bench_test

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"swiftpaxos/client"
	"swiftpaxos/client/bench"
	"swiftpaxos/client/internal/localcluster"
	"swiftpaxos/cost"
	curpht "swiftpaxos/curp-ht"
)

// TestRunBenchmarkLocalCluster runs the real driver against three CURP-HT
// replicas on localhost.
func TestRunBenchmarkLocalCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a localhost cluster")
	}
	cfg := localcluster.Config(t, localcluster.FreePorts(t, 3), `
reqs: 300
clientThreads: 2
pipeline: true
pendings: 5
weakRatio: 50
weakWrites: 20
writes: 20
keySpace: 1000
zipfSkew: 0.99
commandSize: 32
checkerMode: true
`)
	dir := t.TempDir()
	stop := localcluster.Start(t, cfg, dir)
	var out, progress bytes.Buffer
	path := filepath.Join(dir, "results-client0.json")
	err := bench.Run(t.Context(), bench.Options{Config: cfg, Alias: "client0", Policy: curpht.NewClientPolicy,
		Log: zaptest.NewLogger(t), Out: &out, Progress: &progress, ResultsPath: path, Seed: 1})
	require.NoError(t, err, "summary:\n%s", out.String())
	t.Log("\n" + out.String())
	assert.Contains(t, out.String(), "Total operations: 600")

	r, err := bench.ReadResults(path)
	require.NoError(t, err)
	assert.True(t, r.Complete)
	assert.Equal(t, int64(600), r.Ops)
	assert.Equal(t, []uint64{1, 2}, r.Seeds)
	assert.Equal(t, 5, r.Pendings)
	var samples, timeline int64
	for _, c := range []bench.Class{bench.StrongWrite, bench.StrongRead, bench.WeakWrite, bench.WeakRead} {
		samples += r.Latency.Of(c).Count()
	}
	for _, n := range r.Timeline {
		timeline += n
	}
	assert.Equal(t, int64(600), samples)
	assert.Equal(t, int64(600), timeline)
	assert.Equal(t, r.Latency.StrongRead.Count()+r.Latency.StrongWrite.Count(), r.FastPath+r.SlowPath)
	assert.Greater(t, r.ThroughputOps, 0.0)

	// The cost report: the client's in its results, each replica's in its
	// file once it stops, merged by the summary. The four processes share
	// this test's process, so only the transport figures are their own.
	require.NotNil(t, r.Cost)
	assert.Equal(t, "client0", r.Cost.Alias)
	require.Len(t, r.Cost.Links, 3, "one link per replica")
	for i, l := range r.Cost.Links {
		assert.Equal(t, fmt.Sprintf("replica%d", i), l.To)
		assert.Equal(t, 1, l.Conns, "one connection per process: its sessions share it")
		assert.Positive(t, l.Messages)
	}
	assert.GreaterOrEqual(t, r.Cost.Writes, cost.Total(r.Cost.Links).Batches, "a write per batch")
	assert.Positive(t, r.Cost.Reads)
	stop()
	var sum bytes.Buffer
	rep, err := bench.Summarize(dir, cfg, &sum, bench.SummaryOptions{})
	require.NoError(t, err)
	require.NotNil(t, rep.Cost)
	assert.Empty(t, rep.Cost.Missing)
	var aliases []string
	for _, p := range rep.Cost.Processes {
		aliases = append(aliases, p.Alias)
		assert.Positive(t, p.Reads, p.Alias)
		assert.Positive(t, p.Writes, p.Alias)
		assert.Positive(t, p.PerOp.Msgs, p.Alias)
	}
	assert.Equal(t, []string{"replica0", "replica1", "replica2", "client0"}, aliases)
	assert.Equal(t, int64(600), rep.Cost.Ops)
	assert.Positive(t, rep.Cost.PerOp.CPUUs)
	assert.Greater(t, rep.Cost.PerOp.Msgs, 3.0, "a strong write alone is a request, acknowledgements and replies")
	assert.Contains(t, sum.String(), "Cost per op: ")
}

func TestRunBenchmarkErrors(t *testing.T) {
	ports := localcluster.FreePorts(t, 3) // released: nothing listens there
	cfg := localcluster.Config(t, ports, "reqs: 10\nreplyTimeout: 5")
	ctx := t.Context()

	err := bench.Run(ctx, bench.Options{Config: cfg, Alias: "client0"})
	assert.ErrorContains(t, err, "policy")

	err = bench.Run(ctx, bench.Options{Config: cfg, Alias: "client9", Policy: curpht.NewClientPolicy})
	assert.ErrorContains(t, err, `"client9" is not a client`)

	err = bench.Run(ctx, bench.Options{Config: cfg, Alias: "replica0", Policy: curpht.NewClientPolicy})
	assert.ErrorContains(t, err, `"replica0" is not a client`)

	var out bytes.Buffer
	err = bench.Run(ctx, bench.Options{Config: cfg, Alias: "client0", Policy: curpht.NewClientPolicy, Out: &out})
	require.Error(t, err)
	assert.ErrorIs(t, err, client.ErrUnreachable)
	assert.Contains(t, err.Error(), "client client0: cannot reach the cluster")
	assert.Empty(t, out.String(), "no summary without a run")
}

// TestRunBenchmarkDurableCost: with durable replicas the cost report has
// their log's fsyncs, per operation and with their mean duration, and the
// summary line says so.
func TestRunBenchmarkDurableCost(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a localhost cluster")
	}
	dir := t.TempDir()
	cfg := localcluster.Config(t, localcluster.FreePorts(t, 3), fmt.Sprintf("reqs: 100\nclientThreads: 2\nwrites: 50\ndataDir: %s\n", filepath.Join(dir, "data")))
	stop := localcluster.Start(t, cfg, dir)
	err := bench.Run(t.Context(), bench.Options{Config: cfg, Alias: "client0", Policy: curpht.NewClientPolicy,
		Log: zaptest.NewLogger(t), Out: io.Discard, ResultsPath: filepath.Join(dir, "results-client0.json"), Seed: 1})
	require.NoError(t, err)
	stop()
	var sum bytes.Buffer
	rep, err := bench.Summarize(dir, cfg, &sum, bench.SummaryOptions{})
	require.NoError(t, err)
	require.NotNil(t, rep.Cost)
	for _, p := range rep.Cost.Processes {
		if p.Role == cost.RoleReplica {
			assert.Positive(t, p.Fsyncs, p.Alias)
			assert.Positive(t, p.FsyncUs, p.Alias)
		} else {
			assert.Zero(t, p.Fsyncs, p.Alias)
		}
	}
	assert.Positive(t, rep.Cost.PerOp.Fsyncs)
	assert.Positive(t, rep.Cost.FsyncMeanUs)
	assert.Contains(t, sum.String(), " fsyncs (mean ")
}
