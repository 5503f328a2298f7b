package ycsbraw

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// The geometry of go-ycsb's histogram (pkg/measurement/histogram.go):
// 1 µs to 24 h, three significant digits.
const (
	lowestUs  = 1
	highestUs = 24 * 60 * 60 * 1000 * 1000
	digits    = 3
)

// WriteSummary writes what go-ycsb's histogram measurement prints at the
// end of a run, one line per operation in name order, in its plain
// output style:
//
//	READ   - Takes(s): 1.3, Count: 9903, OPS: 7718.6, Avg(us): 664, Min(us): 30, Max(us): 7603, 50th(us): 514, ...
//
// Takes(s) is the span of all the file's operations (go-ycsb's is the
// time since the operation's histogram was made, much the same), and
// OPS the count over it. The latencies go through an HDR histogram of
// go-ycsb's geometry: ValueAtPercentile picks the sample of rank
// round(p/100 n) and reports the top of its bucket, as the hdrhistogram
// go-ycsb pins (1.1.2) does for these percentiles.
func (s *Samples) WriteSummary(w io.Writer) error {
	secs := float64(s.LastEndUs-s.FirstStartUs) / 1e6
	ops := slices.Clone(s.Ops)
	slices.Sort(ops)
	for _, op := range ops {
		h := hdrhistogram.New(lowestUs, highestUs, digits)
		for _, us := range s.LatencyUs[op] {
			if err := h.RecordValue(us); err != nil {
				return fmt.Errorf("%s latency %d µs: %w", op, us, err)
			}
		}
		n := h.TotalCount()
		rate := 0.0
		if secs > 0 {
			rate = float64(n) / secs
		}
		fields := []string{
			fmt.Sprintf("Takes(s): %.1f", secs),
			fmt.Sprintf("Count: %d", n),
			fmt.Sprintf("OPS: %.1f", rate),
			fmt.Sprintf("Avg(us): %d", int64(h.Mean())),
			fmt.Sprintf("Min(us): %d", h.Min()),
			fmt.Sprintf("Max(us): %d", h.Max()),
		}
		for _, p := range []struct {
			name string
			pct  float64
		}{{"50th", 50}, {"90th", 90}, {"95th", 95}, {"99th", 99}, {"99.9th", 99.9}, {"99.99th", 99.99}} {
			fields = append(fields, fmt.Sprintf("%s(us): %d", p.name, h.ValueAtPercentile(p.pct)))
		}
		if _, err := fmt.Fprintf(w, "%-6s - %s\n", op, strings.Join(fields, ", ")); err != nil {
			return err
		}
	}
	return nil
}
