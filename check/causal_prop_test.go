package check

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// naiveCausal applies the definitions of PROTOCOL.md 2.2-2.4 to a small
// history with an explicit transitive closure of hb, and returns, per
// rule, the operations Check should name first. pos maps the CmdIds of the
// reference log to their slots (nil: no logs).
type naiveCausal struct {
	cyclic bool
	flags  map[Rule]map[OpID]bool
}

func naiveCheck(h []Op, pos map[OpID]int64) naiveCausal {
	n := len(h)
	end := make([]int64, n)
	for i, o := range h {
		end[i] = inf
		if o.OK {
			end[i] = o.ReturnNS
		}
	}
	const nilSrc, noSrc = -1, -2
	src := make([]int, n)
	for i, r := range h {
		src[i] = noSrc
		if r.Kind != Get || !r.OK {
			continue
		}
		if r.Value == "" {
			src[i] = nilSrc
		}
		for j, w := range h {
			if w.Kind == Put && w.Value == r.Value && w.Key == r.Key {
				src[i] = j
			}
		}
	}
	hb := make([][]bool, n)
	for a := range hb {
		hb[a] = make([]bool, n)
		for b := range hb[a] {
			hb[a][b] = (h[a].Session == h[b].Session && end[a] < h[b].InvokeNS) || src[b] == a
		}
	}
	for k := range n {
		for a := range n {
			for b := range n {
				hb[a][b] = hb[a][b] || (hb[a][k] && hb[k][b])
			}
		}
	}
	res := naiveCausal{flags: map[Rule]map[OpID]bool{}}
	flag := func(rule Rule, o Op) {
		if res.flags[rule] == nil {
			res.flags[rule] = map[OpID]bool{}
		}
		res.flags[rule][o.ID()] = true
	}
	for a := range n {
		res.cyclic = res.cyclic || hb[a][a]
	}
	p := func(i int) (int64, bool) {
		if i == nilSrc {
			return -1, true
		}
		v, ok := pos[h[i].ID()]
		return v, ok
	}
	isPut := func(i int) bool { return h[i].Kind == Put }
	strongDone := func(i int) bool { return h[i].Level == Strong && h[i].OK }
	// CC-VIS, every read.
	for r := range n {
		w := src[r]
		if w == noSrc || res.cyclic {
			continue
		}
		for q := range n {
			if !isPut(q) || h[q].Key != h[r].Key || !hb[q][r] {
				continue
			}
			var newer bool
			if pos != nil {
				pw, okW := p(w)
				pq, okQ := p(q)
				newer = okW && okQ && pq > pw
			} else {
				newer = w == nilSrc || (h[w].OK && h[q].InvokeNS > end[w] &&
					(h[q].Session == h[w].Session || (strongDone(w) && strongDone(q))))
			}
			if newer {
				flag(RuleCausalVisibility, h[r])
			}
		}
	}
	if pos == nil || res.cyclic {
		return res
	}
	for b := range n {
		pb, inB := p(b)
		// CC-ARB.
		for a := range n {
			if pa, inA := p(a); isPut(a) && isPut(b) && inA && inB && hb[a][b] && pa > pb {
				flag(RuleCausalArbitration, h[b])
			}
		}
		// C3.
		if w := src[b]; w >= 0 && h[w].Session != h[b].Session {
			pw, inW := p(w)
			if !inW {
				flag(RuleC3VisibilityBarrier, h[w])
			}
			for q := range n {
				if _, inQ := p(q); isPut(q) && hb[q][w] && !inQ {
					flag(RuleC3VisibilityBarrier, h[w])
				}
			}
			if strongDone(b) && inB && inW && pw > pb {
				flag(RuleC3VisibilityBarrier, h[b])
			}
		}
		// C1 and C2: b is a weak put, s a later strong op of its session.
		if !isPut(b) || h[b].Level != Weak || !h[b].OK {
			continue
		}
		for s := range n {
			if !strongDone(s) || h[s].Session != h[b].Session || end[b] >= h[s].InvokeNS {
				continue
			}
			rule := RuleC2DurabilityOrder
			if h[s].Kind == Get && h[s].Key == h[b].Key {
				rule = RuleC1ReadFrom
			}
			if ps, inS := p(s); !inB || (inS && ps < pb) {
				flag(rule, h[b])
			}
		}
	}
	return res
}

