package main

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"swiftpaxos/scripts/internal/ycsbraw"
)

// latencyPath is where scripts/peers/run.sh keeps the raw latencies of
// a cell's run phase (go-ycsb's measurementtype=raw, gzipped):
// DIR/lat/ROUND-THREADS-SYSTEM-WORKLOAD.csv.gz.
func latencyPath(dir string, r peerRow) string {
	return filepath.Join(dir, "lat", fmt.Sprintf("%d-%d-%s-%s.csv.gz", r.Round, r.Threads, r.System, r.Workload))
}

// opOrder is the order of the operation columns; an operation not in it
// comes after them, by name.
var opOrder = []string{"READ", "UPDATE", "INSERT", "SCAN", "READ_MODIFY_WRITE"}

func opRank(op string) int {
	if i := slices.Index(opOrder, op); i >= 0 {
		return i
	}
	return len(opOrder)
}

// peersLatency is one workload's raw latencies: per thread setting,
// system and operation, the samples of its ok rounds pooled.
type peersLatency struct {
	Samples map[int]map[string]map[string][]int64
	Ops     []string // in opOrder
	Used    int      // ok rows whose latency file was read
	Missing int      // ok rows without a latency file
}

// loadPeersLatency reads the latency files of workload's ok rows. A
// missing file is counted, not an error (a comparison begun before
// run.sh kept them has none); an unreadable or malformed one is an
// error. TOTAL (every operation again) and the *_ERROR operations (an
// ok row has none) are left out.
func loadPeersLatency(d peers, workload string) (peersLatency, error) {
	l := peersLatency{Samples: map[int]map[string]map[string][]int64{}}
	for _, r := range d.Rows {
		if !r.OK || r.Workload != workload {
			continue
		}
		path := latencyPath(d.Dir, r)
		s, err := ycsbraw.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			l.Missing++
			continue
		}
		if err != nil {
			return peersLatency{}, fmt.Errorf("the latencies of peers.csv line %d: %w", r.Line, err)
		}
		l.Used++
		for _, op := range s.Ops {
			if op == "TOTAL" || strings.HasSuffix(op, "_ERROR") {
				continue
			}
			if l.Samples[r.Threads] == nil {
				l.Samples[r.Threads] = map[string]map[string][]int64{}
			}
			if l.Samples[r.Threads][r.System] == nil {
				l.Samples[r.Threads][r.System] = map[string][]int64{}
			}
			l.Samples[r.Threads][r.System][op] = append(l.Samples[r.Threads][r.System][op], s.LatencyUs[op]...)
			if !slices.Contains(l.Ops, op) {
				l.Ops = append(l.Ops, op)
			}
		}
	}
	slices.SortFunc(l.Ops, func(a, b string) int {
		if c := opRank(a) - opRank(b); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return l, nil
}

// sampleCDF is the exact empirical CDF of latencies in µs, in the form
// of exactCDF's (so that elementMs, tailPoints and the panels of
// cdfcharts.go read it alike): the smallest latency at fraction 0, then
// one point per distinct latency with the fraction of samples up to it.
// A latency of 0 µs (under go-ycsb's resolution) is drawn at 1 µs, as
// the charts' latency axes are logarithmic.
func sampleCDF(us []int64) []cdfPoint {
	s := slices.Clone(us)
	slices.Sort(s)
	ms := func(v int64) float64 { return float64(max(v, 1)) / 1000 }
	pts := []cdfPoint{{Ms: ms(s[0]), Frac: 0}}
	n := float64(len(s))
	for i, v := range s {
		if i+1 < len(s) && s[i+1] == v {
			continue
		}
		pts = append(pts, cdfPoint{Ms: ms(v), Frac: float64(i+1) / n})
	}
	return pts
}

// log10Ticks are the ticks of an axis of log10(latency in ms): 1, 2 and
// 5 times a power of ten labelled with the latency, an unlabelled tick
// at the other multiples; all labelled when fewer than two would be.
// The charts draw log10 of the latency on a linear axis rather than the
// latency on gonum's log scale, which centres an axis label at the
// arithmetic mean of the axis range and so pads the panel for a label
// drawn far from where it is.
type log10Ticks struct{}

func (log10Ticks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	labelled := 0
	for e := math.Floor(lo); e <= math.Ceil(hi); e++ {
		for m := 1; m <= 9; m++ {
			v := float64(m) * math.Pow(10, e)
			x := math.Log10(v)
			if x < lo || x > hi {
				continue
			}
			t := plot.Tick{Value: x}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'g', 10, 64)
				labelled++
			}
			ts = append(ts, t)
		}
	}
	if labelled < 2 {
		for i := range ts {
			ts[i].Label = strconv.FormatFloat(math.Pow(10, ts[i].Value), 'g', 3, 64)
		}
	}
	return ts
}

