package main

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// smoothSeconds is the window of the throughput's moving average: the
// sampler's period, so that both panels show change on the same scale.
const smoothSeconds = 10

// timeAxis is the seconds-since-start label shared by both panels.
const timeAxis = "seconds since the clients started"

// rssPanel draws each replica's RSS against time, a line through its
// readings, broken where the replica was not running.
func rssPanel(m memoryRun) (panel, error) {
	pn := panel{p: newPlot("resident memory (VmRSS) of each replica", timeAxis, "RSS (MiB)")}
	for i, a := range m.replicas() {
		for k, seg := range segments(m.samples(a)) {
			line, pts, err := plotter.NewLinePoints(seg)
			if err != nil {
				return panel{}, fmt.Errorf("%s %s: %w", m.Label, a, err)
			}
			styleLine(line, pts, i, i)
			pts.GlyphStyle.Radius = vg.Points(2)
			pn.p.Add(line, pts)
			if k == 0 {
				pn.p.Legend.Add(a, line, pts)
			}
			pn.lines = append(pn.lines, seg)
		}
	}
	return pn, nil
}

// segments splits a replica's readings where more than 1.5 sampling
// periods (the median spacing) pass between two: the sampler found no
// process then, and a line across the hole would draw readings that were
// never taken.
func segments(ss []rssSample) []plotter.XYs {
	period := math.Inf(1) // one reading: nothing to split
	if len(ss) > 1 {
		gaps := make([]float64, 0, len(ss)-1)
		for k := 1; k < len(ss); k++ {
			gaps = append(gaps, ss[k].T-ss[k-1].T)
		}
		slices.Sort(gaps)
		period = gaps[len(gaps)/2]
	}
	var out []plotter.XYs
	for k, s := range ss {
		if k == 0 || s.T-ss[k-1].T > 1.5*period {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], plotter.XY{X: s.T, Y: s.MiB})
	}
	return out
}

// throughputPanel draws the operations completed in each second, faded,
// and their centred moving average, which shows a trend the per-second
// noise hides.
func throughputPanel(m memoryRun) (panel, error) {
	pn := panel{p: newPlot("throughput, all client processes", timeAxis, "throughput (ops/s)")}
	raw := make(plotter.XYs, len(m.Timeline))
	for i, ops := range m.Timeline {
		// Second i covers [i, i+1): draw it at its middle.
		raw[i] = plotter.XY{X: float64(i) + 0.5, Y: float64(ops)}
	}
	smooth := make(plotter.XYs, len(raw))
	for i, avg := range movingMean(m.Timeline, smoothSeconds) {
		smooth[i] = plotter.XY{X: raw[i].X, Y: avg}
	}
	perSecond, err := plotter.NewLine(raw)
	if err != nil {
		return panel{}, fmt.Errorf("%s: %w", m.Label, err)
	}
	perSecond.Color = faded(colorOf(6))
	perSecond.Width = vg.Points(0.8)
	avg, err := plotter.NewLine(smooth)
	if err != nil {
		return panel{}, fmt.Errorf("%s: %w", m.Label, err)
	}
	avg.Color = colorOf(0)
	avg.Width = vg.Points(1.8)
	pn.p.Add(perSecond, avg)
	pn.p.Legend.Add("per second", perSecond)
	pn.p.Legend.Add(fmt.Sprintf("%d-s moving average", smoothSeconds), avg)
	pn.lines = [][]plotter.XY{raw}
	return pn, nil
}

// movingMean is the mean of the w values centred on each one, fewer at
// the ends.
func movingMean(xs []int64, w int) []float64 {
	out := make([]float64, len(xs))
	for i := range xs {
		lo, hi := max(0, i-w/2), min(len(xs), i-w/2+w)
		sum := 0.0
		for _, x := range xs[lo:hi] {
			sum += float64(x)
		}
		out[i] = sum / float64(hi-lo)
	}
	return out
}

// markWindows sets pn's axis ranges (x from lo to hi, y from 0 with room
// for the legend), draws dotted verticals where the rule's windows begin
// and end (T/10, 0.9T, T), and places the legend, which has entries
// entries before the verticals'.
func markWindows(pn panel, entries int, lo, hi, T float64) error {
	p := pn.p
	p.X.Min, p.X.Max = lo, hi
	p.Y.Min, p.Y.Max = 0, p.Y.Max*1.12
	var mark *plotter.Line
	for _, x := range []float64{T / 10, 0.9 * T, T} {
		l, err := plotter.NewLine(plotter.XYs{{X: x, Y: p.Y.Min}, {X: x, Y: p.Y.Max}})
		if err != nil {
			return err
		}
		l.Color = color.Gray{110}
		l.Width = vg.Points(1)
		l.Dashes = dashes[2]
		p.Add(l)
		mark = l
	}
	p.Legend.Add("T/10, 0.9T, T", mark)
	placeLegend(p, pn.lines, entries+1)
	return nil
}

// writeMemoryCharts writes memory-LABEL.png per run, RSS above
// throughput on the same time axis, and returns the files written.
func writeMemoryCharts(runs []memoryRun, out, prefix string) ([]string, error) {
	var files []string
	for _, m := range runs {
		rss, err := rssPanel(m)
		if err != nil {
			return nil, err
		}
		tp, err := throughputPanel(m)
		if err != nil {
			return nil, err
		}
		// The sampler starts with the replicas, before the clients, and
		// stops after them: show every reading.
		T := m.seconds()
		lo, hi := min(0, rss.p.X.Min), max(T, rss.p.X.Max)
		if err := markWindows(rss, len(m.replicas()), lo, hi, T); err != nil {
			return nil, err
		}
		if err := markWindows(tp, 2, lo, hi, T); err != nil {
			return nil, err
		}
		f := filepath.Join(out, prefix+"memory-"+fileSafe(m.Label)+".png")
		title := fmt.Sprintf("Memory and throughput of %s over T = %d s", runName(m.Label, m.Protocol), secs(T))
		if err := savePNG(f, title, 24*vg.Centimeter, 20*vg.Centimeter, [][]*plot.Plot{{rss.p}, {tp.p}}); err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}