// randomCausalHistory makes a small history over two keys and up to three
// sessions, with pipelined and pending operations, reads of any value of
// their key (even one written later), and a log holding a random subset
// of the operations in random order.
func randomCausalHistory(rng *rand.Rand) ([]Op, []LogEntry) {
	var h []Op
	nextInv := map[string]int64{}
	for i := range 5 + rng.IntN(6) {
		s := fmt.Sprintf("s%d", rng.IntN(3))
		inv := nextInv[s] + rng.Int64N(4)
		o := op(s, uint64(i+1), Weak, Put, rng.IntN(2), fmt.Sprintf("v%d", i), inv, inv+1+rng.Int64N(6))
		nextInv[s] = o.ReturnNS + 1
		if rng.IntN(4) == 0 { // pipelined: the next one may overlap
			nextInv[s] = inv + 1
		}
		if rng.IntN(3) == 0 {
			o.Level = Strong
		}
		if rng.IntN(2) == 0 {
			o.Kind, o.Value = Get, ""
		}
		if rng.IntN(8) == 0 {
			o = pending(o)
		}
		h = append(h, o)
	}
	var inLog []Op
	for i := range h {
		if h[i].Kind == Get && h[i].OK && rng.IntN(4) != 0 {
			var vs []string
			for _, w := range h {
				if w.Kind == Put && w.Key == h[i].Key {
					vs = append(vs, w.Value)
				}
			}
			if len(vs) > 0 {
				h[i].Value = vs[rng.IntN(len(vs))]
			}
		}
		if (h[i].Kind == Put || h[i].Level == Strong) && rng.IntN(7) != 0 {
			inLog = append(inLog, h[i])
		}
	}
	rng.Shuffle(len(inLog), func(i, j int) { inLog[i], inLog[j] = inLog[j], inLog[i] })
	return h, logOf(inLog...)
}

// The sweep flags exactly what the closure-based definitions flag: cycles,
// and for acyclic histories CC-VIS (together with read-your-writes and
// monotonic reads, which it does not repeat), CC-ARB, C1, C2 and C3.
func TestCausalRulesMatchNaiveClosure(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	counts := map[Rule]int{}
	for range 6000 {
		h, log := randomCausalHistory(rng)
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
			want := naiveCheck(h, pos)
			r := Check(asReads(h), logs, Options{})
			got := map[Rule]map[OpID]bool{}
			cyclic := false
			for _, v := range r.Violations {
				rule := v.Rule
				switch rule {
				case RuleCausalCycle:
					cyclic = true
					continue
				case RuleReadYourWrites, RuleMonotonicReads:
					rule = RuleCausalVisibility
				case RuleCausalVisibility, RuleCausalArbitration, RuleC1ReadFrom, RuleC2DurabilityOrder, RuleC3VisibilityBarrier:
				default:
					continue
				}
				if got[rule] == nil {
					got[rule] = map[OpID]bool{}
				}
				got[rule][v.Ops[0]] = true
			}
			require.Equal(t, want.cyclic, cyclic, "cycle, logs=%v\nhistory %+v\nlog %+v\n%s", withLog, h, log, r)
			if want.cyclic {
				counts[RuleCausalCycle]++
				continue
			}
			for _, rule := range []Rule{RuleCausalVisibility, RuleCausalArbitration, RuleC1ReadFrom, RuleC2DurabilityOrder, RuleC3VisibilityBarrier} {
				if len(want.flags[rule]) == 0 {
					want.flags[rule] = nil
				}
				counts[rule] += len(want.flags[rule])
				require.Equal(t, want.flags[rule], got[rule], "%s, logs=%v\nhistory %+v\nlog %+v\n%s", rule, withLog, h, log, r)
			}
		}
	}
	t.Logf("histories flagged per rule: %v", counts)
	for _, rule := range []Rule{RuleCausalCycle, RuleCausalVisibility, RuleCausalArbitration, RuleC1ReadFrom, RuleC2DurabilityOrder, RuleC3VisibilityBarrier} {
		require.NotZero(t, counts[rule], "the generator never exercises %s", rule)
	}
}
