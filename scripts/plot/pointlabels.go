package main

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// pointLabels draws the labels of a panel's points (the swept values)
// on top of its lines: each on a white box, on the side of its point
// where the box crosses the fewest lines and covers no point and no
// earlier label. Add it to the plot after the lines, so that a box hides
// the bit of line it could not avoid, never the reverse.
type pointLabels struct {
	labels []pointLabel
	lines  [][]plotter.XY // every polyline of the panel, in data coordinates
}

// pointLabel is one point's label.
type pointLabel struct {
	at    plotter.XY
	text  string
	color color.Color
}

const (
	labelFontSize = 9.5 // points
	labelPad      = 1.5 // points of white around the text
	markerHalf    = 3.5 // points: half the side of the square kept clear around a point
	labelGap      = 1   // points between a point's square and its label's box
	labelKeepOff  = 3   // points between a label's box and another point's square
)

// Plot implements plot.Plotter.
func (l *pointLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	toCanvas := func(xy plotter.XY) vg.Point { return vg.Point{X: trX(xy.X), Y: trY(xy.Y)} }
	var segs [][2]vg.Point
	var markers []vg.Point
	for _, line := range l.lines {
		for i, xy := range line {
			pt := toCanvas(xy)
			markers = append(markers, pt)
			if i > 0 {
				segs = append(segs, [2]vg.Point{toCanvas(line[i-1]), pt})
			}
		}
	}
	styles := make([]text.Style, len(l.labels))
	at := make([]vg.Point, len(l.labels))
	sizes := make([]vg.Point, len(l.labels))
	for i, lb := range l.labels {
		styles[i] = text.Style{Color: lb.color, Font: font.From(plot.DefaultFont, vg.Points(labelFontSize)),
			XAlign: draw.XCenter, YAlign: draw.YCenter, Handler: plot.DefaultTextHandler}
		at[i] = toCanvas(lb.at)
		sizes[i] = styles[i].Rectangle(lb.text).Size().Add(vg.Point{X: vg.Points(2 * labelPad), Y: vg.Points(2 * labelPad)})
	}
	for i, box := range placeLabels(at, sizes, segs, markers, c.Rectangle) {
		c.SetColor(color.White)
		c.Fill(box.Path())
		// The text's own rectangle, centred on the box's centre.
		r := styles[i].Rectangle(l.labels[i].text)
		mid := vg.Point{X: (box.Min.X + box.Max.X) / 2, Y: (box.Min.Y + box.Max.Y) / 2}
		off := vg.Point{X: (r.Min.X + r.Max.X) / 2, Y: (r.Min.Y + r.Max.Y) / 2}
		c.FillText(styles[i], mid.Sub(off), l.labels[i].text)
	}
}

// placeLabels returns the box of each label, in order: label i has size
// sizes[i] and belongs to the point at[i]; markers are every point drawn.
// Its box goes on one of the eight sides of the point, just clear of the
// point's square, the side of least cost: 100 for overlapping an earlier
// box or leaving area, 20 per other point whose square (with a margin)
// it covers, 15 when another point is nearer its centre than its own
// (the label would seem to be that point's), 10 per segment crossed.
// Ties go to the first side: above right, then below right, above left,
// below left, right, left, above, below.
func placeLabels(at, sizes []vg.Point, segs [][2]vg.Point, markers []vg.Point, area vg.Rectangle) []vg.Rectangle {
	sides := [][2]float64{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}, {1, 0}, {-1, 0}, {0, 1}, {0, -1}}
	clear := vg.Points(markerHalf + labelGap)
	var placed []vg.Rectangle
	for i, pt := range at {
		w, h := sizes[i].X, sizes[i].Y
		var best vg.Rectangle
		bestScore := -1
		for _, s := range sides {
			// The box's centre: beside the point's square on each axis the
			// side moves along, centred on the point on the other.
			mid := pt
			if s[0] != 0 {
				mid.X += vg.Length(s[0]) * (clear + w/2)
			}
			if s[1] != 0 {
				mid.Y += vg.Length(s[1]) * (clear + h/2)
			}
			box := vg.Rectangle{Min: vg.Point{X: mid.X - w/2, Y: mid.Y - h/2}, Max: vg.Point{X: mid.X + w/2, Y: mid.Y + h/2}}
			score := 0
			for _, sg := range segs {
				if segmentCrosses(sg[0], sg[1], box) {
					score += 10
				}
			}
			own := dist2(mid, pt)
			nearer := false
			for _, m := range markers {
				if m == pt {
					continue
				}
				if overlaps(box, squareAround(m, vg.Points(markerHalf+labelKeepOff))) {
					score += 20
				}
				nearer = nearer || dist2(mid, m) < own
			}
			if nearer {
				score += 15
			}
			for _, b := range placed {
				if overlaps(box, b) {
					score += 100
				}
			}
			if box.Min.X < area.Min.X || box.Max.X > area.Max.X || box.Min.Y < area.Min.Y || box.Max.Y > area.Max.Y {
				score += 100
			}
			if bestScore < 0 || score < bestScore {
				best, bestScore = box, score
			}
		}
		placed = append(placed, best)
	}
	return placed
}

// squareAround is the square of half side r centred on pt.
func squareAround(pt vg.Point, r vg.Length) vg.Rectangle {
	return vg.Rectangle{Min: vg.Point{X: pt.X - r, Y: pt.Y - r}, Max: vg.Point{X: pt.X + r, Y: pt.Y + r}}
}

// dist2 is the square of the distance between a and b.
func dist2(a, b vg.Point) vg.Length {
	d := a.Sub(b)
	return d.X*d.X + d.Y*d.Y
}

// overlaps reports whether rectangles a and b share an interior point.
func overlaps(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

// segmentCrosses reports whether the segment from a to b passes through
// rectangle r (Liang-Barsky clipping).
func segmentCrosses(a, b vg.Point, r vg.Rectangle) bool {
	t0, t1 := 0.0, 1.0
	dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
	for _, e := range [4][2]float64{
		{-dx, float64(a.X - r.Min.X)},
		{dx, float64(r.Max.X - a.X)},
		{-dy, float64(a.Y - r.Min.Y)},
		{dy, float64(r.Max.Y - a.Y)},
	} {
		p, q := e[0], e[1]
		if p == 0 {
			if q < 0 {
				return false
			}
			continue
		}
		t := q / p
		if p < 0 {
			if t > t1 {
				return false
			}
			t0 = max(t0, t)
		} else {
			if t < t0 {
				return false
			}
			t1 = min(t1, t)
		}
	}
	return true
}
