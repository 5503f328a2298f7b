package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/client/bench"
	"swiftpaxos/cost"
	"swiftpaxos/scripts/internal/sweep"
)

func writeSummary(t *testing.T, dir string, s bench.RunSummary) {
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
	good := bench.RunSummary{Protocol: "curpho", ThroughputOps: 25000.4, Complete: true,
		Strong: bench.ClassJSON{Ops: 4, P50Ms: 1.5, P99Ms: 4, FastPath: &fast, SlowPath: &slow},
		Weak:   bench.ClassJSON{Ops: 5, P50Ms: 0.5, P99Ms: 2},
		Cost:   &cost.Section{Ops: 9, PerOp: cost.PerOp{CPUUs: 31.5, Fsyncs: 0.125}}}
	writeSummary(t, filepath.Join(tmp, "a"), good)
	bad := good
	bad.Errors = 2
	writeSummary(t, filepath.Join(tmp, "b"), bad)

	row := func(value, it, status, dir string) string {
		var out strings.Builder
		require.NoError(t, run([]string{"row", "-csv", csv, "-param", "pendings", "-value", value,
			"-iteration", it, "-protocol", "curpht", "-status", status, filepath.Join(tmp, dir)}, &out, &strings.Builder{}))
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
	assert.Equal(t, 31.5, rows[0].CPUPerOp)
	assert.Equal(t, 0.125, rows[0].FsyncsPerOp)
	assert.Equal(t, "curpht", rows[3].Protocol, "no summary: the given protocol")
	assert.False(t, rows[3].Measured)

	var out strings.Builder
	require.NoError(t, run([]string{"summary", csv}, &out, &strings.Builder{}))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 3)
	assert.True(t, strings.HasPrefix(lines[1], "pendings,curpho,15,3,1,25000.4,25000.4,25000.4,1.500,"), lines[1])
	assert.Equal(t, "pendings,curpht,30,1,0"+strings.Repeat(",", 3*len(sweep.Metrics)), lines[2])

	out.Reset()
	require.NoError(t, run([]string{"summary", "-md", csv}, &out, &strings.Builder{}))
	assert.Contains(t, out.String(), "| 15 | curpho | 1/3 | 25000 | 1.50 | 4.00 | 0.50 | 2.00 | 75% | 31.5 | 0.125 |\n")
	assert.True(t, strings.HasSuffix(lines[1], ",0.750,0.750,0.750,31.50,31.50,31.50,0.12500,0.12500,0.12500"), lines[1])
}

// TestRowCost: the cost columns of sweep.csv as sweepstat row writes them
// from summary.json: measured, 0 fsyncs in memory, empty without cost.
func TestRowCost(t *testing.T) {
	tmp := t.TempDir()
	csv := filepath.Join(tmp, "sweep.csv")
	base := bench.RunSummary{Protocol: "curpht", ThroughputOps: 1000, Complete: true}
	disk, mem, old := base, base, base
	disk.Cost = &cost.Section{Ops: 100, PerOp: cost.PerOp{CPUUs: 41.237, Fsyncs: 0.0475}, FsyncMeanUs: 600}
	mem.Cost = &cost.Section{Ops: 100, PerOp: cost.PerOp{CPUUs: 20.5}}
	for dir, s := range map[string]bench.RunSummary{"disk": disk, "mem": mem, "old": old} {
		writeSummary(t, filepath.Join(tmp, dir), s)
	}
	for _, dir := range []string{"disk", "mem", "old"} {
		require.NoError(t, run([]string{"row", "-csv", csv, "-param", "dataDir", "-value", dir,
			"-iteration", "1", "-status", "0", filepath.Join(tmp, dir)}, &strings.Builder{}, &strings.Builder{}))
	}
	b, err := os.ReadFile(csv)
	require.NoError(t, err)
	assert.Equal(t, strings.Join(sweep.Header, ",")+"\n"+
		"dataDir,disk,1,curpht,1000.0,,,,,0,0,41.24,0.04750,0,true\n"+
		"dataDir,mem,1,curpht,1000.0,,,,,0,0,20.50,0.00000,0,true\n"+
		"dataDir,old,1,curpht,1000.0,,,,,0,0,,,0,true\n", string(b))
}

