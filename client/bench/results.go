package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"swiftpaxos/cost"
)

// ProcessResults is what one benchmark client process measured. It is
// written as JSON (WriteResults) so that a launcher can merge the
// processes of a run exactly (MergeResults).
type ProcessResults struct {
	Alias    string `json:"alias"`
	Protocol string `json:"protocol"`
	Threads  int    `json:"threads"`
	// Pendings is the window of operations in flight per thread (1
	// without pipelining).
	Pendings int `json:"pendings"`
	// Reqs is the number of measured operations each thread was to run;
	// 0 when RunTimeS decided instead.
	Reqs int `json:"reqs"`
	// RunTimeS is how long each thread issued operations (config runTime),
	// 0 when Reqs decided.
	RunTimeS float64 `json:"run_time_s,omitempty"`
	// Seeds are the threads' random seeds, by thread.
	Seeds []uint64 `json:"seeds"`
	// StartUnixMs is the wall-clock start of the measured run; it aligns
	// the timelines of several processes.
	StartUnixMs int64 `json:"start_unix_ms"`
	// Ops counts the operations that completed without error, warm-ups
	// excluded.
	Ops      int64 `json:"ops"`
	Errors   int64 `json:"errors"`
	Timeouts int64 `json:"timeouts"`
	// DurationS is the longest thread duration: completion of its last
	// operation minus the send of its operation 1 (PROTOCOL.md 8.3).
	DurationS     float64 `json:"duration_s"`
	ThroughputOps float64 `json:"throughput_ops"`
	FastPath      int64   `json:"fast_path"`
	SlowPath      int64   `json:"slow_path"`
	// Timeline[i] is the number of operations completed in second i since
	// StartUnixMs; TimelineFast[i] and TimelineSlow[i] count the strong
	// ones among them that completed on the fast and on the slow path.
	Timeline     []int64 `json:"timeline"`
	TimelineFast []int64 `json:"timeline_fast"`
	TimelineSlow []int64 `json:"timeline_slow"`
	// Complete is false when a thread stopped early (reply timeout,
	// interruption, session failure); Error then says why.
	Complete bool            `json:"complete"`
	Error    string          `json:"error,omitempty"`
	Latency  ClassHistograms `json:"latency_us"`
	// Cost is what the process spent, measured after its sessions
	// closed (absent from results written before it existed).
	Cost *cost.Usage `json:"cost,omitempty"`
}

// WriteResults writes r as one line of JSON to path (compact: the
// histograms hold thousands of counts), atomically (a temporary file
// renamed over path).
func WriteResults(path string, r *ProcessResults) error {
	b, err := json.Marshal(r)
	if err == nil {
		err = cost.WriteAtomic(path, append(b, '\n'))
	}
	if err != nil {
		return fmt.Errorf("results %s: %w", path, err)
	}
	return nil
}

