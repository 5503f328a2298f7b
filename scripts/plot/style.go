package main

import (
	"fmt"
	"image"
	"image/color"
	stddraw "image/draw"
	"image/png"
	"os"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// dpi of every PNG: sharp on a high-density screen, still small files.
const dpi = 120

// palette is a colour-blind-safe set (Okabe and Ito's seven, then three
// of Paul Tol's muted set, so that all ten systems of
// scripts/peers/run.sh get colours of their own), first colours first.
var palette = []color.Color{
	color.RGBA{0, 114, 178, 255},   // blue
	color.RGBA{213, 94, 0, 255},    // vermillion
	color.RGBA{0, 158, 115, 255},   // bluish green
	color.RGBA{204, 121, 167, 255}, // reddish purple
	color.RGBA{230, 159, 0, 255},   // orange
	color.RGBA{86, 180, 233, 255},  // sky blue
	color.RGBA{0, 0, 0, 255},       // black
	color.RGBA{136, 34, 85, 255},   // wine
	color.RGBA{153, 153, 51, 255},  // olive
	color.RGBA{119, 119, 119, 255}, // gray
}

func colorOf(i int) color.Color { return palette[i%len(palette)] }

// faded is c at a quarter of its opacity, for the dots of single runs.
func faded(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 90}
}

// dashes are the line patterns, solid first.
var dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)}}

func dashOf(i int) []vg.Length { return dashes[i%len(dashes)] }

// newPlot is a plot with a title, labelled axes, a grid, and fonts a bit
// larger than gonum's defaults so that a chart scaled into a web page
// stays readable.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(12)
		a.Tick.Label.Font.Size = vg.Points(10.5)
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = plainTicks{}, plainTicks{}
	p.Legend.TextStyle.Font.Size = vg.Points(10.5)
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.ThumbnailWidth = vg.Points(28)
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{225}
	g.Horizontal.Color = color.Gray{225}
	p.Add(g)
	return p
}

// plainTicks are gonum's default tick positions labelled without
// trailing zeros: 50000 rather than 50000.00.
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			// Ten significant digits: the ticks' own arithmetic leaves
			// 0.30000000000000004 where 0.3 is meant.
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 10, 64)
		}
	}
	return ts
}

// savePNG draws the plots of grid (rows of panels) on one image of w by h
// and writes it to path; a non-empty title is drawn above all panels.
func savePNG(path, title string, w, h vg.Length, grid [][]*plot.Plot) error {
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi))
	dc := draw.New(img)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	top := vg.Points(6)
	if title != "" {
		sty := draw.TextStyle{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(14)), XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
		dc.FillText(sty, vg.Point{X: w / 2, Y: h - vg.Points(6)}, title)
		top += vg.Points(24)
	}
	t := draw.Tiles{Rows: len(grid), Cols: len(grid[0]), PadX: vg.Points(18), PadY: vg.Points(14),
		PadTop: top, PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(12)}
	canvases := plot.Align(grid, t, dc)
	for i, row := range grid {
		for j, p := range row {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(f, paletted(img.Image()))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// paletted maps an RGBA chart to a palette of the chart's colours, each
// blended with white in 16 steps (antialiased edges are such blends), and
// grays. The charts are committed to the repository, and a paletted PNG is
// a third the size of an RGBA one with no visible difference.
func paletted(src image.Image) *image.Paletted {
	var pal color.Palette
	bases := append(slices.Clone(palette), color.RGBA{225, 225, 225, 255})
	for _, c := range bases {
		r, g, b, _ := c.RGBA()
		for k := 1; k <= 16; k++ {
			a := float64(k) / 16
			mix := func(v uint32) uint8 { return uint8(float64(v>>8)*a + 255*(1-a) + 0.5) }
			pal = append(pal, color.RGBA{mix(r), mix(g), mix(b), 255})
		}
	}
	for k := 0; k < 256 && len(pal) < 256; k += 8 {
		pal = append(pal, color.Gray{uint8(k)})
	}
	pal = append(pal, color.White)
	dst := image.NewPaletted(src.Bounds(), pal[:min(len(pal), 256)])
	stddraw.Draw(dst, dst.Bounds(), src, src.Bounds().Min, stddraw.Src)
	return dst
}

// fileSafe turns a label into a file-name part.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, s)
}

// runName is a run's label for a chart title, with its protocol when
// the label does not already say it.
func runName(label, protocol string) string {
	if protocol == "" || protocol == label {
		return label
	}
	return label + " (" + protocol + ")"
}

// placeLegend puts p's legend in the corner of the data area that the
// polylines (in data coordinates) cross least, so that it hides no data:
// each segment is sampled and the samples falling in the box a legend of
// entries lines would take are counted. Call it once the axis ranges are
// final. Ties go to bottom right, then top left, top right, bottom left.
func placeLegend(p *plot.Plot, lines [][]plotter.XY, entries int) {
	const boxW = 0.42
	boxH := 0.07*float64(entries) + 0.03
	var pts [][2]float64
	for _, l := range lines {
		for i := range l {
			if i == 0 {
				pts = append(pts, [2]float64{p.X.Norm(l[0].X), p.Y.Norm(l[0].Y)})
				continue
			}
			x0, y0 := p.X.Norm(l[i-1].X), p.Y.Norm(l[i-1].Y)
			x1, y1 := p.X.Norm(l[i].X), p.Y.Norm(l[i].Y)
			for k := 1; k <= 20; k++ {
				f := float64(k) / 20
				pts = append(pts, [2]float64{x0 + f*(x1-x0), y0 + f*(y1-y0)})
			}
		}
	}
	corners := []struct{ top, left bool }{{false, false}, {true, true}, {true, false}, {false, true}}
	best, bestN := corners[0], -1
	for _, c := range corners {
		n := 0
		for _, q := range pts {
			inX := (c.left && q[0] <= boxW) || (!c.left && q[0] >= 1-boxW)
			inY := (c.top && q[1] >= 1-boxH) || (!c.top && q[1] <= boxH)
			if inX && inY {
				n++
			}
		}
		if bestN < 0 || n < bestN {
			best, bestN = c, n
		}
	}
	p.Legend.Top, p.Legend.Left = best.top, best.left
}
