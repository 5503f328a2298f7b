package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// curve is the CDF of one class of one run.
type curve struct {
	name string
	pts  []cdfPoint
	n    int64
}

func (c curve) xys(f func(cdfPoint) plotter.XY) plotter.XYs {
	xys := make(plotter.XYs, len(c.pts))
	for i, p := range c.pts {
		xys[i] = f(p)
	}
	return xys
}

// curves are the non-empty classes of r.
func curves(r run) ([]curve, error) {
	var cs []curve
	for _, cl := range classes {
		pts, n, err := exactCDF(r.Latency.Of(cl.c))
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", r.Label, cl.name, err)
		}
		if n > 0 {
			cs = append(cs, curve{name: cl.name, pts: pts, n: n})
		}
	}
	return cs, nil
}

// clipMs is where a CDF panel's x axis ends: the largest P99 of the
// curves, so that the body of every distribution is visible; the tail
// beyond it is the tail panel's job.
func clipMs(cs []curve) float64 {
	hi := 0.0
	for _, c := range cs {
		hi = max(hi, elementMs(c.pts, c.n, c.n*99/100))
	}
	return hi
}

// cdfPanel draws the CDFs cs, curve i in colour colours[i].
func cdfPanel(title string, cs []curve, colours []int) (*plot.Plot, error) {
	p := newPlot(title, "latency (ms); the axis ends at the largest P99", "fraction of operations ≤ x")
	p.Legend.Top, p.Legend.Left = false, false
	for i, c := range cs {
		l, err := plotter.NewLine(c.xys(func(q cdfPoint) plotter.XY { return plotter.XY{X: q.Ms, Y: q.Frac} }))
		if err != nil {
			return nil, err
		}
		l.Color = colorOf(colours[i])
		l.Width = vg.Points(1.8)
		l.Dashes = dashOf(colours[i])
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s (%d ops)", c.name, c.n), l)
	}
	// After Add, which widens the axes to the data.
	p.X.Min, p.X.Max = 0, clipMs(cs)
	p.Y.Min, p.Y.Max = 0, 1
	return p, nil
}

// tailPanel draws latency by percentile on a log axis of 1/(1-q).
func tailPanel(title string, cs []curve, colours []int) (*plot.Plot, error) {
	p := newPlot(title, "percentile", "latency (ms)")
	p.X.Scale = plot.LogScale{}
	p.X.Min, p.Y.Min = 1, 0
	top := 0.0
	for _, c := range cs {
		top = max(top, float64(c.n))
	}
	p.X.Max = top
	var ticks []plot.Tick
	for _, t := range percentileTicks {
		if t.x <= top {
			ticks = append(ticks, plot.Tick{Value: t.x, Label: t.label})
		}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	for i, c := range cs {
		l, err := plotter.NewLine(tail(tailPoints(c.pts, c.n)).xys())
		if err != nil {
			return nil, err
		}
		l.StepStyle = plotter.PostStep
		l.Color = colorOf(colours[i])
		l.Width = vg.Points(1.8)
		l.Dashes = dashOf(colours[i])
		p.Add(l)
		p.Legend.Add(c.name, l)
	}
	return p, nil
}

// tail is a list of latency-by-percentile points (Frac holds 1/(1-q)).
type tail []cdfPoint

func (t tail) xys() plotter.XYs {
	xys := make(plotter.XYs, len(t))
	for i, p := range t {
		xys[i] = plotter.XY{X: p.Frac, Y: p.Ms}
	}
	return xys
}

// writeRunCharts writes cdf-LABEL.png per run and, for several runs,
// cdf-compare.png, and returns the files written.
func writeRunCharts(runs []run, out, prefix string) ([]string, error) {
	var files []string
	all := make([][]curve, len(runs))
	for k, r := range runs {
		cs, err := curves(r)
		if err != nil {
			return nil, err
		}
		if len(cs) == 0 {
			return nil, fmt.Errorf("%s: no latency samples", r.Label)
		}
		all[k] = cs
		colours := make([]int, len(cs))
		for i, c := range cs {
			colours[i] = classIndex(c.name)
		}
		body, err := cdfPanel("CDF", cs, colours)
		if err != nil {
			return nil, err
		}
		tl, err := tailPanel("latency by percentile (tail)", cs, colours)
		if err != nil {
			return nil, err
		}
		f := filepath.Join(out, prefix+"cdf-"+fileSafe(r.Label)+".png")
		title := "Latency distribution of " + runName(r.Label, r.Protocol) + ", all client processes merged"
		if err := savePNG(f, title, 26*vg.Centimeter, 10*vg.Centimeter, [][]*plot.Plot{{body, tl}}); err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	if len(runs) < 2 {
		return files, nil
	}
	grid := [][]*plot.Plot{{nil, nil}, {nil, nil}}
	for ci, cl := range classes {
		var cs []curve
		var colours []int
		for k, r := range runs {
			for _, c := range all[k] {
				if c.name == cl.name {
					c.name = r.Label
					cs = append(cs, c)
					colours = append(colours, k)
				}
			}
		}
		if len(cs) == 0 {
			continue
		}
		p, err := cdfPanel(cl.name, cs, colours)
		if err != nil {
			return nil, err
		}
		grid[ci/2][ci%2] = p
	}
	f := filepath.Join(out, prefix+"cdf-compare.png")
	names := make([]string, len(runs))
	for i, r := range runs {
		names[i] = r.Label
	}
	title := "Latency CDF by class: " + strings.Join(names, ", ")
	if err := savePNG(f, title, 26*vg.Centimeter, 18*vg.Centimeter, grid); err != nil {
		return nil, err
	}
	return append(files, f), nil
}

func classIndex(name string) int {
	for i, c := range classes {
		if c.name == name {
			return i
		}
	}
	return 0
}
