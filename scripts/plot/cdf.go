package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/HdrHistogram/hdrhistogram-go"

	"swiftpaxos/client/bench"
)

// classes are the four latency classes in the order of every legend.
var classes = []struct {
	c    bench.Class
	name string
}{
	{bench.StrongRead, "strong read"},
	{bench.StrongWrite, "strong write"},
	{bench.WeakRead, "weak read"},
	{bench.WeakWrite, "weak write"},
}

// run is one benchmark run: the merged histograms of its client processes.
type run struct {
	Label    string
	Protocol string
	Latency  bench.ClassHistograms
}

// loadRun merges dir/results-*.json (one per client process). The merge is
// exact: the histograms share one geometry, so bucket counts add.
func loadRun(dir string) (run, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "results-*.json"))
	if err != nil || len(paths) == 0 {
		return run{}, fmt.Errorf("%s: no results-*.json (is it a run directory of run-multi-client.sh?)", dir)
	}
	sort.Strings(paths)
	r := run{Label: dirLabel(dir)}
	for _, p := range paths {
		pr, err := bench.ReadResults(p)
		if err != nil {
			return run{}, err
		}
		if r.Protocol == "" {
			r.Protocol = pr.Protocol
		}
		if err := r.Latency.Merge(&pr.Latency); err != nil {
			return run{}, fmt.Errorf("%s: %w", p, err)
		}
	}
	return r, nil
}

// cdfPoint says that a fraction Frac of the samples took at most Ms.
type cdfPoint struct {
	Ms   float64
	Frac float64
}

// histogramJSON is the serialized form of bench.LatencyHistogram (see
// client/bench/results_hist.go): its geometry and hdrhistogram's bucket counts.
type histogramJSON struct {
	LowestUs           int64   `json:"lowest_us"`
	HighestUs          int64   `json:"highest_us"`
	SignificantFigures int64   `json:"significant_figures"`
	Total              int64   `json:"total"`
	Counts             []int64 `json:"counts"`
}

// exactCDF is the empirical CDF of h, one point per non-empty bucket: the
// bucket's upper end and the fraction of samples up to it. That is where
// bench.LatencyStats reads its percentiles too, so the curve passes
// exactly through the P50 and P99 of summary.json. It also returns the
// number of samples.
func exactCDF(h *bench.LatencyHistogram) ([]cdfPoint, int64, error) {
	b, err := json.Marshal(h)
	if err != nil {
		return nil, 0, err
	}
	var j histogramJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, 0, err
	}
	s := &hdrhistogram.Snapshot{LowestTrackableValue: j.LowestUs, HighestTrackableValue: j.HighestUs,
		SignificantFigures: j.SignificantFigures, Counts: j.Counts}
	if err := s.Validate(); err != nil {
		return nil, 0, err
	}
	hh := hdrhistogram.Import(s)
	n := hh.TotalCount()
	if n == 0 {
		return nil, 0, nil
	}
	var pts []cdfPoint
	var cum int64
	for _, bar := range hh.Distribution() {
		if bar.Count == 0 {
			continue
		}
		if len(pts) == 0 {
			pts = append(pts, cdfPoint{Ms: float64(bar.From) / 1000, Frac: 0})
		}
		cum += bar.Count
		pts = append(pts, cdfPoint{Ms: float64(bar.To) / 1000, Frac: float64(cum) / float64(n)})
		if cum == n {
			break
		}
	}
	return pts, n, nil
}

// elementMs is the latency of the sample at 0-based index i of the sorted
// samples (n in all), read off the CDF: the first point whose cumulative
// count exceeds i.
func elementMs(pts []cdfPoint, n, i int64) float64 {
	for _, p := range pts[1:] {
		// Frac*n recovers the cumulative count; round against float error.
		if int64(p.Frac*float64(n)+0.5) > i {
			return p.Ms
		}
	}
	return pts[len(pts)-1].Ms
}

// percentileTicks are the x ticks of the tail panel: the axis value is
// 1/(1-q) for the quantile q.
var percentileTicks = []struct {
	x     float64
	label string
}{
	{2, "50%"}, {10, "90%"}, {100, "99%"}, {1000, "99.9%"}, {10000, "99.99%"}, {100000, "99.999%"},
}

// tailPoints turns a CDF into latency by percentile for a log axis of
// 1/(1-q): the step of each bucket starts where the previous bucket's
// cumulative fraction ends. The last step ends at the quantile of the
// largest sample, (n-1)/n, that is at x = n.
func tailPoints(pts []cdfPoint, n int64) []cdfPoint {
	var out []cdfPoint
	prev := 0.0
	for _, p := range pts[1:] {
		out = append(out, cdfPoint{Ms: p.Ms, Frac: 1 / (1 - prev)})
		prev = p.Frac
	}
	if len(out) > 0 {
		out = append(out, cdfPoint{Ms: out[len(out)-1].Ms, Frac: float64(n)})
	}
	return out
}
