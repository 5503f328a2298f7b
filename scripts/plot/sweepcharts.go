package main

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"swiftpaxos/scripts/internal/sweep"
)

// series is the groups of one protocol for one swept key, left to right.
type series struct {
	Protocol string
	Groups   []sweep.Group
}

// splitSweep returns, for each swept key in order of appearance, its
// series (one per protocol) and the values on its x axis.
func splitSweep(gs []sweep.Group) (params []string, byParam map[string][]series, values map[string][]string) {
	byParam = map[string][]series{}
	values = map[string][]string{}
	for _, g := range gs {
		if !slices.Contains(params, g.Param) {
			params = append(params, g.Param)
		}
		ss := byParam[g.Param]
		i := slices.IndexFunc(ss, func(s series) bool { return s.Protocol == g.Protocol })
		if i < 0 {
			ss = append(ss, series{Protocol: g.Protocol})
			i = len(ss) - 1
		}
		ss[i].Groups = append(ss[i].Groups, g)
		byParam[g.Param] = ss
		if !slices.Contains(values[g.Param], g.Value) {
			values[g.Param] = append(values[g.Param], g.Value)
		}
	}
	return params, byParam, values
}

// sortedGroups returns the groups of s with data, left to right on ax.
func sortedGroups(s series, ax valueAxis) []sweep.Group {
	var out []sweep.Group
	for _, g := range s.Groups {
		if g.OKRuns > 0 {
			out = append(out, g)
		}
	}
	slices.SortStableFunc(out, func(a, b sweep.Group) int { return cmpFloat(ax.Pos[a.Value], ax.Pos[b.Value]) })
	return out
}

// runsNote says how many runs each point summarises, for a chart title.
func runsNote(ss []series) string {
	lo, hi := math.MaxInt, 0
	for _, s := range ss {
		for _, g := range s.Groups {
			lo, hi = min(lo, g.OKRuns), max(hi, g.OKRuns)
		}
	}
	switch {
	case lo == hi && lo == 1:
		return "1 run per point"
	case lo == hi:
		return fmt.Sprintf("%d runs per point", lo)
	}
	return fmt.Sprintf("%d-%d runs per point", lo, hi)
}

// minMax is a point with asymmetric error bars from a Stat.
type minMax struct {
	plotter.XYs
	low, high []float64
}

func (m minMax) YError(i int) (float64, float64) { return m.low[i], m.high[i] }

// throughputChart draws throughput against the swept value, one line per
// protocol through the medians, min-max bars, and a dot per run.
func throughputChart(param string, ss []series, ax valueAxis) (*plot.Plot, error) {
	p := newPlot("", keyLabel(param), "throughput (ops/s)")
	ax.apply(p)
	p.Y.Min = 0
	var lines [][]plotter.XY
	for i, s := range ss {
		gs := sortedGroups(s, ax)
		if len(gs) == 0 {
			continue
		}
		med := minMax{XYs: make(plotter.XYs, len(gs))}
		var dots plotter.XYs
		for k, g := range gs {
			st := g.Stat("throughput_ops")
			x := ax.Pos[g.Value]
			med.XYs[k] = plotter.XY{X: x, Y: st.Median}
			med.low = append(med.low, st.Median-st.Min)
			med.high = append(med.high, st.Max-st.Median)
			for _, r := range g.Rows {
				dots = append(dots, plotter.XY{X: x, Y: r.Throughput})
			}
		}
		line, pts, err := plotter.NewLinePoints(med.XYs)
		if err != nil {
			return nil, err
		}
		styleLine(line, pts, i, i)
		bars, err := plotter.NewYErrorBars(med)
		if err != nil {
			return nil, err
		}
		bars.Color = colorOf(i)
		bars.Width = vg.Points(1.2)
		bars.CapWidth = vg.Points(8)
		sc, err := plotter.NewScatter(dots)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: faded(colorOf(i)), Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
		p.Add(sc, bars, line, pts)
		p.Legend.Add(s.Protocol+" median, min-max", line, pts)
		lines = append(lines, med.XYs)
		for k, xy := range med.XYs {
			lines = append(lines, []plotter.XY{{X: xy.X, Y: xy.Y - med.low[k]}, {X: xy.X, Y: xy.Y + med.high[k]}})
		}
	}
	p.Legend.Add("one run", dotThumb{})
	p.Y.Max *= 1.05
	placeLegend(p, lines, len(ss)+1)
	return p, nil
}

// dotThumb is the legend entry of the per-run dots.
type dotThumb struct{}

func (dotThumb) Thumbnail(c *draw.Canvas) {
	ctr := c.Center()
	c.DrawGlyph(draw.GlyphStyle{Color: faded(colorOf(6)), Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}, ctr)
}

// styleLine gives a line and its points colour i and dash pattern d.
func styleLine(l *plotter.Line, s *plotter.Scatter, i, d int) {
	l.Color = colorOf(i)
	l.Width = vg.Points(1.8)
	l.Dashes = dashOf(d)
	s.GlyphStyle = draw.GlyphStyle{Color: colorOf(i), Radius: vg.Points(3.2), Shape: shapeOf(d)}
}

