package sweep

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/client/bench"
	"swiftpaxos/cost"
)

const sample = `param,value,iteration,protocol,throughput_ops,strong_p50_ms,strong_p99_ms,weak_p50_ms,weak_p99_ms,fast_path,slow_path,cpu_us_per_op,fsyncs_per_op,errors,ok
batchDelayUs,0,1,curpht,40000.0,1.400,5.000,0.900,4.600,750,250,32.86,0.04747,0,true
batchDelayUs,50,1,curpht,42000.5,1.300,4.000,,,100,0,20.51,0.00000,0,true
batchDelayUs,0,2,curpht,,,,,,,,,,,false
batchDelayUs,50,2,curpht,41000.0,1.300,4.000,,,100,0,,,0,true
`

// sampleV1 is a sweep.csv of the older layout, without the cost columns.
const sampleV1 = `param,value,iteration,protocol,throughput_ops,strong_p50_ms,strong_p99_ms,weak_p50_ms,weak_p99_ms,fast_path,slow_path,errors,ok
batchDelayUs,0,1,curpht,40000.0,1.400,5.000,0.900,4.600,750,250,3,false
batchDelayUs,0,2,curpht,,,,,,,,,false
`

func TestHeader(t *testing.T) {
	assert.Equal(t, "param,value,iteration,protocol,throughput_ops,strong_p50_ms,strong_p99_ms,weak_p50_ms,weak_p99_ms,"+
		"fast_path,slow_path,cpu_us_per_op,fsyncs_per_op,errors,ok", strings.Join(Header, ","))
	assert.Equal(t, "ok", Header[len(Header)-1], "sweep.sh reads ok as the last column")
	assert.Equal(t, HeaderV1, slices.DeleteFunc(slices.Clone(Header), func(c string) bool { return slices.Contains(costCols, c) }),
		"the older header is the current one without the cost columns")
	assert.Equal(t, []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "", "", "l", "m"},
		fromV1([]string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m"}), "empty cost cells before errors")
}

func TestReadCSV(t *testing.T) {
	rows, err := ReadCSV("s.csv", strings.NewReader(sample))
	require.NoError(t, err)
	require.Len(t, rows, 4)

	r := rows[0]
	assert.Equal(t, Row{Param: "batchDelayUs", Value: "0", Iteration: 1, Protocol: "curpht", Measured: true,
		Throughput: 40000, StrongP50: 1.4, StrongP99: 5, WeakP50: 0.9, WeakP99: 4.6,
		FastPath: 750, SlowPath: 250, CPUPerOp: 32.86, FsyncsPerOp: 0.04747, OK: true}, r)
	assert.InDelta(t, 0.75, r.FastShare(), 1e-12)

	assert.True(t, math.IsNaN(rows[1].WeakP50), "an empty latency cell is NaN")
	assert.True(t, rows[1].Measured)
	assert.Equal(t, 20.51, rows[1].CPUPerOp)
	assert.Equal(t, 0.0, rows[1].FsyncsPerOp, "in memory: 0 fsyncs, measured")

	assert.False(t, rows[2].Measured, "a run without summary")
	assert.False(t, rows[2].OK)
	assert.True(t, math.IsNaN(rows[2].FastShare()))

	assert.True(t, rows[3].Measured)
	assert.True(t, math.IsNaN(rows[3].CPUPerOp), "a summary without cost: NaN, not 0")
	assert.True(t, math.IsNaN(rows[3].FsyncsPerOp))
	assert.Equal(t, int64(0), rows[3].Errors)
	assert.True(t, rows[3].OK)
}

func TestReadCSVV1(t *testing.T) {
	rows, err := ReadCSV("old.csv", strings.NewReader(sampleV1))
	require.NoError(t, err)
	require.Len(t, rows, 2)
	r := rows[0]
	assert.True(t, r.Measured)
	assert.Equal(t, 40000.0, r.Throughput)
	assert.Equal(t, int64(750), r.FastPath)
	assert.Equal(t, int64(250), r.SlowPath)
	assert.Equal(t, int64(3), r.Errors, "errors stays errors, not a cost column")
	assert.False(t, r.OK)
	assert.True(t, math.IsNaN(r.CPUPerOp), "no cost column: NaN")
	assert.True(t, math.IsNaN(r.FsyncsPerOp))
	assert.False(t, rows[1].Measured)

	_, err = ReadCSV("old.csv", strings.NewReader(strings.Join(HeaderV1, ",")+"\nk,1,1,p,1,1,1,1,1,1,1,1,1,0,true\n"))
	require.Error(t, err, "a row of the new width under the old header")
	assert.Contains(t, err.Error(), "old.csv:2: 15 columns, want 13")
}

func TestRecordRoundTrip(t *testing.T) {
	rows, err := ReadCSV("s.csv", strings.NewReader(sample))
	require.NoError(t, err)
	var b strings.Builder
	b.WriteString(strings.Join(Header, ",") + "\n")
	for _, r := range rows {
		b.WriteString(strings.Join(r.Record(), ",") + "\n")
	}
	assert.Equal(t, sample, b.String())
}

func TestReadCSVErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "s.csv: empty file"},
		{"header", "a,b\n", "s.csv:1: header is a,b"},
		{"columns", strings.Join(Header, ",") + "\nx,1,1\n", "s.csv:2: 3 columns, want 15"},
		{"old row", strings.Join(Header, ",") + "\nk,1,1,p,1,1,1,1,1,1,1,0,true\n", "s.csv:2: 13 columns, want 15"},
		{"iteration", strings.Join(Header, ",") + "\nk,1,0,p,,,,,,,,,,,false\n", `s.csv:2: iteration "0"`},
		{"number", strings.Join(Header, ",") + "\nk,1,1,p,fast,1,1,1,1,1,1,1,1,0,true\n", `s.csv:2: throughput_ops: "fast" is not a number`},
		{"count", strings.Join(Header, ",") + "\nk,1,1,p,1,1,1,1,1,1.5,1,1,1,0,true\n", `s.csv:2: fast_path "1.5" is not an integer`},
		{"cpu", strings.Join(Header, ",") + "\nk,1,1,p,1,1,1,1,1,1,1,x,1,0,true\n", `s.csv:2: cpu_us_per_op: "x" is not a number`},
		{"fsyncs", strings.Join(Header, ",") + "\nk,1,1,p,1,1,1,1,1,1,1,1,NaN,0,true\n", `s.csv:2: fsyncs_per_op: "NaN" is not a number`},
		{"errors", strings.Join(Header, ",") + "\nk,1,1,p,1,1,1,1,1,1,1,1,1,0.5,true\n", `s.csv:2: errors "0.5" is not an integer`},
		{"ok", strings.Join(Header, ",") + "\nk,1,1,p,,,,,,,,,,,yes\n", `s.csv:2: ok "yes"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadCSV("s.csv", strings.NewReader(tc.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestAppendCSVFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sweep.csv")
	a := Row{Param: "pendings", Value: "1", Iteration: 1, Protocol: "curpho"}
	b := Row{Param: "pendings", Value: "a,b", Iteration: 2, Protocol: "curpho", Measured: true, Throughput: 5, OK: true,
		StrongP50: math.NaN(), StrongP99: math.NaN(), WeakP50: 1, WeakP99: 2}
	require.NoError(t, AppendCSVFile(path, a))
	require.NoError(t, AppendCSVFile(path, b))
	rows, err := ReadCSVFile(path)
	require.NoError(t, err)
	require.Len(t, rows, 2)
	assert.Equal(t, a, rows[0])
	assert.Equal(t, "a,b", rows[1].Value, "a value with a comma is quoted")
	assert.True(t, math.IsNaN(rows[1].StrongP50))

	other := filepath.Join(t.TempDir(), "other.csv")
	require.NoError(t, os.WriteFile(other, []byte("x,y\n1,2\n"), 0o644))
	err = AppendCSVFile(other, a)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a sweep.csv")
}

func TestAppendCSVFileCost(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sweep.csv")
	disk := Row{Param: "dataDir", Value: "/var/x", Iteration: 1, Protocol: "curpht", Measured: true, OK: true,
		Throughput: 9000, StrongP50: 2, StrongP99: 9, WeakP50: 1, WeakP99: 3, FastPath: 4, SlowPath: 1,
		CPUPerOp: 41.25, FsyncsPerOp: 0.00125, Errors: 0}
	old := disk
	old.Iteration, old.CPUPerOp, old.FsyncsPerOp = 2, math.NaN(), math.NaN()
	require.NoError(t, AppendCSVFile(path, disk))
	require.NoError(t, AppendCSVFile(path, old))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 3)
	assert.Equal(t, "dataDir,/var/x,1,curpht,9000.0,2.000,9.000,1.000,3.000,4,1,41.25,0.00125,0,true", lines[1])
	assert.Equal(t, "dataDir,/var/x,2,curpht,9000.0,2.000,9.000,1.000,3.000,4,1,,,0,true", lines[2], "no cost: empty cells")

	rows, err := ReadCSVFile(path)
	require.NoError(t, err)
	require.Len(t, rows, 2)
	assert.Equal(t, disk, rows[0])
	assert.True(t, math.IsNaN(rows[1].CPUPerOp))
	assert.True(t, math.IsNaN(rows[1].FsyncsPerOp))
}

func TestAppendCSVFileV1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sweep.csv")
	require.NoError(t, os.WriteFile(path, []byte(sampleV1), 0o640))
	r := Row{Param: "batchDelayUs", Value: "50", Iteration: 1, Protocol: "curpht", Measured: true, OK: true,
		Throughput: 5, CPUPerOp: 30, FsyncsPerOp: 0}
	err := AppendCSVFile(path, r)
	require.Error(t, err, "never 15 columns under a 13-column header")
	assert.Contains(t, err.Error(), "before the columns cpu_us_per_op, fsyncs_per_op")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, sampleV1, string(b), "left as it was")

	up, err := UpgradeCSVFile(path)
	require.NoError(t, err)
	assert.True(t, up)
	b, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, strings.Join(Header, ",")+"\n"+
		"batchDelayUs,0,1,curpht,40000.0,1.400,5.000,0.900,4.600,750,250,,,3,false\n"+
		"batchDelayUs,0,2,curpht,,,,,,,,,,,false\n", string(b), "old rows: empty cost cells before errors")
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), st.Mode().Perm(), "the file keeps its mode")
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left")

	up, err = UpgradeCSVFile(path)
	require.NoError(t, err)
	assert.False(t, up, "already current")
	require.NoError(t, AppendCSVFile(path, r))
	rows, err := ReadCSVFile(path)
	require.NoError(t, err)
	require.Len(t, rows, 3)
	assert.Equal(t, int64(3), rows[0].Errors)
	assert.True(t, math.IsNaN(rows[0].CPUPerOp))
	assert.Equal(t, 30.0, rows[2].CPUPerOp)
	assert.Equal(t, 0.0, rows[2].FsyncsPerOp)
}

func TestUpgradeCSVFileLeavesOthers(t *testing.T) {
	dir := t.TempDir()
	up, err := UpgradeCSVFile(filepath.Join(dir, "missing.csv"))
	require.NoError(t, err)
	assert.False(t, up)
	for name, text := range map[string]string{"empty.csv": "", "other.csv": "x,y\n1,2\n", "current.csv": sample} {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		up, err := UpgradeCSVFile(path)
		require.NoError(t, err, name)
		assert.False(t, up, name)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, text, string(b), name)
	}

	bad := filepath.Join(dir, "bad.csv")
	text := strings.Join(HeaderV1, ",") + "\nk,1,1,p,1\n"
	require.NoError(t, os.WriteFile(bad, []byte(text), 0o644))
	_, err = UpgradeCSVFile(bad)
	require.Error(t, err, "a short row would be misaligned")
	assert.Contains(t, err.Error(), "bad.csv:2: 5 columns, want 13")
	b, err := os.ReadFile(bad)
	require.NoError(t, err)
	assert.Equal(t, text, string(b), "not rewritten")
}

func TestMeasure(t *testing.T) {
	fast, slow := int64(30), int64(10)
	s := &bench.RunSummary{Protocol: "curpht", ThroughputOps: 1234.5, Errors: 2, Timeouts: 1,
		Strong: bench.ClassJSON{Ops: 40, P50Ms: 1.5, P99Ms: 3, FastPath: &fast, SlowPath: &slow},
		Weak:   bench.ClassJSON{Ops: 0, P50Ms: 0, P99Ms: 0}}
	r := Row{Param: "k", Value: "v", Iteration: 1}
	r.Measure(s)
	assert.Equal(t, "curpht", r.Protocol)
	assert.Equal(t, 1234.5, r.Throughput)
	assert.Equal(t, 1.5, r.StrongP50)
	assert.Equal(t, 3.0, r.StrongP99)
	assert.True(t, math.IsNaN(r.WeakP50), "no weak operations: no weak latency, not 0 ms")
	assert.True(t, math.IsNaN(r.WeakP99))
	assert.Equal(t, int64(30), r.FastPath)
	assert.Equal(t, int64(10), r.SlowPath)
	assert.Equal(t, int64(3), r.Errors, "errors and timeouts")
	assert.False(t, r.OK, "Measure leaves OK to the caller")
	assert.True(t, math.IsNaN(r.CPUPerOp), "no cost section: NaN, not 0")
	assert.True(t, math.IsNaN(r.FsyncsPerOp))
}

func TestMeasureCost(t *testing.T) {
	s := &bench.RunSummary{Protocol: "curpht", ThroughputOps: 100,
		Cost: &cost.Section{Ops: 1000, PerOp: cost.PerOp{CPUUs: 32.5, UserUs: 20, SysUs: 12.5, Fsyncs: 0.0475}, FsyncMeanUs: 600}}
	var r Row
	r.Measure(s)
	assert.Equal(t, 32.5, r.CPUPerOp, "user + system")
	assert.Equal(t, 0.0475, r.FsyncsPerOp)

	s.Cost.PerOp.Fsyncs = 0 // memory mode: the summary omits them
	r.Measure(s)
	assert.Equal(t, 0.0, r.FsyncsPerOp, "in memory: 0, measured")
	assert.Equal(t, 32.5, r.CPUPerOp)

	s.Cost.Missing = []string{"replica2"}
	r.Measure(s)
	assert.True(t, math.IsNaN(r.CPUPerOp), "a process without a report: the sum would be short")
	assert.True(t, math.IsNaN(r.FsyncsPerOp))

	s.Cost = &cost.Section{Ops: 0}
	r.Measure(s)
	assert.True(t, math.IsNaN(r.CPUPerOp), "no operation to divide by")
	assert.True(t, math.IsNaN(r.FsyncsPerOp))
}

// TestMeasureSummaryJSON reads summary.json files as the launcher writes
// them: a durable run's cost, an in-memory run's (no fsyncs key) and an
// older build's (no cost).
func TestMeasureSummaryJSON(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, json  string
		cpu, fsyncs float64
	}{
		{"durable", `{"protocol":"curpht","ops":336474,"throughput_ops":28025.5,"complete":true,
			"cost":{"ops":336474,"per_op":{"cpu_us":32.86119284105161,"user_us":19.0,"sys_us":13.86,"fsyncs":0.04747172144058679},
			"fsync_mean_us":605.79,"processes":[]}}`, 32.86119284105161, 0.04747172144058679},
		{"memory", `{"protocol":"curpht","ops":96000,"throughput_ops":80000,"complete":true,
			"cost":{"ops":96000,"per_op":{"cpu_us":20.506270833333332,"user_us":17.18,"sys_us":3.32},"processes":[]}}`,
			20.506270833333332, 0},
		{"older", `{"protocol":"curpht","ops":96000,"throughput_ops":80000,"complete":true}`, math.NaN(), math.NaN()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".json")
			require.NoError(t, os.WriteFile(path, []byte(tc.json), 0o644))
			s, err := ReadSummary(path)
			require.NoError(t, err)
			var r Row
			r.Measure(s)
			rec := r.Record()
			cpu, fsyncs := rec[slices.Index(Header, "cpu_us_per_op")], rec[slices.Index(Header, "fsyncs_per_op")]
			if math.IsNaN(tc.cpu) {
				assert.True(t, math.IsNaN(r.CPUPerOp))
				assert.True(t, math.IsNaN(r.FsyncsPerOp))
				assert.Equal(t, []string{"", ""}, []string{cpu, fsyncs}, "empty cells, not zeros")
				return
			}
			assert.Equal(t, tc.cpu, r.CPUPerOp)
			assert.Equal(t, tc.fsyncs, r.FsyncsPerOp)
			assert.Equal(t, formatFloat(tc.cpu, 2), cpu)
			assert.Equal(t, formatFloat(tc.fsyncs, 5), fsyncs)
		})
	}
}