// TestRowAppendsToOlderCSV: sweep.sh -o with the directory of a sweep
// made before the cost columns. The file is rewritten with them, its rows
// keep their values under the right names, and the new row follows.
func TestRowAppendsToOlderCSV(t *testing.T) {
	tmp := t.TempDir()
	csv := filepath.Join(tmp, "sweep.csv")
	old := "param,value,iteration,protocol,throughput_ops,strong_p50_ms,strong_p99_ms,weak_p50_ms,weak_p99_ms,fast_path,slow_path,errors,ok\n" +
		"pendings,15,1,curpht,25000.0,1.500,4.000,0.500,2.000,3,1,0,true\n" +
		"pendings,15,2,curpht,,,,,,,,,false\n"
	require.NoError(t, os.WriteFile(csv, []byte(old), 0o644))

	var out strings.Builder
	require.NoError(t, run([]string{"summary", csv}, &out, &strings.Builder{}), "an older sweep.csv is read as it is")
	assert.Equal(t, "pendings,curpht,15,2,1,25000.0,25000.0,25000.0,1.500,1.500,1.500,4.000,4.000,4.000,0.500,0.500,0.500,2.000,2.000,2.000,0.750,0.750,0.750,,,,,,\n",
		strings.SplitAfter(out.String(), "\n")[1], "no cost: empty cells")

	fast, slow := int64(3), int64(1)
	writeSummary(t, filepath.Join(tmp, "a"), bench.RunSummary{Protocol: "curpht", ThroughputOps: 26000, Complete: true,
		Strong: bench.ClassJSON{Ops: 4, P50Ms: 1.5, P99Ms: 4, FastPath: &fast, SlowPath: &slow},
		Cost:   &cost.Section{Ops: 9, PerOp: cost.PerOp{CPUUs: 30}}})
	var note strings.Builder
	out.Reset()
	require.NoError(t, run([]string{"row", "-csv", csv, "-param", "pendings", "-value", "15",
		"-iteration", "3", "-status", "0", filepath.Join(tmp, "a")}, &out, &note))
	assert.Equal(t, "26000\n", out.String())
	assert.Contains(t, note.String(), "added the columns cpu_us_per_op and fsyncs_per_op")

	b, err := os.ReadFile(csv)
	require.NoError(t, err)
	assert.Equal(t, strings.Join(sweep.Header, ",")+"\n"+
		"pendings,15,1,curpht,25000.0,1.500,4.000,0.500,2.000,3,1,,,0,true\n"+
		"pendings,15,2,curpht,,,,,,,,,,,false\n"+
		"pendings,15,3,curpht,26000.0,1.500,4.000,,,3,1,30.00,0.00000,0,true\n", string(b))

	out.Reset()
	require.NoError(t, run([]string{"summary", "-md", csv}, &out, &strings.Builder{}))
	assert.Contains(t, out.String(), "| 15 | curpht | 2/3 | 25500 (25000–26000) | 1.50 | 4.00 | 0.50 | 2.00 | 75% | 30.0 | 0.000 |\n",
		"the cost of the one run that has it")
	note.Reset()
	require.NoError(t, run([]string{"row", "-csv", csv, "-param", "pendings", "-value", "15",
		"-iteration", "4", "-status", "0", filepath.Join(tmp, "a")}, &strings.Builder{}, &note))
	assert.Empty(t, note.String(), "upgraded once")
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"plot"},
		{"row", "-csv", "x.csv", "dir"},
		{"summary"},
	} {
		assert.Error(t, run(args, &strings.Builder{}, &strings.Builder{}), "%q", args)
	}
}
