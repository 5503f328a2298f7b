package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
)

// The x scales of a sweep chart.
const (
	scaleAuto     = "auto"
	scaleLinear   = "linear"
	scaleLog      = "log"
	scaleCategory = "category"
)

// valueAxis places the swept values of a chart on its x axis: Pos maps a
// value (as written in sweep.csv) to its x coordinate, and Order lists the
// values from left to right. A tick is drawn at every value, so the chart
// shows exactly what was run.
type valueAxis struct {
	Scale string
	Order []string
	Pos   map[string]float64
}

// decades is the spread (max/min) above which auto picks a log scale:
// on a linear axis 1, 2 and 500 would put two of three points on top of
// each other.
const decades = 100

// chooseAxis picks the scale for values (mode: auto or a fixed scale).
func chooseAxis(values []string, mode string) (valueAxis, error) {
	nums := make([]float64, len(values))
	numeric := true
	for i, v := range values {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			numeric = false
			break
		}
		nums[i] = x
	}
	if mode == scaleAuto {
		mode = scaleCategory
		if numeric {
			lo, hi := slices.Min(nums), slices.Max(nums)
			switch {
			case lo > 0 && hi/lo > decades:
				mode = scaleLog
			case lo <= 0 && spread(nums) > decades:
				mode = scaleCategory // a log axis cannot show 0
			default:
				mode = scaleLinear
			}
		}
	}
	a := valueAxis{Scale: mode, Pos: map[string]float64{}}
	a.Order = slices.Clone(values)
	if numeric {
		idx := make([]int, len(values))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(i, j int) int { return cmpFloat(nums[i], nums[j]) })
		for k, i := range idx {
			a.Order[k] = values[i]
		}
	}
	switch mode {
	case scaleCategory:
		for i, v := range a.Order {
			a.Pos[v] = float64(i)
		}
	case scaleLinear, scaleLog:
		if !numeric {
			return valueAxis{}, fmt.Errorf("-xscale %s needs numeric values, not %q", mode, values)
		}
		for i, v := range values {
			if mode == scaleLog && nums[i] <= 0 {
				return valueAxis{}, fmt.Errorf("-xscale log cannot show the value %s", v)
			}
			a.Pos[v] = nums[i]
		}
	default:
		return valueAxis{}, fmt.Errorf("unknown x scale %q (auto, linear, log, category)", mode)
	}
	return a, nil
}

// spread is max/min over the positive values, 1 when there are none.
func spread(xs []float64) float64 {
	lo, hi := math.Inf(1), 0.0
	for _, x := range xs {
		if x > 0 {
			lo, hi = min(lo, x), max(hi, x)
		}
	}
	if hi == 0 {
		return 1
	}
	return hi / lo
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// apply sets p's x axis: the scale, a tick labelled with every value, and
// some room beyond the outermost values.
func (a valueAxis) apply(p *plot.Plot) {
	ticks := make([]plot.Tick, len(a.Order))
	for i, v := range a.Order {
		ticks[i] = plot.Tick{Value: a.Pos[v], Label: v}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	lo, hi := a.Pos[a.Order[0]], a.Pos[a.Order[len(a.Order)-1]]
	switch a.Scale {
	case scaleLog:
		p.X.Scale = plot.LogScale{}
		p.X.Min, p.X.Max = lo/1.5, hi*1.5
	default:
		pad := 0.08 * (hi - lo)
		if pad == 0 {
			pad = 0.5
		}
		p.X.Min, p.X.Max = lo-pad, hi+pad
	}
}
