package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"gonum.org/v1/plot/vg"
)

// TestPlaceLabelsKeepsClearOfLines: two nearly equal points, as the
// strong and weak P99 of a sweep often are, one the start of a line
// running down to the right, the other of a line running up to the
// right through where a label at a fixed offset to the upper right
// would be. Every label lands where no line crosses it, on no point and
// on no other label, nearer its own point than any other.
func TestPlaceLabelsKeepsClearOfLines(t *testing.T) {
	pt := func(x, y float64) vg.Point { return vg.Point{X: vg.Length(x), Y: vg.Length(y)} }
	strong := []vg.Point{pt(100, 300), pt(200, 150), pt(300, 120)}
	weak := []vg.Point{pt(101, 303), pt(200, 360), pt(300, 370)}
	var segs [][2]vg.Point
	for _, l := range [][]vg.Point{strong, weak} {
		for i := 1; i < len(l); i++ {
			segs = append(segs, [2]vg.Point{l[i-1], l[i]})
		}
	}
	at := append(append([]vg.Point{}, strong...), weak...)
	sizes := make([]vg.Point, len(at))
	for i := range sizes {
		sizes[i] = pt(9, 12)
	}
	area := vg.Rectangle{Min: pt(0, 0), Max: pt(400, 400)}
	boxes := placeLabels(at, sizes, segs, at, area)
	assert.Len(t, boxes, len(at))
	for i, b := range boxes {
		for _, s := range segs {
			assert.False(t, segmentCrosses(s[0], s[1], b), "label %d crosses a line", i)
		}
		for j, p := range at {
			assert.False(t, overlaps(b, squareAround(p, vg.Points(markerHalf))), "label %d covers point %d", i, j)
			if j != i {
				mid := vg.Point{X: (b.Min.X + b.Max.X) / 2, Y: (b.Min.Y + b.Max.Y) / 2}
				assert.GreaterOrEqual(t, dist2(mid, p), dist2(mid, at[i]), "label %d is nearer point %d", i, j)
			}
		}
		for j := range i {
			assert.False(t, overlaps(b, boxes[j]), "labels %d and %d overlap", i, j)
		}
		assert.True(t, b.Min.X >= area.Min.X && b.Max.X <= area.Max.X && b.Min.Y >= area.Min.Y && b.Max.Y <= area.Max.Y, "label %d leaves the area", i)
	}
}

func TestSegmentCrosses(t *testing.T) {
	r := vg.Rectangle{Min: vg.Point{X: 10, Y: 10}, Max: vg.Point{X: 20, Y: 20}}
	for _, c := range []struct {
		a, b vg.Point
		want bool
	}{
		{vg.Point{X: 0, Y: 0}, vg.Point{X: 30, Y: 30}, true},   // through the middle
		{vg.Point{X: 12, Y: 12}, vg.Point{X: 14, Y: 14}, true}, // inside
		{vg.Point{X: 0, Y: 15}, vg.Point{X: 9, Y: 15}, false},  // stops short
		{vg.Point{X: 0, Y: 25}, vg.Point{X: 30, Y: 25}, false}, // passes above
		{vg.Point{X: 0, Y: 30}, vg.Point{X: 30, Y: 0}, true},   // across a corner region
		{vg.Point{X: 0, Y: 10}, vg.Point{X: 5, Y: 0}, false},   // beside a corner
	} {
		assert.Equal(t, c.want, segmentCrosses(c.a, c.b, r), "%v-%v", c.a, c.b)
	}
}
