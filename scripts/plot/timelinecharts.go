package main

import (
	"fmt"
	"image/color"
	"path/filepath"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// kindColors gives each fault kind its band's colour (the palette's, a
// kind always the same one across charts); an unknown kind gets gray.
var kindColors = map[string]int{"kill": 1, "wipe": 6, "pause": 4, "partition": 5, "crash-all": 3, "client": 2}

// bandOf is the translucent colour of a kind's bands.
func bandOf(kind string) color.Color {
	i, ok := kindColors[kind]
	if !ok {
		return color.NRGBA{128, 128, 128, 70}
	}
	r, g, b, _ := colorOf(i).RGBA()
	return color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 70}
}

// minBand is the narrowest band drawn: a client kill has no length.
const minBand = 0.15

// timelinePanel draws the run's throughput, all operations and strong
// ones, over shaded bands, one per fault, coloured by kind.
func timelinePanel(r timelineRun) (*plot.Plot, error) {
	unit := "100-ms bins"
	if r.Bin == 1 {
		unit = "1-s bins"
	}
	p := newPlot(fmt.Sprintf("throughput, all client processes (%s)", unit), timeAxis, "throughput (ops/s)")
	var lines [][]plotter.XY
	var plotted []plot.Plotter
	var legend []func()
	ymax := 0.0
	for i, series := range []struct {
		name string
		ys   []float64
	}{{"all operations", r.All}, {"strong operations", r.Strong}} {
		xy := make(plotter.XYs, len(series.ys))
		for k, y := range series.ys {
			xy[k] = plotter.XY{X: (float64(k) + 0.5) * r.Bin, Y: y}
			ymax = max(ymax, y)
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Label, err)
		}
		l.Color, l.Width = colorOf([]int{0, 6}[i]), vg.Points(1.2)
		plotted = append(plotted, l)
		lines = append(lines, xy)
		name := series.name
		legend = append(legend, func() { p.Legend.Add(name, l) })
	}
	ymax *= 1.15
	if ymax == 0 {
		ymax = 1
	}
	// Bands first, under the lines; one legend entry per kind.
	var kinds []string
	for _, f := range r.Faults {
		to := f.To
		if f.Open {
			to = r.end()
		}
		to = max(to, f.From+minBand)
		band, err := plotter.NewPolygon(plotter.XYs{{X: f.From, Y: 0}, {X: to, Y: 0}, {X: to, Y: ymax}, {X: f.From, Y: ymax}})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Label, err)
		}
		band.Color, band.LineStyle.Width = bandOf(f.Kind), 0
		p.Add(band)
		if !slices.Contains(kinds, f.Kind) {
			kinds = append(kinds, f.Kind)
			p.Legend.Add(f.Kind, band)
		}
	}
	p.Add(plotted...)
	for _, add := range legend {
		add()
	}
	p.X.Min, p.X.Max = 0, r.end()
	p.Y.Min, p.Y.Max = 0, ymax
	placeLegend(p, lines, len(kinds)+2)
	return p, nil
}

// writeTimelineCharts writes timeline-LABEL.png per run and returns the
// files written.
func writeTimelineCharts(runs []timelineRun, out, prefix string) ([]string, error) {
	var files []string
	for _, r := range runs {
		p, err := timelinePanel(r)
		if err != nil {
			return nil, err
		}
		f := filepath.Join(out, prefix+"timeline-"+fileSafe(r.Label)+".png")
		title := fmt.Sprintf("Throughput of %s", runName(r.Label, r.Protocol))
		if len(r.Faults) > 0 {
			title += fmt.Sprintf(" through %d faults", len(r.Faults))
		}
		if err := savePNG(f, title, 24*vg.Centimeter, 12*vg.Centimeter, [][]*plot.Plot{{p}}); err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}
