package bench

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"time"

	"swiftpaxos/check"
)

// AvailabilityJSON is how available a --nemesis run stayed while its
// clients issued operations: the share of the timeline's seconds in
// which some operation completed, the longest
// time without a completion (between the first and the last one; to the
// nanosecond from the histories of a checked run, else to the second
// from the timeline: From says which), and per fault kind how many
// faults began and were skipped, the median time from a fault's start
// until an operation invoked at or after it completed (the operations in
// flight when it struck say little: a killed leader's last replies are
// still arriving), and a strong one, and the median of each fault's
// longest gap without a completion from its start until gapAfter past its
// end, or the first completion after its end if later (what the fault
// cost: an operation may complete at once and the cluster stop serving
// for an election later).
type AvailabilityJSON struct {
	Seconds        int                             `json:"seconds"`
	SecondsWithOps int                             `json:"seconds_with_ops"`
	Share          float64                         `json:"share"`
	LongestGapS    float64                         `json:"longest_gap_s"`
	LongestGapAtS  float64                         `json:"longest_gap_at_s"`
	From           string                          `json:"from"`
	ByKind         map[string]KindAvailabilityJSON `json:"by_kind"`
}

// KindAvailabilityJSON is one fault kind's part of AvailabilityJSON.
type KindAvailabilityJSON struct {
	Faults             int      `json:"faults"`
	Skipped            int      `json:"skipped"`
	MedianFirstOpS     *float64 `json:"median_first_op_s"`
	MedianFirstStrongS *float64 `json:"median_first_strong_s,omitempty"`
	MedianGapS         *float64 `json:"median_gap_s"`
}

// gapAfter is how long after a fault's end its gap is measured: the
// election or catching up it set off.
const gapAfter = time.Second

// completions are when operations completed: from the histories, each
// completed operation's invocation and return (Unix ns), or else the
// run's timeline.
type completions struct {
	returns []int64 // every completion while the clients issued, in order
	all     served  // every completed operation
	strong  served  // the strong ones
	sum     *Summary
}

// served are completed operations in invocation order, with the
// earliest return among those invoked at or after each: how soon an
// operation invoked after an instant was served.
type served struct{ inv, firstRet []int64 }

