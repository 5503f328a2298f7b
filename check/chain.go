package check

import (
	"sort"
	"strings"
)

// Arrows of a causal chain in messages: a -so-> b means a completed before
// b, of the same session, was invoked; a -rf-> b means get b returned the
// value put a wrote.
const (
	soArrow = " -so-> "
	rfArrow = " -rf-> "
)

// chain spells out why a hb b, as a shortest chain of so and rf edges, so
// that a user can follow a violation through the history. Each chain costs
// a breadth-first search of the history, so only the first maxChains are
// spelled out; later ones say only that the path exists.
func (cr *causalRules) chain(a, b int32) string {
	if cr.chains >= maxChains {
		return "causal chain not shown"
	}
	cr.chains++
	path, rf := cr.s.path(a, b)
	if path == nil { // cannot happen when a hb b
		return "causal chain not found"
	}
	var sb strings.Builder
	sb.WriteString("causal chain ")
	sb.WriteString(cr.x.ops[path[0]].ID().String())
	for i, o := range path[1:] {
		if rf[i] {
			sb.WriteString(rfArrow)
		} else {
			sb.WriteString(soArrow)
		}
		sb.WriteString(cr.x.ops[o].ID().String())
	}
	return sb.String()
}

// path returns a shortest hb path from a to b, and for each edge whether
// it is an rf edge (else so), or nil if a does not precede b. It searches
// backwards from b; the so-predecessors of an op are a prefix of its
// session's ops by response, so each session's ops are enqueued once and
// the search is O(n log n).
func (s *sweep) path(a, b int32) ([]int32, []bool) {
	x, ss := s.x, s.ss
	next := make([]int32, len(x.ops)) // op -> its successor on the path to b, -1: not reached
	for i := range next {
		next[i] = -1
	}
	viaRF := make([]bool, len(x.ops))
	scanned := make([]int, len(ss.names))
	queue := []int32{b}
	visit := func(p, y int32, rf bool) {
		if next[p] < 0 && p != b {
			next[p], viaRF[p] = y, rf
			queue = append(queue, p)
		}
	}
	for len(queue) > 0 {
		y := queue[0]
		queue = queue[1:]
		if y == a && y != b {
			break
		}
		if w := x.src[y]; x.isRead(y) && w >= 0 && !s.dropped[y] {
			visit(w, y, true)
		}
		u := ss.of[y]
		ops := ss.byEnd[u]
		k := sort.Search(len(ops), func(i int) bool { return x.end[ops[i]] >= x.ops[y].InvokeNS })
		for ; scanned[u] < k; scanned[u]++ {
			visit(ops[scanned[u]], y, false)
		}
	}
	if next[a] < 0 {
		return nil, nil
	}
	path, rf := []int32{a}, []bool{}
	for o := a; o != b; o = next[o] {
		rf = append(rf, viaRF[o])
		path = append(path, next[o])
	}
	return path, rf
}
