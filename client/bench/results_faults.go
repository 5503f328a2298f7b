package bench

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"swiftpaxos/check"
)

// Where a check violation falls among a nemesis run's faults, and the
// faults in summary.txt.

// faultNote says where the instants [lo, hi] (Unix ms) fall among the
// faults: the faults under way then, or the last one that healed before.
func faultNote(faults []FaultJSON, lo, hi int64) string {
	var during []string
	var before *FaultJSON
	var beforeEnd int64
	for i := range faults {
		f := &faults[i]
		if f.Skipped {
			continue
		}
		end := int64(math.MaxInt64)
		switch {
		case f.EndUnixMs != nil:
			end = *f.EndUnixMs
		case f.Kind == "client":
			end = f.StartUnixMs // a client kill is over at once
		}
		switch {
		case f.StartUnixMs <= hi && lo <= end:
			during = append(during, fmt.Sprintf("fault %d (%s %s)", f.ID, f.Kind, f.Target))
		case end < lo && (before == nil || end > beforeEnd):
			before, beforeEnd = f, end
		}
	}
	switch {
	case len(during) > 0:
		return "during " + strings.Join(during, ", ")
	case before != nil:
		return fmt.Sprintf("outside the faults, %.3f s after fault %d (%s %s) ended", float64(lo-beforeEnd)/1000, before.ID, before.Kind, before.Target)
	}
	return "outside the faults"
}

// placeViolations appends to each violation the summary quotes where its
// operations fall among the faults (faultNote): from the first
// invocation to the last return of the operations it names, a pending
// one running to the end.
func placeViolations(c *checked, faults []FaultJSON) {
	want := map[check.OpID]bool{}
	shown := c.report.Violations[:min(len(c.report.Violations), len(c.json.First))]
	for _, v := range shown {
		for _, id := range v.Ops {
			want[id] = true
		}
	}
	at := map[check.OpID]check.Op{}
	for _, o := range c.ops {
		if want[o.ID()] {
			at[o.ID()] = o
		}
	}
	for i, v := range shown {
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for _, id := range v.Ops {
			o, ok := at[id]
			if !ok {
				continue
			}
			lo = min(lo, o.InvokeNS/1e6)
			if o.OK {
				hi = max(hi, o.ReturnNS/1e6)
			} else {
				hi = math.MaxInt64
			}
		}
		if lo > hi {
			continue // no operation of the history: a log rule's violation
		}
		c.json.First[i] += " [" + faultNote(faults, lo, hi) + "]"
	}
}

// writeNemesisText is summary.txt's account of a --nemesis run.
func writeNemesisText(w io.Writer, faults []FaultJSON, a *AvailabilityJSON) {
	var kinds []string
	for k := range a.ByKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var began, skipped []string
	nb, ns := 0, 0
	for _, k := range kinds {
		if n := a.ByKind[k].Faults; n > 0 {
			began, nb = append(began, fmt.Sprintf("%s %d", k, n)), nb+n
		}
		if n := a.ByKind[k].Skipped; n > 0 {
			skipped, ns = append(skipped, fmt.Sprintf("%s %d", k, n)), ns+n
		}
	}
	fmt.Fprintf(w, "\nNemesis: %d faults (%s)", nb, strings.Join(began, ", "))
	if ns > 0 {
		fmt.Fprintf(w, ", %d skipped (%s)", ns, strings.Join(skipped, ", "))
	}
	fmt.Fprintln(w, "; the plan in nemesis-plan.txt, its decisions in nemesis.log")
	for _, f := range faults {
		if f.Skipped {
			fmt.Fprintf(w, "  fault %d (%s) skipped at %.2f s\n", f.ID, f.Kind, f.StartS)
			continue
		}
		fmt.Fprintf(w, "  fault %d at %.2f s: %s %s (%s)", f.ID, f.StartS, f.Kind, f.Target, f.Detail)
		if f.EndS != nil {
			fmt.Fprintf(w, ", healed at %.2f s", *f.EndS)
		}
		if f.FirstOpAfterS != nil {
			fmt.Fprintf(w, "; served again after %.3f s", *f.FirstOpAfterS)
		}
		if f.FirstStrongAfterS != nil {
			fmt.Fprintf(w, ", strong after %.3f s", *f.FirstStrongAfterS)
		}
		if f.GapS != nil {
			fmt.Fprintf(w, "; longest gap %.3f s", *f.GapS)
		}
		fmt.Fprintln(w)
	}
	unit := "from the histories"
	if a.From == "timeline" {
		unit = "to the second, from the timeline"
	}
	fmt.Fprintf(w, "Availability: operations completed in %d of %d seconds (%.1f%%); longest gap without one %.3f s, at %.2f s (%s)\n",
		a.SecondsWithOps, a.Seconds, 100*a.Share, a.LongestGapS, a.LongestGapAtS, unit)
	var med []string
	for _, k := range kinds {
		ka := a.ByKind[k]
		if ka.MedianFirstOpS == nil {
			continue
		}
		m := fmt.Sprintf("%s %.3f s", k, *ka.MedianFirstOpS)
		if ka.MedianFirstStrongS != nil {
			m += fmt.Sprintf(" (strong %.3f s)", *ka.MedianFirstStrongS)
		}
		if ka.MedianGapS != nil {
			m += fmt.Sprintf(", gap %.3f s", *ka.MedianGapS)
		}
		med = append(med, m)
	}
	if len(med) > 0 {
		fmt.Fprintf(w, "  per kind, the median time from a fault until an operation invoked after it completed, and the median longest gap without a completion from the fault until 1 s after its heal (or the first completion after it): %s\n", strings.Join(med, "; "))
	}
}
