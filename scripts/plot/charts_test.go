package main

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"swiftpaxos/client/bench"
	"swiftpaxos/scripts/internal/sweep"
)

// requirePNG checks that path is a PNG of a sensible size.
func requirePNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err, path)
	assert.Greater(t, img.Bounds().Dx(), 500, path)
}

func TestWriteSweepCharts(t *testing.T) {
	var rows []sweep.Row
	for _, p := range []string{"curpht", "curpho"} {
		for i, v := range []string{"0", "50", "150"} {
			for it := 1; it <= 2; it++ {
				rows = append(rows, sweep.Row{Param: "batchDelayUs", Value: v, Iteration: it, Protocol: p, Measured: true, OK: true,
					Throughput: 30000 + 1000*float64(i+it), StrongP50: 1.5, StrongP99: 6, WeakP50: 1, WeakP99: 5, FastPath: 7, SlowPath: 3})
			}
		}
	}
	out := t.TempDir()
	files, err := writeSweepCharts(rows, out, "x-", scaleAuto)
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(out, "x-batchDelayUs-throughput.png"), filepath.Join(out, "x-batchDelayUs-latency.png")}, files)
	for _, f := range files {
		requirePNG(t, f)
	}

	_, err = writeSweepCharts(nil, out, "", scaleAuto)
	assert.Error(t, err)
}

func TestWriteRunCharts(t *testing.T) {
	var runs []run
	for i, name := range []string{"a", "b"} {
		r := run{Label: name, Protocol: "curpht"}
		r.Latency.StrongRead = *sampleHistogram(uint64(i), 2000)
		r.Latency.WeakRead = *sampleHistogram(uint64(i+7), 2000)
		runs = append(runs, r)
	}
	out := t.TempDir()
	files, err := writeRunCharts(runs, out, "")
	require.NoError(t, err)
	require.Len(t, files, 3)
	for _, f := range files {
		requirePNG(t, f)
	}
	_, err = writeRunCharts([]run{{Label: "empty", Latency: bench.ClassHistograms{}}}, out, "")
	assert.Error(t, err)
}

func TestPlaceLegend(t *testing.T) {
	p := plot.New()
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 10, 0, 10
	// A line along the bottom and up the right edge: the top left is free.
	placeLegend(p, [][]plotter.XY{{{X: 0, Y: 0}, {X: 10, Y: 0}, {X: 10, Y: 10}}}, 2)
	assert.True(t, p.Legend.Top)
	assert.True(t, p.Legend.Left)
	// A rising diagonal crosses the bottom left and top right corners
	// only: bottom right wins the tie.
	placeLegend(p, [][]plotter.XY{{{X: 0, Y: 0}, {X: 10, Y: 10}}}, 2)
	assert.False(t, p.Legend.Top)
	assert.False(t, p.Legend.Left)
}
