package sweep

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDescribe(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		in   []float64
		want Stat
	}{
		{"one", []float64{7}, Stat{1, 7, 7, 7}},
		{"odd", []float64{3, 1, 2}, Stat{3, 2, 1, 3}},
		{"even: mean of the middle two", []float64{10, 40, 20, 30}, Stat{4, 25, 10, 40}},
		{"two", []float64{1, 2}, Stat{2, 1.5, 1, 2}},
		{"NaN left out", []float64{nan, 5, nan, 1, 3}, Stat{3, 3, 1, 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Describe(tc.in))
		})
	}
	for _, in := range [][]float64{nil, {nan, nan}} {
		s := Describe(in)
		assert.Equal(t, 0, s.N)
		assert.True(t, math.IsNaN(s.Median) && math.IsNaN(s.Min) && math.IsNaN(s.Max))
	}
}

func TestDescribeDoesNotReorderInput(t *testing.T) {
	in := []float64{3, 1, 2}
	Describe(in)
	assert.Equal(t, []float64{3, 1, 2}, in)
}

func row(value, protocol string, it int, tput float64, ok bool) Row {
	return Row{Param: "batchDelayUs", Value: value, Iteration: it, Protocol: protocol, Measured: true,
		Throughput: tput, StrongP50: tput / 1000, StrongP99: 2 * tput / 1000, WeakP50: math.NaN(), WeakP99: math.NaN(),
		FastPath: 3, SlowPath: 1, CPUPerOp: 20 + tput/1000, FsyncsPerOp: tput / 1e6, OK: ok}
}

func TestSummarize(t *testing.T) {
	rows := []Row{
		row("50", "curpht", 1, 100, true),
		row("0", "curpht", 1, 10, true),
		row("50", "curpht", 2, 300, true),
		row("0", "curpht", 2, 30, true),
		row("50", "curpht", 3, 9999, false), // failed: counted, not described
		row("0", "curpho", 1, 5, true),
		{Param: "batchDelayUs", Value: "0", Iteration: 3, Protocol: "curpht"}, // no summary
	}
	gs := Summarize(rows)
	require.Len(t, gs, 3)

	g := gs[0]
	assert.Equal(t, []string{"batchDelayUs", "curpht", "50"}, []string{g.Param, g.Protocol, g.Value}, "first appearance order")
	assert.Equal(t, 3, g.Runs)
	assert.Equal(t, 2, g.OKRuns)
	assert.Len(t, g.Rows, 2)
	assert.Equal(t, Stat{2, 200, 100, 300}, g.Stat("throughput_ops"))
	assert.Equal(t, Stat{2, 0.4, 0.2, 0.6}, g.Stat("strong_p99_ms"))
	assert.Equal(t, 0, g.Stat("weak_p50_ms").N, "no weak operations")
	assert.Equal(t, Stat{2, 0.75, 0.75, 0.75}, g.Stat("fast_share"))

	assert.Equal(t, "0", gs[1].Value)
	assert.Equal(t, 3, gs[1].Runs)
	assert.Equal(t, 2, gs[1].OKRuns)
	assert.Equal(t, 20.0, gs[1].Stat("throughput_ops").Median)

	assert.Equal(t, "curpho", gs[2].Protocol, "protocols are kept apart")
	assert.Equal(t, 5.0, gs[2].Stat("throughput_ops").Median)
}

func TestWriteSummaryCSV(t *testing.T) {
	gs := Summarize([]Row{row("0", "curpht", 1, 10, true), row("0", "curpht", 2, 30, true), {Param: "batchDelayUs", Value: "7", Iteration: 1, Protocol: "curpht"}})
	var b strings.Builder
	require.NoError(t, WriteSummaryCSV(&b, gs))
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 3)
	assert.Equal(t, strings.Join(SummaryHeader(), ","), lines[0])
	assert.Equal(t, "param,protocol,value,runs,ok_runs,"+
		"throughput_ops_median,throughput_ops_min,throughput_ops_max,strong_p50_ms_median,strong_p50_ms_min,strong_p50_ms_max,"+
		"strong_p99_ms_median,strong_p99_ms_min,strong_p99_ms_max,weak_p50_ms_median,weak_p50_ms_min,weak_p50_ms_max,"+
		"weak_p99_ms_median,weak_p99_ms_min,weak_p99_ms_max,fast_share_median,fast_share_min,fast_share_max,"+
		"cpu_us_per_op_median,cpu_us_per_op_min,cpu_us_per_op_max,fsyncs_per_op_median,fsyncs_per_op_min,fsyncs_per_op_max", lines[0])
	assert.Equal(t, "batchDelayUs,curpht,0,2,2,20.0,10.0,30.0,0.020,0.010,0.030,0.040,0.020,0.060,,,,,,,0.750,0.750,0.750,"+
		"20.02,20.01,20.03,0.00002,0.00001,0.00003", lines[1])
	assert.Equal(t, "batchDelayUs,curpht,7,1,0"+strings.Repeat(",", 3*len(Metrics)), lines[2])
}