var shapes = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{}}

func shapeOf(i int) draw.GlyphDrawer { return shapes[i%len(shapes)] }

// panel is a plot and the polylines it draws (for placeLegend).
type panel struct {
	p     *plot.Plot
	lines [][]plotter.XY
}

// latencyPanel draws one percentile (p50 or p99) of the strong and weak
// operations of one protocol against throughput: a point per swept value,
// labelled with it, at the medians of the runs.
func latencyPanel(pct string, s series, ax valueAxis) (panel, error) {
	title := map[string]string{"p50": "median", "p99": "P99"}[pct] + " latency, " + s.Protocol
	p := newPlot(title, "throughput (ops/s)", pct+" latency (ms)")
	p.Title.TextStyle.Font.Size = vg.Points(12)
	p.Y.Min = 0
	pn := panel{p: p}
	labels := &pointLabels{}
	gs := sortedGroups(s, ax)
	for c, class := range []string{"strong", "weak"} {
		metric := class + "_" + pct + "_ms"
		var xys plotter.XYs
		var values []string
		for _, g := range gs {
			lat, tput := g.Stat(metric), g.Stat("throughput_ops")
			if lat.N == 0 {
				continue
			}
			xys = append(xys, plotter.XY{X: tput.Median, Y: lat.Median})
			values = append(values, g.Value)
		}
		if len(xys) == 0 {
			continue
		}
		line, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return panel{}, err
		}
		styleLine(line, pts, c, c)
		p.Add(line, pts)
		for k, xy := range xys {
			labels.labels = append(labels.labels, pointLabel{at: xy, text: values[k], color: colorOf(c)})
		}
		p.Legend.Add(class, line, pts)
		pn.lines = append(pn.lines, xys)
	}
	labels.lines = pn.lines
	p.Add(labels)
	return pn, nil
}

// shareRanges gives the plots of each column of grid the same axis ranges,
// so that protocols are compared on the same scale, with a margin for the
// point labels, then places each legend.
func shareRanges(grid [][]panel) {
	for col := range grid[0] {
		xlo, xhi, yhi := math.Inf(1), math.Inf(-1), math.Inf(-1)
		for _, row := range grid {
			p := row[col].p
			xlo, xhi, yhi = min(xlo, p.X.Min), max(xhi, p.X.Max), max(yhi, p.Y.Max)
		}
		pad := 0.06 * (xhi - xlo)
		if pad == 0 {
			pad = 0.05 * xhi
		}
		for _, row := range grid {
			p := row[col].p
			p.X.Min, p.X.Max = xlo-pad, xhi+2*pad
			p.Y.Min, p.Y.Max = 0, yhi*1.08
			placeLegend(p, row[col].lines, len(row[col].lines))
		}
	}
}

// writeSweepCharts writes KEY-throughput.png and KEY-latency.png for every
// swept key of rows into out, and returns the files written.
func writeSweepCharts(rows []sweep.Row, out, prefix, scale string) ([]string, error) {
	params, byParam, values := splitSweep(sweep.Summarize(rows))
	if len(params) == 0 {
		return nil, fmt.Errorf("no runs in the CSV")
	}
	var files []string
	for _, param := range params {
		ss := byParam[param]
		ax, err := chooseAxis(values[param], scale)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", param, err)
		}
		protos := make([]string, len(ss))
		for i, s := range ss {
			protos[i] = s.Protocol
		}
		note := fmt.Sprintf("%s (%s; %s)", param, strings.Join(protos, ", "), runsNote(ss))

		tp, err := throughputChart(param, ss, ax)
		if err != nil {
			return nil, err
		}
		f := filepath.Join(out, prefix+fileSafe(param)+"-throughput.png")
		if err := savePNG(f, "Throughput against "+note, 16*vg.Centimeter, 10*vg.Centimeter, [][]*plot.Plot{{tp}}); err != nil {
			return nil, err
		}
		files = append(files, f)

		var grid [][]panel
		for _, s := range ss {
			p50, err := latencyPanel("p50", s, ax)
			if err != nil {
				return nil, err
			}
			p99, err := latencyPanel("p99", s, ax)
			if err != nil {
				return nil, err
			}
			grid = append(grid, []panel{p50, p99})
		}
		shareRanges(grid)
		plots := make([][]*plot.Plot, len(grid))
		for i, row := range grid {
			plots[i] = []*plot.Plot{row[0].p, row[1].p}
		}
		f = filepath.Join(out, prefix+fileSafe(param)+"-latency.png")
		title := "Latency against throughput, points labelled with " + note
		h := 2*vg.Centimeter + 8*vg.Centimeter*vg.Length(len(grid))
		if err := savePNG(f, title, 26*vg.Centimeter, h, plots); err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}
