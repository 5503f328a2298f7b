package check

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
)

// naiveSessionViolations applies the definitions in session.go pair by
// pair and returns the gets that break read-your-writes and monotonic
// reads. pos is the log position of each put (nil: no logs).
func naiveSessionViolations(h []Op, pos map[OpID]int64) (ryw, mr map[OpID]bool) {
	ryw, mr = map[OpID]bool{}, map[OpID]bool{}
	writer := map[string]Op{}
	for _, o := range h {
		if o.Kind == Put {
			writer[o.Value] = o
		}
	}
	// src returns the source put (ok=false for NIL).
	src := func(r Op) (Op, bool) { w, ok := writer[r.Value]; return w, ok }
	// older reports whether a (ok=false: NIL) is known to precede b in <A.
	older := func(a Op, aPut bool, b Op) bool {
		if pos != nil {
			pb, okB := pos[b.ID()]
			if !okB {
				return false
			}
			if !aPut {
				return true
			}
			pa, okA := pos[a.ID()]
			return okA && pa < pb
		}
		return !aPut || (a.Session == b.Session && a.OK && a.ReturnNS < b.InvokeNS)
	}
	strong := func(o Op, isPut bool) bool { return !isPut || o.Level == Strong }
	for _, r := range h {
		if r.Kind != Get || !r.OK {
			continue
		}
		w, wPut := src(r)
		for _, o := range h {
			if !o.OK || o.Key != r.Key || o.ReturnNS >= r.InvokeNS || o.Session != r.Session {
				continue
			}
			// Without logs, anomalies among strong operations only are left
			// to linearizability.
			allStrong := pos == nil && r.Level == Strong && strong(w, wPut) && o.Level == Strong
			if o.Kind == Put && !allStrong && (pos != nil || !wPut || w.Session == r.Session) && older(w, wPut, o) {
				ryw[r.ID()] = true
			}
			if o.Kind == Get {
				w1, w1Put := src(o)
				if !w1Put || (allStrong && w1.Level == Strong) {
					continue
				}
				if older(w, wPut, w1) {
					mr[r.ID()] = true
				}
			}
		}
	}
	return ryw, mr
}

func randomSessionHistory(rng *rand.Rand) ([]Op, []LogEntry) {
	var h []Op
	values := map[kvs.Key][]string{}
	for i := range 4 + rng.IntN(6) {
		s := fmt.Sprintf("s%d", rng.IntN(2))
		inv := rng.Int64N(30)
		o := op(s, uint64(i+1), Weak, Put, rng.IntN(2), fmt.Sprintf("v%d", i), inv, inv+1+rng.Int64N(8))
		if rng.IntN(3) == 0 {
			o.Level = Strong
		}
		if rng.IntN(2) == 0 {
			o.Kind, o.Value = Get, ""
		} else {
			values[o.Key] = append(values[o.Key], o.Value)
		}
		if rng.IntN(8) == 0 {
			o = pending(o)
		}
		h = append(h, o)
	}
	var puts []Op
	for i := range h {
		if h[i].Kind == Put {
			if rng.IntN(6) != 0 {
				puts = append(puts, h[i])
			}
			continue
		}
		if vs := values[h[i].Key]; h[i].OK && len(vs) > 0 && rng.IntN(4) != 0 {
			h[i].Value = vs[rng.IntN(len(vs))]
		}
	}
	rng.Shuffle(len(puts), func(i, j int) { puts[i], puts[j] = puts[j], puts[i] })
	return h, logOf(puts...)
}

// The swept implementation flags exactly the gets the pairwise definitions
// flag, with and without logs.
func TestSessionGuaranteesMatchNaiveModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	flagged := 0
	for range 5000 {
		h, log := randomSessionHistory(rng)
		for _, withLog := range []bool{false, true} {
			var logs map[string][]LogEntry
			var pos map[OpID]int64
			if withLog {
				logs = map[string][]LogEntry{"r0": log}
				pos = map[OpID]int64{}
				for _, e := range log {
					pos[e.ID()] = int64(e.Slot)
				}
			}
			wantRYW, wantMR := naiveSessionViolations(h, pos)
			gotRYW, gotMR := map[OpID]bool{}, map[OpID]bool{}
			r := Check(asReads(h), logs, Options{})
			for _, v := range r.Violations {
				switch v.Rule {
				case RuleReadYourWrites:
					gotRYW[v.Ops[0]] = true
				case RuleMonotonicReads:
					gotMR[v.Ops[0]] = true
				}
			}
			flagged += len(wantRYW) + len(wantMR)
			require.Equal(t, wantRYW, gotRYW, "read-your-writes, logs=%v\nhistory %+v\nlog %+v\n%s", withLog, h, log, r)
			require.Equal(t, wantMR, gotMR, "monotonic reads, logs=%v\nhistory %+v\nlog %+v\n%s", withLog, h, log, r)
		}
	}
	t.Logf("%d violations flagged", flagged)
}
