package check

import (
	"cmp"
	"fmt"
	"slices"
	"sort"

	"swiftpaxos/kvs"
)

// C1 and C2 (PROTOCOL.md section 2.4) constrain the pairs w so s of a weak
// put w and a later completed strong operation s of the same session: w
// must be durable and precede s in the log. C1 is the case of a strong get
// of key(w), C2 any strong operation; each pair is checked under exactly
// one of them (C1 for same-key strong gets, C2 for the rest), and each
// reports at most one violation per weak put: the strong operation
// earliest in the log, or, for a lost put, the first one invoked. C1 also
// asks that the get return val(w) or a newer value; that is a case of
// read-your-writes, which reports it for gets of both levels.
//
// Per session, strong operations sorted by invocation carry suffix minima
// of log position, so each weak put costs a binary search: O(n log n).

// posOp is an operation with its log position; op -1 means none.
type posOp struct {
	pos int64
	op  int32
}

var noPosOp = posOp{pos: inf, op: -1}

func (p posOp) less(q posOp) bool { return p.op >= 0 && (q.op < 0 || p.pos < q.pos) }

// strongSuffix holds, for the strong operations s[i:] of a session
// (sorted by invocation), the one earliest in the log among the puts, and
// among the gets the earliest two of different keys.
type strongSuffix struct {
	ops    []int32
	put    []posOp
	get    [][2]posOp
	getKey [][2]kvs.Key
}

func newStrongSuffix(x *history, pos []int64, ops []int32) *strongSuffix {
	slices.SortFunc(ops, func(a, b int32) int {
		return cmp.Or(cmp.Compare(x.ops[a].InvokeNS, x.ops[b].InvokeNS), cmp.Compare(a, b))
	})
	n := len(ops)
	s := &strongSuffix{ops: ops, put: make([]posOp, n+1), get: make([][2]posOp, n+1), getKey: make([][2]kvs.Key, n+1)}
	s.put[n], s.get[n] = noPosOp, [2]posOp{noPosOp, noPosOp}
	for i := n - 1; i >= 0; i-- {
		o := ops[i]
		s.put[i], s.get[i], s.getKey[i] = s.put[i+1], s.get[i+1], s.getKey[i+1]
		if pos[o] == notInLog {
			continue
		}
		p, k := posOp{pos[o], o}, x.ops[o].Key
		switch {
		case x.isPut(o):
			if p.less(s.put[i]) {
				s.put[i] = p
			}
		case p.less(s.get[i][0]):
			if k != s.getKey[i][0] {
				s.get[i][1], s.getKey[i][1] = s.get[i][0], s.getKey[i][0]
			}
			s.get[i][0], s.getKey[i][0] = p, k
		case k != s.getKey[i][0] && p.less(s.get[i][1]):
			s.get[i][1], s.getKey[i][1] = p, k
		}
	}
	return s
}

// after returns the index of the first operation invoked after t.
func (s *strongSuffix) after(x *history, t int64) int {
	return sort.Search(len(s.ops), func(i int) bool { return x.ops[s.ops[i]].InvokeNS > t })
}

// checkC1C2 checks C1 and C2; it needs the logs.
func checkC1C2(x *history, ss *sessions, l *logIndex, pos []int64, c *collector) {
	for _, ops := range ss.byEnd {
		var strong []int32
		sameKey := map[kvs.Key][]int32{} // strong gets by key
		for _, o := range ops {
			if x.strong(o) && x.completed(o) {
				strong = append(strong, o)
				if x.isRead(o) {
					sameKey[x.ops[o].Key] = append(sameKey[x.ops[o].Key], o)
				}
			}
		}
		if len(strong) == 0 {
			continue
		}
		all := newStrongSuffix(x, pos, strong)
		gets := map[kvs.Key]*strongSuffix{}
		for k, g := range sameKey {
			gets[k] = newStrongSuffix(x, pos, g)
		}
		for _, w := range ops {
			if !x.isPut(w) || x.strong(w) || !x.completed(w) {
				continue
			}
			k := x.ops[w].Key
			if g := gets[k]; g != nil {
				if i := g.after(x, x.end[w]); i < len(g.ops) {
					checkWeakBefore(x, l, pos, w, g.ops[i], g.get[i][0], RuleC1ReadFrom, c)
				}
			}
			i := all.after(x, x.end[w])
			first := int32(-1) // first strong op after w that is not a same-key get
			for _, s := range all.ops[i:] {
				if !x.isRead(s) || x.ops[s].Key != k {
					first = s
					break
				}
			}
			if first < 0 {
				continue
			}
			earliest := all.put[i]
			if g := all.get[i]; g[0].op >= 0 && all.getKey[i][0] != k {
				earliest = minPos(earliest, g[0])
			} else {
				earliest = minPos(earliest, g[1])
			}
			checkWeakBefore(x, l, pos, w, first, earliest, RuleC2DurabilityOrder, c)
		}
	}
}

func minPos(a, b posOp) posOp {
	if b.less(a) {
		return b
	}
	return a
}

// checkWeakBefore reports weak put w missing from the log although strong
// op first of its session was invoked after it completed, or logged after
// earliest, the strong op after it that is earliest in the log.
func checkWeakBefore(x *history, l *logIndex, pos []int64, w, first int32, earliest posOp, rule Rule, c *collector) {
	which, section := "strong operation", "C2"
	if rule == RuleC1ReadFrom {
		which, section = "strong get of the same key", "C1"
	}
	switch {
	case pos[w] == notInLog:
		c.add(Violation{
			Rule: rule,
			Ops:  x.ids(w, first),
			Message: fmt.Sprintf("%s is missing from %s, although the same session's %s %s was invoked after it completed; "+
				"a weak write must be durable before a later strong operation of its session completes (PROTOCOL.md 2.4 %s)",
				x.describe(w), l.ref, which, x.describe(first), section),
		})
	case earliest.op >= 0 && earliest.pos < pos[w]:
		s := earliest.op
		c.add(Violation{
			Rule: rule,
			Ops:  x.ids(w, s),
			Message: fmt.Sprintf("%s is at slot %d of %s, after the same session's %s %s at slot %d, which was invoked after the write completed; "+
				"a strong operation must never be ordered ahead of a weak write its session issued earlier (PROTOCOL.md 2.4 %s)",
				x.describe(w), pos[w], l.ref, which, x.describe(s), earliest.pos, section),
		})
	}
}
