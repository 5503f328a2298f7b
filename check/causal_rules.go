package check

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"swiftpaxos/kvs"
)

// causalRules checks CC-ACYCLIC, CC-VIS, CC-ARB and C3 (PROTOCOL.md
// sections 2.3 and 2.4) from the causal pasts the sweep hands it.
type causalRules struct {
	x    *history
	l    *logIndex // nil without logs
	c    *collector
	s    *sweep
	keys map[kvs.Key]*keyIndex
	// c3Done marks the puts whose C3 membership was checked (at their
	// first foreign reader).
	c3Done map[int32]bool
	// chains counts the causal chains spelled out in messages; each costs
	// a search of the whole history, so only the first few are.
	chains int
}

// maxChains bounds the causal chains spelled out per Check.
const maxChains = 50

// keyIndex holds the puts of one key: per writing lane, and sorted by
// log position (those in the reference log) and by invocation (those with
// a lane). A read's source is usually among the latest puts of its key, so
// the puts newer than it are few: newer then tries them one by one, and
// scans the lanes only when that is cheaper.
type keyIndex struct {
	lanes []*keyPuts
	byPos []int32
	byInv []int32
}

// keyPuts are the puts of one lane to one key, by rank, with
// running maxima: bestPos[i] is the index in ops of the put of ops[:i+1]
// latest in the reference log (-1: none there), bestInv[i] the latest
// invoked, bestStrong[i] the latest invoked of the completed strong ones
// (-1: none).
type keyPuts struct {
	lane       int32
	ranks      []int32
	ops        []int32
	bestPos    []int32
	bestInv    []int32
	bestStrong []int32
}

// checkCausal runs the sweep and the rules it feeds. pos is nil without
// logs.
func checkCausal(x *history, ss *sessions, l *logIndex, pos []int64, c *collector) {
	cr := &causalRules{x: x, l: l, c: c, keys: map[kvs.Key]*keyIndex{}, c3Done: map[int32]bool{}}
	cr.s = newSweep(x, ss, pos, cr)
	cr.indexPuts()
	cr.s.run()
	if l == nil {
		c.skipped = append(c.skipped,
			Skipped{RuleCausalVisibility, "partly: without applied logs the arbitration order is only inferred where it is certain " +
				"(NIL precedes every write; a write precedes its session's later writes; a strong write precedes strong writes invoked after it returned), " +
				"assuming every write that completed or was read is durable; give the replicas' logs for a full check"},
			Skipped{RuleCausalArbitration, "needs the arbitration order of the applied logs"},
			Skipped{RuleC1ReadFrom, "needs the log positions of the applied logs"},
			Skipped{RuleC2DurabilityOrder, "needs the applied logs (durable writes and their positions)"},
			Skipped{RuleC3VisibilityBarrier, "needs the applied logs (durable writes and their positions)"},
		)
	}
}

func (cr *causalRules) indexPuts() {
	x, ss, pos := cr.x, cr.s.ss, cr.s.pos
	type laneKey struct {
		lane int32
		key  kvs.Key
	}
	groups := map[laneKey]*keyPuts{}
	var order []*keyPuts
	for _, ops := range ss.byEnd { // so each group's ops are in rank order
		for _, o := range ops {
			if !x.isPut(o) || ss.lane[o] < 0 {
				continue
			}
			lk := laneKey{ss.lane[o], x.ops[o].Key}
			g := groups[lk]
			if g == nil {
				g = &keyPuts{lane: lk.lane}
				groups[lk] = g
				order = append(order, g)
			}
			n := len(g.ops)
			bp, bi, bs := int32(-1), int32(-1), int32(-1)
			if n > 0 {
				bp, bi, bs = g.bestPos[n-1], g.bestInv[n-1], g.bestStrong[n-1]
			}
			if pos != nil && pos[o] != notInLog && (bp < 0 || pos[o] > pos[g.ops[bp]]) {
				bp = int32(n)
			}
			if bi < 0 || x.ops[o].InvokeNS > x.ops[g.ops[bi]].InvokeNS {
				bi = int32(n)
			}
			if x.strong(o) && x.completed(o) && (bs < 0 || x.ops[o].InvokeNS > x.ops[g.ops[bs]].InvokeNS) {
				bs = int32(n)
			}
			g.ops, g.ranks = append(g.ops, o), append(g.ranks, ss.rank[o])
			g.bestPos, g.bestInv, g.bestStrong = append(g.bestPos, bp), append(g.bestInv, bi), append(g.bestStrong, bs)
		}
	}
	for _, g := range order {
		k := x.ops[g.ops[0]].Key
		ki := cr.keys[k]
		if ki == nil {
			ki = &keyIndex{}
			cr.keys[k] = ki
		}
		ki.lanes = append(ki.lanes, g)
		for _, o := range g.ops {
			ki.byInv = append(ki.byInv, o)
			if pos != nil && pos[o] != notInLog {
				ki.byPos = append(ki.byPos, o)
			}
		}
	}
	for _, ki := range cr.keys {
		slices.SortFunc(ki.byInv, func(a, b int32) int {
			return cmp.Or(cmp.Compare(x.ops[a].InvokeNS, x.ops[b].InvokeNS), cmp.Compare(a, b))
		})
		slices.SortFunc(ki.byPos, func(a, b int32) int { return cmp.Compare(pos[a], pos[b]) })
	}
}

