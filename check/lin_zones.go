package check

import (
	"cmp"
	"slices"
	"sort"
)

// The exact linearizability decision for one key (doc.go,
// "Linearizability"): the cluster and zone characterisation of a register
// history with unique written values (Gibbons and Korach, SIAM J. Comput.
// 1997). It works on the operations and windows linOps selects, where a
// precedes b iff ret(a) < call(b).
//
// In every legal order a get returns the latest put, and values are
// unique, so a put and the gets of its value are adjacent: the order is a
// sequence of clusters, the initial NIL's first. Cluster A must then come
// before cluster B iff some a in A and b in B have ret(a) < call(b), that
// is f(A) < s(B) with f the least ret and s the greatest call of a
// cluster. Inside a cluster only the put must come first, which fails iff
// a get returned before its put was invoked. The cluster order exists iff
// that relation is acyclic, and a cycle always contains a pair A, B with
// f(A) < s(B) and f(B) < s(A): in a cycle, take the cluster M of least f
// and its predecessor P; f(P) < s(M), and P's predecessor Q has f(M) <=
// f(Q) < s(P). Call [f, s] a forward zone when f < s and [s, f] a
// backward zone otherwise; such a pair is two forward zones overlapping in
// more than a point, or a backward zone strictly inside a forward one (two
// backward zones would need f(A) < s(B) <= f(B) < s(A) <= f(A)).
// Sorting the forward zones by f decides both in O(n log n).
//
// lin_prop_test.go checks the decision against porcupine's search over
// the same windows and against an exhaustive search from the definition
// on thousands of small random histories (pending puts, weak puts read by
// strong gets, reads of absent, equal instants, overlapping windows);
// scale_test.go decides 160,000 operations of 60 sessions on one key in
// under a second.

// zoneEnd is one end of a cluster's zone: an instant and the index in
// the key's linOps of the operation defining it, or -1 for the initial
// NIL, whose put sits at -infinity.
type zoneEnd struct {
	at int64
	by int
}

// cluster is a put with the strong gets of its value, or the initial NIL
// (w == srcNil) with the gets of NIL.
type cluster struct {
	w     int32
	putAt int     // w's index in linOps, -1 for the initial NIL
	f     zoneEnd // least ret
	s     zoneEnd // greatest call
}

func (c *cluster) forward() bool { return c.f.at < c.s.at }

// linConflict is a reason why no legal order exists. Either get read
// (an index in linOps) returned before its put w was invoked; or clusters
// A and B must each precede the other: a1 of A returned before b1 of B
// was invoked, and b2 of B returned before a2 of A was invoked (indices
// in linOps, -1 for the initial NIL).
type linConflict struct {
	read           int
	wA, wB         int32
	a1, b1, b2, a2 int
}

// swap describes the same conflict with the roles of A and B exchanged.
func (k linConflict) swap() linConflict {
	return linConflict{read: -1, wA: k.wB, wB: k.wA, a1: k.b2, b1: k.a2, b2: k.a1, a2: k.b1}
}

// decideLin returns the conflicts of the key whose linOps are lops, in a
// deterministic order; the key is linearizable iff there is none. There is
// at most one per get (a get returning before its put) and one per
// cluster (its zone overlapping an earlier forward zone, or lying inside
// one).
func (x *history) decideLin(lops []linOp) []linConflict {
	var out []linConflict
	clusters := []cluster{{w: srcNil, putAt: -1, f: zoneEnd{negInf, -1}, s: zoneEnd{negInf, -1}}}
	of := map[int32]int{srcNil: 0} // put -> its cluster
	for j, lo := range lops {
		if x.isPut(lo.op) {
			of[lo.op] = len(clusters)
			clusters = append(clusters, cluster{w: lo.op, putAt: j, f: zoneEnd{lo.ret, j}, s: zoneEnd{lo.call, j}})
		}
	}
	for j, lo := range lops {
		if x.isPut(lo.op) {
			continue
		}
		w := x.src[lo.op]
		c := &clusters[of[w]]
		if w >= 0 {
			if put := lops[c.putAt]; lo.ret < put.call {
				out = append(out, linConflict{read: j, wA: w, a1: -1, b1: -1, b2: -1, a2: -1})
			}
		}
		if lo.ret < c.f.at {
			c.f = zoneEnd{lo.ret, j}
		}
		if lo.call > c.s.at {
			c.s = zoneEnd{lo.call, j}
		}
	}
	return append(out, zoneConflicts(clusters)...)
}

// zoneConflicts finds, in one sweep over the forward zones sorted by f,
// every forward zone overlapping an earlier one (in more than a point),
// and with a binary search per backward zone, every backward zone
// strictly inside a forward one.
func zoneConflicts(clusters []cluster) []linConflict {
	var fwd, bwd []int
	for i := range clusters {
		if clusters[i].forward() {
			fwd = append(fwd, i)
		} else {
			bwd = append(bwd, i)
		}
	}
	slices.SortFunc(fwd, func(a, b int) int { return cmp.Or(cmp.Compare(clusters[a].f.at, clusters[b].f.at), cmp.Compare(a, b)) })
	// reach[i] is the cluster of greatest s among fwd[:i+1].
	reach := make([]int, len(fwd))
	var out []linConflict
	pair := func(a, b int) linConflict {
		A, B := &clusters[a], &clusters[b]
		return linConflict{read: -1, wA: A.w, wB: B.w, a1: A.f.by, b1: B.s.by, b2: B.f.by, a2: A.s.by}
	}
	for i, b := range fwd {
		reach[i] = b
		if i == 0 {
			continue
		}
		a := reach[i-1]
		if clusters[a].s.at > clusters[b].f.at {
			// f(a) <= f(b) < s(b), and f(b) < s(a).
			out = append(out, pair(a, b))
		}
		if clusters[a].s.at > clusters[b].s.at {
			reach[i] = a
		}
	}
	slices.SortFunc(bwd, func(a, b int) int { return cmp.Or(cmp.Compare(clusters[a].s.at, clusters[b].s.at), cmp.Compare(a, b)) })
	for _, b := range bwd {
		B := &clusters[b]
		n := sort.Search(len(fwd), func(i int) bool { return clusters[fwd[i]].f.at >= B.s.at })
		if n == 0 {
			continue
		}
		if a := reach[n-1]; clusters[a].s.at > B.f.at {
			// f(a) < s(b) <= f(b) < s(a).
			out = append(out, pair(a, b))
		}
	}
	return out
}
