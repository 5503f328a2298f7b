package main

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// The acceptance rule of the memory experiment (issue: bounded state):
// every replica's RSS over the last tenth of the run is within 10% of its
// RSS at the end of the first tenth, and throughput over the last tenth
// within 10% of the first. The run length T is the length of the
// throughput timeline, in seconds.
const flatTolerance = 0.10

// flatEpsilon keeps a deviation of exactly 10% (110 MiB against 100)
// within the rule despite float rounding.
const flatEpsilon = 1e-9

// within reports whether a relative deviation satisfies the rule.
func within(dev float64) bool { return math.Abs(dev) <= flatTolerance+flatEpsilon }

// relDev is x's relative deviation from ref; infinite from a zero ref,
// which the rule cannot accept.
func relDev(x, ref float64) float64 {
	if ref == 0 {
		if x == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return x/ref - 1
}

// replicaFlatness is the verdict on one replica's memory.
type replicaFlatness struct {
	Alias string
	Ref   rssSample   // the reading nearest T/10
	Last  []rssSample // the readings in [0.9T, T]
	Min   float64     // MiB, over Last
	Max   float64
	Worst float64 // the deviation from Ref of largest size, signed
}

// Pass is false for a replica with no reading in the last tenth: its
// process was gone, which is no evidence of flat memory.
func (r replicaFlatness) Pass() bool { return len(r.Last) > 0 && within(r.Worst) }

// throughputFlatness compares the mean ops/s of the first and last tenths.
type throughputFlatness struct{ First, Last float64 }

func (t throughputFlatness) Change() float64 { return relDev(t.Last, t.First) }
func (t throughputFlatness) Pass() bool      { return within(t.Change()) }

// flatness is the verdict on one run.
type flatness struct {
	Label      string
	Protocol   string
	T          float64 // seconds
	Replicas   []replicaFlatness
	Throughput throughputFlatness
}

func (f flatness) Pass() bool {
	for _, r := range f.Replicas {
		if !r.Pass() {
			return false
		}
	}
	return f.Throughput.Pass()
}

// judge applies the rule to m.
func judge(m memoryRun) flatness {
	T := m.seconds()
	f := flatness{Label: m.Label, Protocol: m.Protocol, T: T, Throughput: throughputFlatness{
		First: meanOps(m.Timeline, 0, T/10),
		Last:  meanOps(m.Timeline, 0.9*T, T),
	}}
	for _, a := range m.replicas() {
		f.Replicas = append(f.Replicas, judgeReplica(a, m.samples(a), T))
	}
	return f
}

// judgeReplica compares the readings of the last tenth, [0.9T, T], with
// the reading nearest T/10. Readings after T are left out: the clients
// have stopped, and an idle replica's memory says nothing about the run.
func judgeReplica(alias string, ss []rssSample, T float64) replicaFlatness {
	r := replicaFlatness{Alias: alias, Ref: nearest(ss, T/10), Min: math.Inf(1), Max: math.Inf(-1)}
	for _, s := range ss {
		if s.T < 0.9*T || s.T > T {
			continue
		}
		r.Last = append(r.Last, s)
		r.Min, r.Max = min(r.Min, s.MiB), max(r.Max, s.MiB)
		if d := relDev(s.MiB, r.Ref.MiB); math.Abs(d) > math.Abs(r.Worst) {
			r.Worst = d
		}
	}
	return r
}

// nearest is the reading closest in time to t, the earlier on a tie.
func nearest(ss []rssSample, t float64) rssSample {
	best := ss[0]
	for _, s := range ss[1:] {
		if math.Abs(s.T-t) < math.Abs(best.T-t) {
			best = s
		}
	}
	return best
}

// meanOps is the mean of the timeline's seconds i with lo <= i < hi.
func meanOps(timeline []int64, lo, hi float64) float64 {
	sum, n := 0.0, 0
	for i, ops := range timeline {
		if x := float64(i); x >= lo && x < hi {
			sum += float64(ops)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// verdict is the word of a table's last column.
func verdict(pass bool) string {
	if pass {
		return "PASS"
	}
	return "FAIL"
}

// percent formats a relative deviation: +3.2%.
func percent(d float64) string { return fmt.Sprintf("%+.1f%%", 100*d) }

// readings counts readings in words.
func readings(n int) string {
	if n == 1 {
		return "1 reading"
	}
	return fmt.Sprintf("%d readings", n)
}

// secs rounds a time to whole seconds (never "-0").
func secs(t float64) int { return int(math.Round(t)) }

// mib formats a memory size in MiB.
func mib(x float64) string { return fmt.Sprintf("%.1f", x) }

// writeFlatnessReport prints, as markdown tables to paste into the docs,
// the memory and throughput verdicts of every run, then each run's RSS
// curve, one row per pass of the sampler.
func writeFlatnessReport(w io.Writer, runs []memoryRun) error {
	var b strings.Builder
	fs := make([]flatness, len(runs))
	for i, m := range runs {
		fs[i] = judge(m)
	}
	b.WriteString("Memory: each replica's RSS in the last tenth of the run, [0.9T, T], against its reading nearest T/10 (rule: within ±10%).\n\n")
	b.WriteString("| run | replica | RSS at T/10 (MiB) | last tenth min–max (MiB) | worst deviation | verdict |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, f := range fs {
		for _, r := range f.Replicas {
			ref := fmt.Sprintf("%s (t=%d s)", mib(r.Ref.MiB), secs(r.Ref.T))
			if len(r.Last) == 0 {
				fmt.Fprintf(&b, "| %s | %s | %s | no reading | — | %s |\n", f.Label, r.Alias, ref, verdict(false))
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s–%s (%s) | %s | %s |\n",
				f.Label, r.Alias, ref, mib(r.Min), mib(r.Max), readings(len(r.Last)), percent(r.Worst), verdict(r.Pass()))
		}
	}
	b.WriteString("\nThroughput: mean ops/s over seconds [0, T/10) and [0.9T, T) of the timeline (rule: within ±10%).\n\n")
	b.WriteString("| run | T (s) | first tenth ops/s | last tenth ops/s | change | verdict |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, f := range fs {
		t := f.Throughput
		fmt.Fprintf(&b, "| %s | %.0f | %.0f | %.0f | %s | %s |\n", f.Label, f.T, t.First, t.Last, percent(t.Change()), verdict(t.Pass()))
	}
	b.WriteString("\n")
	for _, f := range fs {
		fmt.Fprintf(&b, "Run %s: %s.\n", f.Label, verdict(f.Pass()))
	}
	for _, m := range runs {
		b.WriteString("\n")
		writeRSSCurve(&b, m)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeRSSCurve prints m's RSS curve: one row per pass of the sampler, t
// in seconds since the clients started (negative before), "—" where a
// replica was not running.
func writeRSSCurve(b *strings.Builder, m memoryRun) {
	as := m.replicas()
	fmt.Fprintf(b, "RSS of %s (MiB), T = %.0f s:\n\n| t (s) |", m.Label, m.seconds())
	for _, a := range as {
		fmt.Fprintf(b, " %s |", a)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(as)) + "\n")
	for _, r := range m.rounds() {
		fmt.Fprintf(b, "| %d |", secs(r.T))
		for _, a := range as {
			if x, ok := r.MiB[a]; ok {
				fmt.Fprintf(b, " %s |", mib(x))
			} else {
				b.WriteString(" — |")
			}
		}
		b.WriteString("\n")
	}
}