func servedOf(ops [][2]int64) served {
	slices.SortFunc(ops, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	s := served{inv: make([]int64, len(ops)), firstRet: make([]int64, len(ops))}
	for i := len(ops) - 1; i >= 0; i-- {
		s.inv[i], s.firstRet[i] = ops[i][0], ops[i][1]
		if i+1 < len(ops) {
			s.firstRet[i] = min(s.firstRet[i], s.firstRet[i+1])
		}
	}
	return s
}

// after is the earliest return of an operation invoked at or after ns.
func (s served) after(ns int64) (int64, bool) {
	i := sort.Search(len(s.inv), func(i int) bool { return s.inv[i] >= ns })
	if i == len(s.inv) {
		return 0, false
	}
	return s.firstRet[i], true
}

func completionsOf(ops []check.Op, sum *Summary, issuedUntilMs int64) completions {
	c := completions{sum: sum}
	var all, strong [][2]int64
	for _, o := range ops {
		if !o.OK {
			continue
		}
		if o.ReturnNS <= issuedUntilMs*1e6 {
			c.returns = append(c.returns, o.ReturnNS)
		}
		all = append(all, [2]int64{o.InvokeNS, o.ReturnNS})
		if o.Level == check.Strong {
			strong = append(strong, [2]int64{o.InvokeNS, o.ReturnNS})
		}
	}
	slices.Sort(c.returns)
	c.all, c.strong = servedOf(all), servedOf(strong)
	return c
}

func (c completions) fromHistory() bool { return len(c.returns) > 0 }

func (c completions) source() string {
	if c.fromHistory() {
		return "history"
	}
	return "timeline"
}

// servedAfter is how long after ms (Unix ms) an operation invoked then or
// later completed, from s; from the timeline, the start of the first
// second with a completion, not before ms. False if none did.
func (c completions) servedAfter(s served, ms int64) (float64, bool) {
	if c.fromHistory() {
		ret, ok := s.after(ms * 1e6)
		return float64(ret-ms*1e6) / 1e9, ok
	}
	tl := c.sum.Timeline
	for i := max(int((ms-c.sum.StartUnixMs)/1000), 0); i < len(tl); i++ {
		if tl[i] > 0 {
			return float64(max(ms, c.sum.StartUnixMs+int64(i)*1000)-ms) / 1000, true
		}
	}
	return 0, false
}

// longestGap is the longest time between two completions while the
// clients issued operations (seconds of the timeline: the first secs),
// in seconds, and when it began, in seconds since the start.
func (c completions) longestGap(secs int) (gap, at float64) {
	if c.fromHistory() {
		for i := 1; i < len(c.returns); i++ {
			if g := float64(c.returns[i]-c.returns[i-1]) / 1e9; g > gap {
				gap, at = g, float64(c.returns[i-1]-c.sum.StartUnixMs*1e6)/1e9
			}
		}
		return gap, at
	}
	run := 0
	for i, n := range c.sum.Timeline[:secs] {
		if n > 0 {
			run = 0
			continue
		}
		if run++; float64(run) > gap {
			gap, at = float64(run), float64(i+1-run)
		}
	}
	return gap, at
}

// gapEnd is where the gap of a fault that ended at end (Unix ms) is
// measured to: gapAfter past it, or the first completion after it when
// that is later, so that an outage that outlasts the fault counts whole.
func (c completions) gapEnd(end int64) int64 {
	until := end + gapAfter.Milliseconds()
	if c.fromHistory() {
		i := sort.Search(len(c.returns), func(i int) bool { return c.returns[i] >= end*1e6 })
		if i < len(c.returns) {
			until = max(until, (c.returns[i]+1e6-1)/1e6)
		}
		return until
	}
	for i := max(int((end-c.sum.StartUnixMs)/1000), 0); i < len(c.sum.Timeline); i++ {
		if c.sum.Timeline[i] > 0 {
			return max(until, c.sum.StartUnixMs+int64(i)*1000)
		}
	}
	return until
}

// gapIn is the longest time without a completion in [from, to] (Unix
// ms), its ends included: from the histories to the nanosecond, else in
// whole seconds of the timeline without an operation.
func (c completions) gapIn(from, to int64) float64 {
	if c.fromHistory() {
		lo, hi := from*1e6, to*1e6
		i := sort.Search(len(c.returns), func(i int) bool { return c.returns[i] >= lo })
		gap, last := 0.0, lo
		for ; i < len(c.returns) && c.returns[i] <= hi; i++ {
			gap, last = max(gap, float64(c.returns[i]-last)/1e9), c.returns[i]
		}
		return max(gap, float64(hi-last)/1e9)
	}
	tl, run, gap := c.sum.Timeline, 0, 0
	for i := max(int((from-c.sum.StartUnixMs)/1000), 0); i < len(tl) && c.sum.StartUnixMs+int64(i)*1000 <= to; i++ {
		if tl[i] > 0 {
			run = 0
			continue
		}
		run++
		gap = max(gap, run)
	}
	return float64(gap)
}

// availabilityOf fills each fault's first operations after it and sums
// the run's availability up, over the time the clients issued operations
// (until issuedUntilMs, the first client's runTime ending; 0 for a run
// of reqs, whose clients issue until they end): the stragglers a client
// waits for after that are no measure of the cluster.
func availabilityOf(faults []FaultJSON, ops []check.Op, sum *Summary, issuedUntilMs int64) *AvailabilityJSON {
	secs := len(sum.Timeline)
	if issuedUntilMs == 0 {
		issuedUntilMs = math.MaxInt64 / int64(time.Millisecond)
	} else {
		secs = min(secs, int((issuedUntilMs-sum.StartUnixMs+999)/1000))
	}
	c := completionsOf(ops, sum, issuedUntilMs)
	a := &AvailabilityJSON{Seconds: secs, From: c.source(), ByKind: map[string]KindAvailabilityJSON{}}
	for _, n := range sum.Timeline[:secs] {
		if n > 0 {
			a.SecondsWithOps++
		}
	}
	if a.Seconds > 0 {
		a.Share = float64(a.SecondsWithOps) / float64(a.Seconds)
	}
	a.LongestGapS, a.LongestGapAtS = c.longestGap(secs)
	firsts, strongs, gaps := map[string][]float64{}, map[string][]float64{}, map[string][]float64{}
	for i := range faults {
		f := &faults[i]
		k := a.ByKind[f.Kind]
		if f.Skipped {
			k.Skipped++
			a.ByKind[f.Kind] = k
			continue
		}
		k.Faults++
		a.ByKind[f.Kind] = k
		end := f.StartUnixMs
		if f.EndUnixMs != nil {
			end = *f.EndUnixMs
		}
		if until := min(c.gapEnd(end), issuedUntilMs); until > f.StartUnixMs {
			g := c.gapIn(f.StartUnixMs, until)
			f.GapS = &g
			gaps[f.Kind] = append(gaps[f.Kind], g)
		}
		if d, ok := c.servedAfter(c.all, f.StartUnixMs); ok {
			f.FirstOpAfterS = &d
			firsts[f.Kind] = append(firsts[f.Kind], d)
		}
		if !c.fromHistory() {
			continue
		}
		if d, ok := c.servedAfter(c.strong, f.StartUnixMs); ok {
			f.FirstStrongAfterS = &d
			strongs[f.Kind] = append(strongs[f.Kind], d)
		}
	}
	for kind, k := range a.ByKind {
		k.MedianFirstOpS, k.MedianFirstStrongS, k.MedianGapS = median(firsts[kind]), median(strongs[kind]), median(gaps[kind])
		a.ByKind[kind] = k
	}
	return a
}

// median is the median of xs, nil for none.
func median(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + m) / 2
	}
	return &m
}