// inPast returns how many of g's puts (a prefix) are ranked below the
// lane's bound in base ∪ src (src may be nil).
func (g *keyPuts) inPast(base, src *clock) int {
	t := base.t[g.lane]
	if src != nil {
		t = max(t, src.t[g.lane])
	}
	return sort.Search(len(g.ranks), func(i int) bool { return g.ranks[i] >= t })
}

// newer finds a put to key(r) in the causal past base ∪ src of read r
// that is newer in <A than r's source w: with logs, the latest by log
// position; without, the latest invoked of those newer for certain (see
// doc.go). It returns -1 if there is none, and otherwise the put and why
// it is newer.
func (cr *causalRules) newer(r int32, base, src *clock) (int32, string) {
	x, pos, w := cr.x, cr.s.pos, cr.x.src[r]
	ki := cr.keys[x.ops[r].Key]
	if ki == nil {
		return -1, ""
	}
	inPast := func(p int32) bool {
		u := cr.s.ss.lane[p]
		t := base.t[u]
		if src != nil {
			t = max(t, src.t[u])
		}
		return cr.s.ss.rank[p] < t
	}
	best := int32(-1)
	if pos != nil {
		pw := int64(-1) // w0 precedes every slot
		if w >= 0 {
			if pw = pos[w]; pw == notInLog {
				return -1, "" // w has no place in <A
			}
		}
		cands := ki.byPos[sort.Search(len(ki.byPos), func(i int) bool { return pos[ki.byPos[i]] > pw }):]
		if len(cands) <= len(ki.lanes) {
			best = lastOf(cands, inPast)
		} else {
			for _, g := range ki.lanes {
				if n := g.inPast(base, src); n > 0 {
					if i := g.bestPos[n-1]; i >= 0 && pos[g.ops[i]] > pw && (best < 0 || pos[g.ops[i]] > pos[best]) {
						best = g.ops[i]
					}
				}
			}
		}
		if best < 0 {
			return -1, ""
		}
		return best, fmt.Sprintf("in %s, %s precedes %v at slot %d",
			cr.l.ref, slotOf(x, w, pw), x.ops[best].ID(), pos[best])
	}
	// Without logs: NIL precedes every put; w precedes a put p invoked
	// after w returned that is of w's session, or strong like w.
	var cands []int32
	switch {
	case w == srcNil:
		cands = ki.byInv
	case x.completed(w):
		cands = ki.byInv[sort.Search(len(ki.byInv), func(i int) bool { return x.ops[ki.byInv[i]].InvokeNS > x.end[w] }):]
	}
	wStrong := w >= 0 && x.strong(w) && x.completed(w)
	certain := func(p int32) bool {
		if w == srcNil {
			return true
		}
		return x.completed(w) && x.ops[p].InvokeNS > x.end[w] &&
			(x.ops[p].Session == x.ops[w].Session || (wStrong && x.strong(p) && x.completed(p)))
	}
	if len(cands) <= len(ki.lanes) {
		best = lastOf(cands, func(p int32) bool { return certain(p) && inPast(p) })
	} else {
		better := func(p int32) {
			if certain(p) && (best < 0 || x.ops[p].InvokeNS > x.ops[best].InvokeNS) {
				best = p
			}
		}
		for _, g := range ki.lanes {
			if n := g.inPast(base, src); n > 0 {
				better(g.ops[g.bestInv[n-1]])
				if i := g.bestStrong[n-1]; i >= 0 {
					better(g.ops[i])
				}
			}
		}
	}
	switch {
	case best < 0:
		return -1, ""
	case w == srcNil:
		return best, "NIL precedes every write"
	case x.ops[best].Session == x.ops[w].Session:
		return best, fmt.Sprintf("session %s completed %v before invoking %v, so the latter is newer",
			x.ops[w].Session, x.ops[w].ID(), x.ops[best].ID())
	}
	return best, fmt.Sprintf("both are strong and %v completed before %v was invoked, so the latter is newer (LIN-RT, HC)",
		x.ops[w].ID(), x.ops[best].ID())
}

// lastOf returns the last of ops that ok accepts, or -1.
func lastOf(ops []int32, ok func(int32) bool) int32 {
	for i := len(ops) - 1; i >= 0; i-- {
		if ok(ops[i]) {
			return ops[i]
		}
	}
	return -1
}