// peersCDFPanels are the CDF and tail panels of one thread setting and
// operation: a curve per system that has samples, in its colour.
func peersCDFPanels(d peers, l peersLatency, threads int, op string) (body, tl *plot.Plot, err error) {
	var cs []curve
	var colours []int
	for _, s := range d.Systems {
		us := l.Samples[threads][s][op]
		if len(us) == 0 {
			continue
		}
		// Latency on a log axis (see log10Ticks): the systems differ by
		// orders of magnitude.
		pts := sampleCDF(us)
		for i := range pts {
			pts[i].Ms = math.Log10(pts[i].Ms)
		}
		cs = append(cs, curve{name: s, pts: pts, n: int64(len(us))})
		colours = append(colours, d.systemColour(s))
	}
	if len(cs) == 0 {
		return nil, nil, nil
	}
	title := fmt.Sprintf("%d threads, %s", threads, op)
	if body, err = cdfPanel(title, cs, colours); err != nil {
		return nil, nil, err
	}
	if tl, err = tailPanel(title+": tail", cs, colours); err != nil {
		return nil, nil, err
	}
	// The whole range, where cdfPanel's axis ends at a P99.
	lo, hi := math.Inf(1), math.Inf(-1)
	var bodyLines, tailLines [][]plotter.XY
	for _, c := range cs {
		lo, hi = min(lo, c.pts[0].Ms), max(hi, c.pts[len(c.pts)-1].Ms)
		bodyLines = append(bodyLines, c.xys(func(q cdfPoint) plotter.XY { return plotter.XY{X: q.Ms, Y: q.Frac} }))
		tailLines = append(tailLines, tail(tailPoints(c.pts, c.n)).xys())
	}
	pad := max(0.02*(hi-lo), 0.01)
	body.X.Tick.Marker = log10Ticks{}
	body.X.Min, body.X.Max = lo-pad, hi+pad
	body.X.Label.Text = "latency (ms, log scale)"
	tl.Y.Tick.Marker = log10Ticks{}
	tl.Y.Min, tl.Y.Max = lo-pad, hi+pad
	tl.Y.Label.Text = "latency (ms, log scale)"
	placeLegend(body, bodyLines, len(cs))
	placeLegend(tl, tailLines, len(cs))
	return body, tl, nil
}

// writePeersCDF writes, for every workload with latency files,
// peers-cdf-W.png (the CDFs) and peers-tail-W.png (latency by
// percentile): a row per thread setting, a column per operation. It
// returns the files and notes for stdout (ok rounds left out for want
// of a file).
func writePeersCDF(d peers, out, prefix string) (files, notes []string, err error) {
	for _, w := range d.Workloads {
		l, err := loadPeersLatency(d, w)
		if err != nil {
			return nil, nil, err
		}
		if l.Used == 0 {
			continue
		}
		var bodies, tails [][]*plot.Plot
		for _, t := range d.Threads {
			var br, tr []*plot.Plot
			any := false
			for _, op := range l.Ops {
				b, tl, err := peersCDFPanels(d, l, t, op)
				if err != nil {
					return nil, nil, err
				}
				any = any || b != nil
				br, tr = append(br, b), append(tr, tl)
			}
			if any {
				bodies, tails = append(bodies, br), append(tails, tr)
			}
		}
		W := strings.ToUpper(w)
		what := fmt.Sprintf("every operation of the ok rounds, %d cells", l.Used)
		if l.Missing > 0 {
			what += fmt.Sprintf("; %d ok cells without a latency file left out", l.Missing)
			notes = append(notes, fmt.Sprintf("workload %s: %d ok cells have no latency file under %s and are not in its CDF",
				W, l.Missing, filepath.Join(d.Dir, "lat")))
		}
		wd := 13 * vg.Centimeter * vg.Length(len(l.Ops))
		h := 2*vg.Centimeter + 8*vg.Centimeter*vg.Length(len(bodies))
		for _, c := range []struct {
			name, title string
			grid        [][]*plot.Plot
		}{
			{"cdf", "Workload " + W + ": latency CDF by system (" + what + ")", bodies},
			{"tail", "Workload " + W + ": latency by percentile (" + what + ")", tails},
		} {
			f := filepath.Join(out, prefix+"peers-"+c.name+"-"+w+".png")
			if err := savePNG(f, c.title, wd, h, c.grid); err != nil {
				return nil, nil, err
			}
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		notes = append(notes, fmt.Sprintf("no latency files under %s: no CDF", filepath.Join(d.Dir, "lat")))
	}
	return files, notes, nil
}

// writePeersCharts writes every chart of -peers DIR.
func writePeersCharts(dir, out, prefix string) (files, notes []string, err error) {
	d, err := loadPeers(dir)
	if err != nil {
		return nil, nil, err
	}
	f, err := writePeersThroughput(d, out, prefix)
	if err != nil {
		return nil, nil, err
	}
	cdfs, notes, err := writePeersCDF(d, out, prefix)
	if err != nil {
		return nil, nil, err
	}
	return append([]string{f}, cdfs...), notes, nil
}
