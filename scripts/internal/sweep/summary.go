package sweep

import (
	"encoding/csv"
	"io"
	"math"
	"slices"
	"strconv"
)

// Stat describes a sample: its size and its median, minimum and maximum.
// The median of an even number of values is the mean of the middle two,
// so with two iterations it is their mean. All three are NaN when N is 0.
type Stat struct {
	N                int
	Median, Min, Max float64
}

// Describe computes the Stat of xs, leaving out NaNs (missing values).
func Describe(xs []float64) Stat {
	v := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return Stat{Median: math.NaN(), Min: math.NaN(), Max: math.NaN()}
	}
	slices.Sort(v)
	n := len(v)
	med := v[n/2]
	if n%2 == 0 {
		med = (v[n/2-1] + v[n/2]) / 2
	}
	return Stat{N: n, Median: med, Min: v[0], Max: v[n-1]}
}

// Metric is one summarised column.
type Metric struct {
	Name string // the column prefix in sweep-summary.csv
	Prec int    // decimals written
	Of   func(Row) float64
}

// The metrics of sweep-summary.csv, in column order. Metrics[0] is the
// throughput; the plot tool relies on the names.
var Metrics = []Metric{
	{"throughput_ops", 1, func(r Row) float64 { return r.Throughput }},
	{"strong_p50_ms", 3, func(r Row) float64 { return r.StrongP50 }},
	{"strong_p99_ms", 3, func(r Row) float64 { return r.StrongP99 }},
	{"weak_p50_ms", 3, func(r Row) float64 { return r.WeakP50 }},
	{"weak_p99_ms", 3, func(r Row) float64 { return r.WeakP99 }},
	{"fast_share", 3, Row.FastShare},
	{"cpu_us_per_op", 2, func(r Row) float64 { return r.CPUPerOp }},
	{"fsyncs_per_op", 5, func(r Row) float64 { return r.FsyncsPerOp }},
}

// MetricIndex is the index in Metrics of the metric called name, or -1.
func MetricIndex(name string) int {
	return slices.IndexFunc(Metrics, func(m Metric) bool { return m.Name == name })
}

// Group is every run of one value of one swept key under one protocol.
type Group struct {
	Param, Protocol, Value string
	Runs                   int    // rows in sweep.csv
	OKRuns                 int    // rows with ok=true: the only ones in Stats
	Rows                   []Row  // the ok rows, in file order
	Stats                  []Stat // one per Metrics entry
}

// Stat is the statistic of the metric called name (which must exist).
func (g Group) Stat(name string) Stat {
	return g.Stats[MetricIndex(name)]
}

// Summarize groups rows by (param, protocol, value), in the order in
// which each group first appears, and describes each group's ok rows.
func Summarize(rows []Row) []Group {
	type key struct{ param, protocol, value string }
	index := map[key]int{}
	var gs []Group
	for _, r := range rows {
		k := key{r.Param, r.Protocol, r.Value}
		i, ok := index[k]
		if !ok {
			i = len(gs)
			index[k] = i
			gs = append(gs, Group{Param: r.Param, Protocol: r.Protocol, Value: r.Value})
		}
		gs[i].Runs++
		if r.OK && r.Measured {
			gs[i].OKRuns++
			gs[i].Rows = append(gs[i].Rows, r)
		}
	}
	for i := range gs {
		g := &gs[i]
		g.Stats = make([]Stat, len(Metrics))
		for j, m := range Metrics {
			xs := make([]float64, len(g.Rows))
			for k, r := range g.Rows {
				xs[k] = m.Of(r)
			}
			g.Stats[j] = Describe(xs)
		}
	}
	return gs
}

// SummaryHeader is the first line of sweep-summary.csv.
func SummaryHeader() []string {
	h := []string{"param", "protocol", "value", "runs", "ok_runs"}
	for _, m := range Metrics {
		h = append(h, m.Name+"_median", m.Name+"_min", m.Name+"_max")
	}
	return h
}

// WriteSummaryCSV writes sweep-summary.csv: one line per group, missing
// statistics as empty cells.
func WriteSummaryCSV(w io.Writer, gs []Group) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(SummaryHeader()); err != nil {
		return err
	}
	for _, g := range gs {
		rec := []string{g.Param, g.Protocol, g.Value, strconv.Itoa(g.Runs), strconv.Itoa(g.OKRuns)}
		for j, m := range Metrics {
			s := g.Stats[j]
			rec = append(rec, formatFloat(s.Median, m.Prec), formatFloat(s.Min, m.Prec), formatFloat(s.Max, m.Prec))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