// onPut checks CC-ARB for put w2, given its causal past: no put of it may
// follow w2 in the reference log.
func (cr *causalRules) onPut(w2 int32, past *clock) {
	pos := cr.s.pos
	if pos == nil || pos[w2] == notInLog || past.maxPos <= pos[w2] {
		return
	}
	x, w1 := cr.x, past.maxPosOp
	cr.report(RuleCausalArbitration, func() Violation {
		return Violation{
			Ops: x.ids(w2, w1),
			Message: fmt.Sprintf("%s is at slot %d of %s, before %s at slot %d, although the latter is in its causal past (%s); "+
				"writes ordered by causality must be applied in that order (PROTOCOL.md 2.3 CC-ARB)",
				x.describe(w2), pos[w2], cr.l.ref, x.describe(w1), pos[w1], cr.chain(w1, w2)),
		}
	})
}

// report adds the violation mk builds, or only counts it when the
// collector would drop it anyway: building it may search the history.
func (cr *causalRules) report(rule Rule, mk func() Violation) {
	v := Violation{Rule: rule}
	if cr.c.wants(rule) {
		v = mk()
		v.Rule = rule
	}
	cr.c.add(v)
}

// onRead checks CC-VIS and C3 for completed read r, whose causal past is
// base ∪ src ∪ {src(r)} (src is nil when that is base ∪ {src(r)}, or when
// the rf edge was ignored to break a cycle).
func (cr *causalRules) onRead(r int32, base, src *clock) {
	x := cr.x
	if !cr.c.flagged[r] { // read-your-writes or monotonic reads said it already
		if p, why := cr.newer(r, base, src); p >= 0 {
			cr.report(RuleCausalVisibility, func() Violation {
				return Violation{
					Ops: x.ids(r, p, x.src[r]),
					Message: fmt.Sprintf("%s read from %s, but %s is in the read's causal past (%s) and is newer (%s); "+
						"a read must not return a value that its causal past has overwritten (PROTOCOL.md 2.3 CC-VIS)",
						x.describe(r), x.describeSrc(x.src[r]), x.describe(p), cr.chain(p, r), why),
				}
			})
		}
	}
	if w := x.src[r]; cr.l != nil && w >= 0 && x.ops[w].Session != x.ops[r].Session {
		cr.checkC3(r, w, src)
	}
}

// checkC3 checks C3 for read r of another session's put w: w and its
// causal past (once per w, at its first foreign reader), and for a strong
// r, the log order of w and r.
func (cr *causalRules) checkC3(r, w int32, src *clock) {
	x, pos, ref := cr.x, cr.s.pos, cr.l.ref
	const why = "another session may observe a write only once the write and its causal past can no longer be lost (PROTOCOL.md 2.4 C3)"
	switch {
	case cr.c3Done[w]:
	case pos[w] == notInLog:
		cr.c3Done[w] = true
		cr.c.add(Violation{
			Rule: RuleC3VisibilityBarrier,
			Ops:  x.ids(w, r),
			Message: fmt.Sprintf("%s was read by %s of session %s, but is missing from %s; %s",
				x.describe(w), x.ops[r].ID(), x.ops[r].Session, ref, why),
		})
	case src != nil:
		cr.c3Done[w] = true
		if lost := src.lost; lost >= 0 {
			cr.report(RuleC3VisibilityBarrier, func() Violation {
				return Violation{
					Ops: x.ids(w, r, lost),
					Message: fmt.Sprintf("%s was read by %s of session %s, but %s, in the causal past of that write (%s), is missing from %s; %s",
						x.describe(w), x.ops[r].ID(), x.ops[r].Session, x.describe(lost), cr.chain(lost, w), ref, why),
				}
			})
		}
	}
	if x.strong(r) && pos[r] != notInLog && pos[w] != notInLog && pos[w] > pos[r] {
		cr.c.add(Violation{
			Rule: RuleC3VisibilityBarrier,
			Ops:  x.ids(r, w),
			Message: fmt.Sprintf("%s is at slot %d of %s, before %s at slot %d, whose value it returned; "+
				"a strong read must be ordered after the other session's write it observes (PROTOCOL.md 2.4 C3)",
				x.describe(r), pos[r], ref, x.describe(w), pos[w]),
		})
	}
}

// onCycle reports an hb cycle, given as ops in hb order, first = last,
// joined alternately by so and rf.
func (cr *causalRules) onCycle(cycle []int32) {
	x := cr.x
	var b strings.Builder
	b.WriteString(x.ops[cycle[0]].ID().String())
	for i, o := range cycle[1:] {
		b.WriteString([]string{soArrow, rfArrow}[i%2])
		b.WriteString(x.ops[o].ID().String())
	}
	var who []string
	for _, o := range cycle[:len(cycle)-1] {
		who = append(who, x.describe(o))
	}
	cr.c.add(Violation{
		Rule: RuleCausalCycle,
		Ops:  x.ids(cycle[:len(cycle)-1]...),
		Message: fmt.Sprintf("the causal order has a cycle: %s, where %s; at least one of these reads returned a value whose put was invoked only after the read returned, "+
			"and no order of the operations explains the history (PROTOCOL.md 2.3 CC-ACYCLIC)", b.String(), strings.Join(who, "; ")),
	})
}
