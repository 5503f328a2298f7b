package main

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// groupWidth is the share of a workload's slot on the x axis that its
// bars fill; the rest separates the groups.
const groupWidth = 0.8

// barX is the centre of system j's bar (of n) in the group at x = g.
func barX(g, j, n int) float64 {
	w := groupWidth / float64(n)
	return float64(g) + (float64(j)-float64(n-1)/2)*w
}

// rateLabel is a throughput as printed above its bar: three significant
// digits at most, in thousands from 1000 up.
func rateLabel(v float64) string {
	switch {
	case v >= 1e5:
		return fmt.Sprintf("%.0fk", v/1e3)
	case v >= 1e3:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

// peersThroughputPanel draws one thread setting: a group of bars per
// workload, one bar per system (the median throughput of its ok
// rounds, labelled with it), a whisker from the slowest to the fastest
// ok round when there are several, and "no ok run" where a system has
// rows for the workload but none ok. yMax is shared by the panels.
func peersThroughputPanel(d peers, threads int, yMax float64) (*plot.Plot, error) {
	p := newPlot(fmt.Sprintf("%d threads (go-ycsb threadcount)", threads), "YCSB workload", "throughput (ops/s)")
	p.Title.TextStyle.Font.Size = vg.Points(12)
	n := len(d.Systems)
	var ticks []plot.Tick
	var labels plotter.XYLabels
	var styles []text.Style
	label := func(x, y float64, s string, c color.Color) {
		labels.XYs = append(labels.XYs, plotter.XY{X: x, Y: y})
		labels.Labels = append(labels.Labels, s)
		sty := p.Legend.TextStyle
		sty.Font.Size = vg.Points(8)
		sty.Color = c
		sty.Rotation = math.Pi / 2
		sty.XAlign, sty.YAlign = draw.XLeft, draw.YCenter
		styles = append(styles, sty)
	}
	for g, w := range d.Workloads {
		ticks = append(ticks, plot.Tick{Value: float64(g), Label: strings.ToUpper(w)})
	}
	half := groupWidth / float64(n) / 2 * 0.92
	for j, s := range d.Systems {
		var legend plot.Thumbnailer
		whiskers := minMax{}
		for g, w := range d.Workloads {
			c := d.cell(threads, s, w)
			x := barX(g, j, n)
			if c.Throughput.N == 0 {
				if c.Rows > 0 {
					label(x, 0, "no ok run", color.Gray{90})
				}
				continue
			}
			med := c.Throughput.Median
			bar, err := plotter.NewPolygon(plotter.XYs{{X: x - half, Y: 0}, {X: x + half, Y: 0}, {X: x + half, Y: med}, {X: x - half, Y: med}})
			if err != nil {
				return nil, err
			}
			bar.Color = colorOf(d.systemColour(s))
			bar.LineStyle.Width = 0
			p.Add(bar)
			legend = bar
			if c.Throughput.N > 1 {
				whiskers.XYs = append(whiskers.XYs, plotter.XY{X: x, Y: med})
				whiskers.low = append(whiskers.low, med-c.Throughput.Min)
				whiskers.high = append(whiskers.high, c.Throughput.Max-med)
			}
			label(x, c.Throughput.Max, " "+rateLabel(med), color.Black)
		}
		if len(whiskers.XYs) > 0 {
			eb, err := plotter.NewYErrorBars(whiskers)
			if err != nil {
				return nil, err
			}
			eb.Color = color.Gray{40}
			eb.Width = vg.Points(1)
			eb.CapWidth = vg.Points(5)
			p.Add(eb)
		}
		if legend == nil {
			// No ok bar in this panel: the legend still shows the
			// colour, so that every panel lists every system.
			legend = &plotter.Polygon{Color: colorOf(d.systemColour(s))}
		}
		p.Legend.Add(s, legend)
	}
	if len(labels.XYs) > 0 {
		ls, err := plotter.NewLabels(labels)
		if err != nil {
			return nil, err
		}
		ls.TextStyle = styles
		p.Add(ls)
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min = -0.5
	// Room on the right for the legend, so that it covers no bar: its
	// widest entry over the width of the data area (the panel less the
	// y axis, about 2.5 cm), in workload slots.
	lw := p.Legend.ThumbnailWidth + vg.Points(12)
	for _, s := range d.Systems {
		lw = max(lw, p.Legend.TextStyle.Width(s)+p.Legend.ThumbnailWidth+vg.Points(12))
	}
	slots := float64(len(d.Workloads))
	frac := float64(lw) / float64(peersPanelWidth-2.5*vg.Centimeter)
	p.X.Max = -0.5 + slots/(1-frac)
	p.Legend.Top, p.Legend.Left = true, false
	p.Y.Min, p.Y.Max = 0, yMax
	return p, nil
}

// peersPanelWidth is the width of the throughput chart.
const peersPanelWidth = 26 * vg.Centimeter

// writePeersThroughput writes peers-throughput.png: a panel per thread
// setting, on one throughput scale.
func writePeersThroughput(d peers, out, prefix string) (string, error) {
	top := 0.0
	for _, r := range d.Rows {
		if r.OK {
			top = max(top, r.OpsPerS)
		}
	}
	// Headroom for the labels above the bars.
	yMax := top * 1.22
	var grid [][]*plot.Plot
	for _, t := range d.Threads {
		p, err := peersThroughputPanel(d, t, yMax)
		if err != nil {
			return "", err
		}
		grid = append(grid, []*plot.Plot{p})
	}
	f := filepath.Join(out, prefix+"peers-throughput.png")
	title := "YCSB through go-ycsb: each bar the median throughput of a cell's ok rounds, its whisker the slowest to the fastest"
	h := 2*vg.Centimeter + 9*vg.Centimeter*vg.Length(len(grid))
	if err := savePNG(f, title, peersPanelWidth, h, grid); err != nil {
		return "", err
	}
	return f, nil
}
