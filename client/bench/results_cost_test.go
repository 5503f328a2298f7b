package bench

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/cost"
)

// The summary merges the client's cost from its results with the
// replicas' cost files, a restarted replica's second lifetime included,
// and names the replica that wrote none.
func TestSummaryMergesCost(t *testing.T) {
	dir := restartDir(t, "")
	path := filepath.Join(dir, "results-client0.json")
	r, err := ReadResults(path)
	require.NoError(t, err)
	r.Cost = &cost.Usage{Alias: "client0", Role: cost.RoleClient, UserUs: 20_000, SysUs: 10_000,
		IO: cost.IO{Reads: 2000, Writes: 3000}, Links: []cost.Link{{To: "replica0", Conns: 1, Messages: 4000, Bytes: 400_000, Batches: 2000}}}
	require.NoError(t, WriteResults(path, &r))
	require.NoError(t, cost.WriteFile(filepath.Join(dir, "cost-replica2.2.json"),
		cost.Usage{Alias: "replica2", Role: cost.RoleReplica, UserUs: 4000, SysUs: 2000, IO: cost.IO{Reads: 1000}, GCPauseMaxUs: 500}))
	require.NoError(t, cost.WriteFile(filepath.Join(dir, "cost-replica0.json"),
		cost.Usage{Alias: "replica0", Role: cost.RoleReplica, UserUs: 40_000, SysUs: 20_000, IO: cost.IO{Reads: 3000, Writes: 1000}}))

	rep, txt := summarizeDir(t, dir)
	require.NotNil(t, rep.Cost)
	c := rep.Cost
	assert.Equal(t, int64(2000), c.Ops)
	assert.Equal(t, []string{"replica1"}, c.Missing)
	var aliases []string
	for _, p := range c.Processes {
		aliases = append(aliases, p.Alias)
	}
	assert.Equal(t, []string{"replica0", "replica2", "client0"}, aliases, "replicas in the configuration's order, then clients")
	assert.InDelta(t, 48.0, c.PerOp.CPUUs, 1e-9) // 96 ms over 2000 operations
	assert.InDelta(t, 5.0, c.PerOp.Syscalls, 1e-9)
	assert.InDelta(t, 2.0, c.PerOp.Msgs, 1e-9)
	assert.InDelta(t, 0.5, c.GCPauseMaxMs, 1e-9)
	assert.Contains(t, txt, "Cost per op: 48.0 us CPU (user 32.0, sys 16.0), 5.0 syscalls, 2.0 msgs, 200 B, 0.0 allocs; "+
		"GC pause total 0.00 ms, max 0.50 ms (without replica1: no report)\n")
}

// Results without cost (an older build) give no cost section.
func TestSummaryWithoutCost(t *testing.T) {
	rep, txt := summarizeDir(t, restartDir(t, ""))
	assert.Nil(t, rep.Cost)
	assert.NotContains(t, txt, "Cost per op")
}