func TestWriteMarkdown(t *testing.T) {
	gs := Summarize([]Row{row("0", "curpht", 1, 10000, true), row("0", "curpht", 2, 30000, true), row("5", "curpht", 1, 20000, true)})
	var b strings.Builder
	require.NoError(t, WriteMarkdown(&b, gs))
	want := "| batchDelayUs | protocol | ok runs | throughput ops/s | strong p50 ms | strong p99 ms | weak p50 ms | weak p99 ms | fast path | CPU us/op | fsyncs/op |\n" +
		"|---|---|---|---|---|---|---|---|---|---|---|\n" +
		"| 0 | curpht | 2/2 | 20000 (10000–30000) | 20.00 (10.00–30.00) | 40.00 (20.00–60.00) | - | - | 75% | 40.0 (30.0–50.0) | 0.020 (0.010–0.030) |\n" +
		"| 5 | curpht | 1/1 | 20000 | 20.00 | 40.00 | - | - | 75% | 40.0 | 0.020 |\n"
	assert.Equal(t, want, b.String())
}

func TestCell(t *testing.T) {
	assert.Equal(t, "-", cell(Describe(nil), 2, 1, ""))
	assert.Equal(t, "1.50", cell(Describe([]float64{1.5}), 2, 1, ""))
	assert.Equal(t, "62%", cell(Describe([]float64{0.621, 0.622}), 0, 100, "%"), "a range that rounds to one number")
	assert.Equal(t, "62% (61%–70%)", cell(Describe([]float64{0.61, 0.62, 0.70}), 0, 100, "%"))
}

func TestWriteMarkdownProtocolSweep(t *testing.T) {
	a, b := row("curpht", "curpht", 1, 10000, true), row("curpho", "curpho", 1, 20000, true)
	a.Param, b.Param = "protocol", "protocol"
	var out strings.Builder
	require.NoError(t, WriteMarkdown(&out, Summarize([]Row{a, b})))
	lines := strings.Split(out.String(), "\n")
	assert.Equal(t, "| protocol | ok runs | throughput ops/s | strong p50 ms | strong p99 ms | weak p50 ms | weak p99 ms | fast path | CPU us/op | fsyncs/op |", lines[0])
	assert.Equal(t, "| curpho | 1/1 | 20000 | 20.00 | 40.00 | - | - | 75% | 40.0 | 0.020 |", lines[3])
}

// TestWriteMarkdownMixedKeys: a sweep.csv that holds sweeps of two keys
// names the key in each row; with the first key heading every row,
// batchDelayUs 0 would read as pendings 0.
func TestWriteMarkdownMixedKeys(t *testing.T) {
	a, b := row("15", "curpho", 1, 10000, true), row("0", "curpho", 1, 20000, true)
	a.Param = "pendings"
	var out strings.Builder
	require.NoError(t, WriteMarkdown(&out, Summarize([]Row{a, b})))
	lines := strings.Split(out.String(), "\n")
	assert.True(t, strings.HasPrefix(lines[0], "| setting | protocol |"), lines[0])
	assert.Contains(t, out.String(), "| pendings 15 | curpho |")
	assert.Contains(t, out.String(), "| batchDelayUs 0 | curpho |")
}

// TestSummarizeCost: the cost columns are summarised like the other
// measures, a run without cost (NaN) is left out of them, not counted as
// 0, and a group with none has empty cells and "-".
func TestSummarizeCost(t *testing.T) {
	a, b, c := row("tmpfs", "curpht", 1, 10000, true), row("tmpfs", "curpht", 2, 30000, true), row("tmpfs", "curpht", 3, 20000, true)
	c.CPUPerOp, c.FsyncsPerOp = math.NaN(), math.NaN() // a summary without cost
	mem := row("memory", "curpht", 1, 20000, true)
	mem.FsyncsPerOp = 0
	old := row("disk", "curpht", 1, 20000, true)
	old.CPUPerOp, old.FsyncsPerOp = math.NaN(), math.NaN()
	gs := Summarize([]Row{a, b, c, mem, old})
	require.Len(t, gs, 3)
	assert.Equal(t, Stat{2, 40, 30, 50}, gs[0].Stat("cpu_us_per_op"), "the run without cost is left out")
	assert.Equal(t, Stat{2, 0.02, 0.01, 0.03}, gs[0].Stat("fsyncs_per_op"))
	assert.Equal(t, 3, gs[0].Stat("throughput_ops").N)
	assert.Equal(t, Stat{1, 0, 0, 0}, gs[1].Stat("fsyncs_per_op"), "in memory: 0 fsyncs is a measure")
	assert.Equal(t, 0, gs[2].Stat("cpu_us_per_op").N)
	assert.Equal(t, 0, gs[2].Stat("fsyncs_per_op").N)

	var csv strings.Builder
	require.NoError(t, WriteSummaryCSV(&csv, gs))
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	require.Len(t, lines, 4)
	assert.True(t, strings.HasSuffix(lines[1], ",40.00,30.00,50.00,0.02000,0.01000,0.03000"), lines[1])
	assert.True(t, strings.HasSuffix(lines[2], ",40.00,40.00,40.00,0.00000,0.00000,0.00000"), lines[2])
	assert.True(t, strings.HasSuffix(lines[3], ",0.750,0.750,0.750,,,,,,"), lines[3])

	var md strings.Builder
	require.NoError(t, WriteMarkdown(&md, gs))
	mdLines := strings.Split(md.String(), "\n")
	assert.True(t, strings.HasSuffix(mdLines[2], "| 75% | 40.0 (30.0–50.0) | 0.020 (0.010–0.030) |"), mdLines[2])
	assert.True(t, strings.HasSuffix(mdLines[3], "| 75% | 40.0 | 0.000 |"), mdLines[3])
	assert.True(t, strings.HasSuffix(mdLines[4], "| 75% | - | - |"), mdLines[4])
}
