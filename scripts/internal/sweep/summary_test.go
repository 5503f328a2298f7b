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
		FastPath: 3, SlowPath: 1, OK: ok}
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
	assert.Equal(t, "batchDelayUs,curpht,0,2,2,20.0,10.0,30.0,0.020,0.010,0.030,0.040,0.020,0.060,,,,,,,0.750,0.750,0.750", lines[1])
	assert.Equal(t, "batchDelayUs,curpht,7,1,0"+strings.Repeat(",", 3*len(Metrics)), lines[2])
}

func TestWriteMarkdown(t *testing.T) {
	gs := Summarize([]Row{row("0", "curpht", 1, 10000, true), row("0", "curpht", 2, 30000, true), row("5", "curpht", 1, 20000, true)})
	var b strings.Builder
	require.NoError(t, WriteMarkdown(&b, gs))
	want := "| batchDelayUs | protocol | ok runs | throughput ops/s | strong p50 ms | strong p99 ms | weak p50 ms | weak p99 ms | fast path |\n" +
		"|---|---|---|---|---|---|---|---|---|\n" +
		"| 0 | curpht | 2/2 | 20000 (10000–30000) | 20.00 (10.00–30.00) | 40.00 (20.00–60.00) | - | - | 75% |\n" +
		"| 5 | curpht | 1/1 | 20000 | 20.00 | 40.00 | - | - | 75% |\n"
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
	assert.Equal(t, "| protocol | ok runs | throughput ops/s | strong p50 ms | strong p99 ms | weak p50 ms | weak p99 ms | fast path |", lines[0])
	assert.Equal(t, "| curpho | 1/1 | 20000 | 20.00 | 40.00 | - | - | 75% |", lines[3])
}
