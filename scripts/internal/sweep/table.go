package sweep

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// WriteMarkdown writes gs as a Markdown table, one line per group: the
// median of each metric with the range of the iterations in parentheses.
// docs/TUNING.md is made of these tables, and sweep.sh prints one at the
// end.
func WriteMarkdown(w io.Writer, gs []Group) error {
	param := "value"
	if len(gs) > 0 {
		param = gs[0].Param
	}
	// One sweep.csv may hold sweeps of several keys (sweep.sh appends to
	// it): the first column then names the key in each cell.
	mixed := slices.ContainsFunc(gs, func(g Group) bool { return g.Param != param })
	if mixed {
		param = "setting"
	}
	// Sweeping the protocol itself: its column would repeat the first.
	byProtocol := strings.EqualFold(param, "protocol")
	cols := []string{param, "protocol", "ok runs", "throughput ops/s", "strong p50 ms", "strong p99 ms", "weak p50 ms", "weak p99 ms", "fast path", "CPU us/op", "fsyncs/op"}
	if byProtocol {
		cols = slices.Delete(cols, 1, 2)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| %s |\n", strings.Join(cols, " | "))
	fmt.Fprintf(&b, "|%s\n", strings.Repeat("---|", len(cols)))
	for _, g := range gs {
		value := g.Value
		if mixed {
			value = g.Param + " " + g.Value
		}
		cells := []string{value, g.Protocol, fmt.Sprintf("%d/%d", g.OKRuns, g.Runs),
			cell(g.Stat("throughput_ops"), 0, 1, ""),
			cell(g.Stat("strong_p50_ms"), 2, 1, ""), cell(g.Stat("strong_p99_ms"), 2, 1, ""),
			cell(g.Stat("weak_p50_ms"), 2, 1, ""), cell(g.Stat("weak_p99_ms"), 2, 1, ""),
			cell(g.Stat("fast_share"), 0, 100, "%"),
			cell(g.Stat("cpu_us_per_op"), 1, 1, ""), cell(g.Stat("fsyncs_per_op"), 3, 1, ""),
		}
		if byProtocol {
			cells = slices.Delete(cells, 1, 2)
		}
		fmt.Fprintf(&b, "| %s |\n", strings.Join(cells, " | "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cell is "median (min-max)" of s scaled by scale, with unit after each
// number, "-" without data, or the median alone when the range is a
// single value.
func cell(s Stat, prec int, scale float64, unit string) string {
	if s.N == 0 {
		return "-"
	}
	f := func(x float64) string { return fmt.Sprintf("%.*f%s", prec, x*scale, unit) }
	if s.N == 1 || f(s.Min) == f(s.Max) {
		return f(s.Median)
	}
	return fmt.Sprintf("%s (%s–%s)", f(s.Median), f(s.Min), f(s.Max))
}
