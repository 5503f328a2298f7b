package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/client"
	"swiftpaxos/scripts/internal/sweep"
)

func writeSummary(t *testing.T, dir string, s client.RunSummary) {
	t.Helper()
	b, err := json.Marshal(s)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "summary.json"), b, 0o644))
}

func TestRowAndSummary(t *testing.T) {
	tmp := t.TempDir()
	csv := filepath.Join(tmp, "sweep.csv")
	fast, slow := int64(3), int64(1)
	good := client.RunSummary{Protocol: "curpho", ThroughputOps: 25000.4, Complete: true,
		Strong: client.ClassJSON{Ops: 4, P50Ms: 1.5, P99Ms: 4, FastPath: &fast, SlowPath: &slow},
		Weak:   client.ClassJSON{Ops: 5, P50Ms: 0.5, P99Ms: 2}}
	writeSummary(t, filepath.Join(tmp, "a"), good)
	bad := good
	bad.Errors = 2
	writeSummary(t, filepath.Join(tmp, "b"), bad)

	row := func(value, it, status, dir string) string {
		var out strings.Builder
		require.NoError(t, run([]string{"row", "-csv", csv, "-param", "pendings", "-value", value,
			"-iteration", it, "-protocol", "curpht", "-status", status, filepath.Join(tmp, dir)}, &out))
		return out.String()
	}
	assert.Equal(t, "25000\n", row("15", "1", "0", "a"), "prints the throughput")
	assert.Equal(t, "25000\n", row("15", "2", "1", "a"), "a failed launcher")
	assert.Equal(t, "25000\n", row("15", "3", "0", "b"), "operations failed")
	assert.Equal(t, "-\n", row("30", "1", "2", "missing"))

	rows, err := sweep.ReadCSVFile(csv)
	require.NoError(t, err)
	require.Len(t, rows, 4)
	assert.Equal(t, "curpho", rows[0].Protocol, "the summary's protocol wins")
	assert.True(t, rows[0].OK)
	assert.False(t, rows[1].OK)
	assert.False(t, rows[2].OK)
	assert.Equal(t, int64(2), rows[2].Errors)
	assert.Equal(t, "curpht", rows[3].Protocol, "no summary: the given protocol")
	assert.False(t, rows[3].Measured)

	var out strings.Builder
	require.NoError(t, run([]string{"summary", csv}, &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 3)
	assert.True(t, strings.HasPrefix(lines[1], "pendings,curpho,15,3,1,25000.4,25000.4,25000.4,1.500,"), lines[1])
	assert.Equal(t, "pendings,curpht,30,1,0"+strings.Repeat(",", 3*len(sweep.Metrics)), lines[2])

	out.Reset()
	require.NoError(t, run([]string{"summary", "-md", csv}, &out))
	assert.Contains(t, out.String(), "| 15 | curpho | 1/3 | 25000 | 1.50 | 4.00 | 0.50 | 2.00 | 75% |")
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"plot"},
		{"row", "-csv", "x.csv", "dir"},
		{"summary"},
	} {
		assert.Error(t, run(args, &strings.Builder{}), "%q", args)
	}
}
