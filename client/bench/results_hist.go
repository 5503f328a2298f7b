package bench

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"swiftpaxos/client"
	"swiftpaxos/wire"
)

// Class is one of the four latency classes of PROTOCOL.md 8.3.
type Class uint8

// The latency classes. A SCAN is a read; DELETE, CAS and INCR are writes
// (they may change the store, whatever their outcome).
const (
	StrongWrite Class = iota
	StrongRead
	WeakWrite
	WeakRead
	numClasses
)

var classNames = [numClasses]string{"strong_write", "strong_read", "weak_write", "weak_read"}

func (c Class) String() string {
	if c < numClasses {
		return classNames[c]
	}
	return fmt.Sprintf("Class(%d)", uint8(c))
}

// ClassOf is the latency class of op.
func ClassOf(op client.Op) Class {
	w := op.Command.IsWrite()
	switch {
	case op.Level == wire.Strong && w:
		return StrongWrite
	case op.Level == wire.Strong:
		return StrongRead
	case w:
		return WeakWrite
	}
	return WeakRead
}

// The geometry of every latency histogram: 1 µs to 60 s with three
// significant digits. One geometry everywhere makes merging exact.
const (
	histLowestUs  = 1
	histHighestUs = 60_000_000
	histSigFigs   = 3
)

// LatencyHistogram records latencies in microseconds. Histograms with the
// same geometry merge exactly (bucket counts add), so per-thread and
// per-process histograms combine into true global percentiles. The zero
// value is an empty histogram. It is not safe for concurrent use.
type LatencyHistogram struct {
	h *hdrhistogram.Histogram
}

func (l *LatencyHistogram) hist() *hdrhistogram.Histogram {
	if l.h == nil {
		l.h = hdrhistogram.New(histLowestUs, histHighestUs, histSigFigs)
	}
	return l.h
}

// Record adds one latency, clamped to the histogram's range.
func (l *LatencyHistogram) Record(d time.Duration) {
	us := min(max(d.Microseconds(), histLowestUs), histHighestUs)
	// In range by construction, so RecordValue cannot fail.
	_ = l.hist().RecordValue(us)
}

// Merge adds every sample of o to l.
func (l *LatencyHistogram) Merge(o *LatencyHistogram) error {
	if o.h == nil {
		return nil
	}
	if dropped := l.hist().Merge(o.h); dropped != 0 {
		return fmt.Errorf("latency histogram: %d samples outside [%d, %d] µs dropped in merge", dropped, histLowestUs, histHighestUs)
	}
	return nil
}

// Count is the number of samples.
func (l *LatencyHistogram) Count() int64 {
	if l.h == nil {
		return 0
	}
	return l.h.TotalCount()
}

// LatencyStats summarises one class, in milliseconds.
type LatencyStats struct {
	Count  int64   `json:"count"`
	MeanMs float64 `json:"mean_ms"`
	P50Ms  float64 `json:"p50_ms"`
	P99Ms  float64 `json:"p99_ms"`
	P999Ms float64 `json:"p999_ms"`
}

// Stats returns count, mean and the percentiles of PROTOCOL.md 8.3, taken
// as elements of the sorted sample: median = element ⌊n/2⌋, P99 = element
// ⌊0.99n⌋, P99.9 = element min(⌊0.999n⌋, n−1). A percentile is reported as
// the upper end of its histogram bucket (within 0.1% of the sample).
func (l *LatencyHistogram) Stats() LatencyStats {
	n := l.Count()
	if n == 0 {
		return LatencyStats{}
	}
	return LatencyStats{
		Count:  n,
		MeanMs: l.h.Mean() / 1000,
		P50Ms:  l.element(n / 2),
		P99Ms:  l.element(n * 99 / 100),
		P999Ms: l.element(min(n*999/1000, n-1)),
	}
}

// element returns, in ms, the sample at 0-based index i of the sorted
// samples. hdrhistogram's rank for percentile p is ⌊p/100·n + 0.5⌋
// (1-based); p = 100(i+1)/n makes it exactly i+1.
func (l *LatencyHistogram) element(i int64) float64 {
	n := l.h.TotalCount()
	return float64(l.h.ValueAtPercentile(100*float64(i+1)/float64(n))) / 1000
}

// histogramJSON is the serialized form of a LatencyHistogram: the
// geometry and hdrhistogram's bucket counts (its Snapshot), with trailing
// zero buckets left out. Total is the sum of the counts, a check.
type histogramJSON struct {
	LowestUs           int64   `json:"lowest_us"`
	HighestUs          int64   `json:"highest_us"`
	SignificantFigures int64   `json:"significant_figures"`
	Total              int64   `json:"total"`
	Counts             []int64 `json:"counts"`
}

// MarshalJSON encodes the histogram losslessly.
func (l LatencyHistogram) MarshalJSON() ([]byte, error) {
	if l.h == nil {
		l.h = hdrhistogram.New(histLowestUs, histHighestUs, histSigFigs)
	}
	s := l.h.Export()
	counts := s.Counts
	for len(counts) > 0 && counts[len(counts)-1] == 0 {
		counts = counts[:len(counts)-1]
	}
	return json.Marshal(histogramJSON{
		LowestUs: s.LowestTrackableValue, HighestUs: s.HighestTrackableValue,
		SignificantFigures: s.SignificantFigures, Total: l.h.TotalCount(), Counts: counts,
	})
}

// UnmarshalJSON decodes and validates a histogram written by MarshalJSON.
func (l *LatencyHistogram) UnmarshalJSON(b []byte) error {
	var j histogramJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	s := &hdrhistogram.Snapshot{
		LowestTrackableValue: j.LowestUs, HighestTrackableValue: j.HighestUs,
		SignificantFigures: j.SignificantFigures, Counts: j.Counts,
	}
	if err := s.Validate(); err != nil {
		return fmt.Errorf("latency histogram: %w", err)
	}
	h := hdrhistogram.Import(s)
	if h.TotalCount() != j.Total {
		return fmt.Errorf("latency histogram: counts sum to %d, total says %d", h.TotalCount(), j.Total)
	}
	l.h = h
	return nil
}

// ClassHistograms holds one latency histogram per class.
type ClassHistograms struct {
	StrongWrite LatencyHistogram `json:"strong_write"`
	StrongRead  LatencyHistogram `json:"strong_read"`
	WeakWrite   LatencyHistogram `json:"weak_write"`
	WeakRead    LatencyHistogram `json:"weak_read"`
}

// Of returns the histogram of class c.
func (h *ClassHistograms) Of(c Class) *LatencyHistogram {
	switch c {
	case StrongWrite:
		return &h.StrongWrite
	case StrongRead:
		return &h.StrongRead
	case WeakWrite:
		return &h.WeakWrite
	case WeakRead:
		return &h.WeakRead
	}
	panic(fmt.Sprintf("client: no latency class %d", c))
}

// Merge adds every histogram of o to h.
func (h *ClassHistograms) Merge(o *ClassHistograms) error {
	for c := range numClasses {
		if err := h.Of(c).Merge(o.Of(c)); err != nil {
			return fmt.Errorf("%s: %w", c, err)
		}
	}
	return nil
}