// ReadResults reads a file written by WriteResults.
func ReadResults(path string) (ProcessResults, error) {
	var r ProcessResults
	b, err := os.ReadFile(path)
	if err != nil {
		return r, fmt.Errorf("results: %w", err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("results %s: %w", path, err)
	}
	return r, nil
}

// ClassSummary is one consistency level: all its operations, and its
// writes and reads separately.
type ClassSummary struct {
	Count  int64        `json:"count"`
	Share  float64      `json:"share"` // of all operations, in [0, 1]
	All    LatencyStats `json:"all"`
	Writes LatencyStats `json:"writes"`
	Reads  LatencyStats `json:"reads"`
}

// ProcessLine is one process's line of a merged summary.
type ProcessLine struct {
	Alias         string  `json:"alias"`
	Ops           int64   `json:"ops"`
	DurationS     float64 `json:"duration_s"`
	ThroughputOps float64 `json:"throughput_ops"`
	Complete      bool    `json:"complete"`
	Error         string  `json:"error,omitempty"`
}

// Summary is the merged view of one or more processes. Latency
// percentiles are true global percentiles over every sample of every
// process, not averages of per-process percentiles.
type Summary struct {
	Protocol  string        `json:"protocol"`
	Processes []ProcessLine `json:"processes"`
	Threads   int           `json:"threads"`
	Ops       int64         `json:"ops"`
	Errors    int64         `json:"errors"`
	Timeouts  int64         `json:"timeouts"`
	// DurationS is the span from the earliest process start to the latest
	// process end, and ThroughputOps the operations over it: the one
	// throughput of a run (the sum of the processes' own rates would
	// count processes that ran at different times as if together).
	DurationS     float64      `json:"duration_s"`
	ThroughputOps float64      `json:"throughput_ops"`
	FastPath      int64        `json:"fast_path"`
	SlowPath      int64        `json:"slow_path"`
	Strong        ClassSummary `json:"strong"`
	Weak          ClassSummary `json:"weak"`
	// Timeline[i] is the number of operations completed by all processes
	// in second i since the earliest start (StartUnixMs); TimelineFast and
	// TimelineSlow count the strong ones on each path.
	Timeline     []int64 `json:"timeline"`
	TimelineFast []int64 `json:"timeline_fast"`
	TimelineSlow []int64 `json:"timeline_slow"`
	StartUnixMs  int64   `json:"start_unix_ms"`
	// Complete is false when any process stopped early.
	Complete bool `json:"complete"`
}

// MergeResults combines the results of the processes of a run: counts
// add, histograms merge bucket by bucket, timelines are aligned on their
// start second, and the throughput is every completed operation over the
// span from the earliest process start to the latest process end (a
// process ends DurationS after StartUnixMs).
func MergeResults(rs []ProcessResults) (Summary, error) {
	s := Summary{Complete: true}
	var lat ClassHistograms
	var start int64
	var end float64 // Unix seconds
	for i, r := range rs {
		if i == 0 || r.StartUnixMs < start {
			start = r.StartUnixMs
		}
		end = max(end, float64(r.StartUnixMs)/1000+r.DurationS)
	}
	var protocols []string
	for _, r := range rs {
		if err := lat.Merge(&r.Latency); err != nil {
			return Summary{}, fmt.Errorf("merge results of %s: %w", r.Alias, err)
		}
		if !slices.Contains(protocols, r.Protocol) {
			protocols = append(protocols, r.Protocol)
		}
		s.Processes = append(s.Processes, ProcessLine{Alias: r.Alias, Ops: r.Ops, DurationS: r.DurationS,
			ThroughputOps: r.ThroughputOps, Complete: r.Complete, Error: r.Error})
		s.Threads += r.Threads
		s.Ops += r.Ops
		s.Errors += r.Errors
		s.Timeouts += r.Timeouts
		s.FastPath += r.FastPath
		s.SlowPath += r.SlowPath
		s.Complete = s.Complete && r.Complete
		off := int((r.StartUnixMs - start + 500) / 1000)
		for _, tl := range []struct{ from, to *[]int64 }{
			{&r.Timeline, &s.Timeline}, {&r.TimelineFast, &s.TimelineFast}, {&r.TimelineSlow, &s.TimelineSlow},
		} {
			for j, n := range *tl.from {
				addAt(tl.to, off+j, n)
			}
		}
	}
	s.StartUnixMs = start
	if span := end - float64(start)/1000; len(rs) > 0 && span > 0 {
		s.DurationS = span
		s.ThroughputOps = float64(s.Ops) / span
	}
	// The same length for all three, so that second i is index i of each.
	n := max(len(s.Timeline), len(s.TimelineFast), len(s.TimelineSlow))
	for _, tl := range []*[]int64{&s.Timeline, &s.TimelineFast, &s.TimelineSlow} {
		if n > 0 {
			addAt(tl, n-1, 0)
		}
	}
	s.Protocol = strings.Join(protocols, ",")
	s.Strong = classSummary(&lat.StrongWrite, &lat.StrongRead, s.Ops)
	s.Weak = classSummary(&lat.WeakWrite, &lat.WeakRead, s.Ops)
	return s, nil
}

func classSummary(writes, reads *LatencyHistogram, total int64) ClassSummary {
	var all LatencyHistogram
	// Same geometry: these merges cannot drop samples.
	_ = all.Merge(writes)
	_ = all.Merge(reads)
	c := ClassSummary{Count: all.Count(), All: all.Stats(), Writes: writes.Stats(), Reads: reads.Stats()}
	if total > 0 {
		c.Share = float64(c.Count) / float64(total)
	}
	return c
}

// WriteText prints the summary in the shape of PROTOCOL.md 8.3: totals,
// then for strong and weak operations their count and share, the split
// into writes and reads, and mean, median, P99 and P99.9 latency in ms.
// A merged summary ends with the per-process throughputs.
func (s Summary) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	names := make([]string, len(s.Processes))
	for i, p := range s.Processes {
		names[i] = p.Alias
	}
	for _, p := range s.Processes {
		if !p.Complete {
			ew.printf("INCOMPLETE RUN: %s stopped early: %s\n", p.Alias, p.Error)
		}
	}
	ew.printf("=== swiftpaxos benchmark: %s, protocol %s, %d threads ===\n", strings.Join(names, " + "), s.Protocol, s.Threads)
	ew.printf("Total operations: %d\n", s.Ops)
	ew.printf("Duration:         %.3f s\n", s.DurationS)
	ew.printf("Throughput:       %.1f ops/s\n", s.ThroughputOps)
	if len(s.Processes) > 1 {
		ew.printf("                  (every operation over the span from the first process start to the last process end)\n")
	}
	if s.Errors > 0 || s.Timeouts > 0 {
		ew.printf("Errors:           %d (timeouts %d)\n", s.Errors, s.Timeouts)
	}
	for _, c := range []struct {
		name string
		c    ClassSummary
	}{{"Strong", s.Strong}, {"Weak", s.Weak}} {
		ew.printf("\n%s operations: %d (%.1f%%)\n", c.name, c.c.Count, 100*c.c.Share)
		ew.printf("  writes: %d, reads: %d\n", c.c.Writes.Count, c.c.Reads.Count)
		ew.printf("  latency ms   %10s %10s %10s %10s\n", "mean", "median", "P99", "P99.9")
		for _, l := range []struct {
			name string
			l    LatencyStats
		}{{"all", c.c.All}, {"writes", c.c.Writes}, {"reads", c.c.Reads}} {
			ew.printf("  %-10s   %10.3f %10.3f %10.3f %10.3f\n", l.name, l.l.MeanMs, l.l.P50Ms, l.l.P99Ms, l.l.P999Ms)
		}
		if c.name == "Strong" {
			share := 0.0
			if n := s.FastPath + s.SlowPath; n > 0 {
				share = 100 * float64(s.FastPath) / float64(n)
			}
			ew.printf("  fast path: %d, slow path: %d (fast-path share %.1f%%)\n", s.FastPath, s.SlowPath, share)
		}
	}
	if len(s.Processes) > 1 {
		ew.printf("\nPer process (each over its own duration):\n")
		for _, p := range s.Processes {
			ew.printf("  %-12s %10d ops %9.3f s %12.1f ops/s\n", p.Alias, p.Ops, p.DurationS, p.ThroughputOps)
		}
	}
	return ew.err
}

// errWriter keeps the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
