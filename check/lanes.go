package check

import (
	"cmp"
	"container/heap"
	"slices"

	"swiftpaxos/wire"
)

// Sessions, lanes and clocks: the compact causal pasts of causal.go.

// sessions numbers sessions in name order and ranks each session's
// operations by response: completed ones by (resp, inv, index), then
// pending ones by (inv, index).
//
// It also splits each session into lanes, the coordinates of the clocks
// below: chains of so, in which every op is so-after the one before it.
// Completed ops are packed greedily, in invocation order, into the lane
// whose last op ended earliest, if that was before the op's invocation;
// this uses as few lanes as the session has mutually overlapping ops
// (one, without pipelining). The parts of a scan (scan.go) share one
// place in one lane: they have the same window, so every op is so-after
// all of them or none, and a clock holds all of them or none. A pending put that some get read has a lane
// of its own (it has no so-successor); other pending ops never enter a
// clock and have no lane.
type sessions struct {
	names   []SessionID
	of      []int32   // op -> session number
	byEnd   [][]int32 // session -> its ops in rank order
	endRank []int32   // op -> its index in byEnd[of[op]]
	lanes   int
	lane    []int32 // op -> lane, -1 for none
	rank    []int32 // op -> index in its lane
}

func newSessions(x *history) *sessions {
	n := len(x.ops)
	ss := &sessions{of: make([]int32, n), endRank: make([]int32, n), lane: make([]int32, n), rank: make([]int32, n)}
	num := map[SessionID]int32{}
	for i := range x.ops {
		if _, ok := num[x.ops[i].Session]; !ok {
			num[x.ops[i].Session] = 0
			ss.names = append(ss.names, x.ops[i].Session)
		}
	}
	slices.Sort(ss.names)
	for i, s := range ss.names {
		num[s] = int32(i)
	}
	ss.byEnd = make([][]int32, len(ss.names))
	for i := int32(0); int(i) < n; i++ {
		u := num[x.ops[i].Session]
		ss.of[i] = u
		ss.byEnd[u] = append(ss.byEnd[u], i)
		ss.lane[i] = -1
	}
	read := make([]bool, n)
	for _, w := range x.src {
		if w >= 0 {
			read[w] = true
		}
	}
	for _, ops := range ss.byEnd {
		slices.SortFunc(ops, func(a, b int32) int {
			return cmp.Or(cmp.Compare(x.end[a], x.end[b]), cmp.Compare(x.ops[a].InvokeNS, x.ops[b].InvokeNS), cmp.Compare(a, b))
		})
		for i, o := range ops {
			ss.endRank[o] = int32(i)
		}
		byInv := slices.Clone(ops)
		slices.SortFunc(byInv, func(a, b int32) int {
			return cmp.Or(cmp.Compare(x.ops[a].InvokeNS, x.ops[b].InvokeNS), cmp.Compare(a, b))
		})
		var tails laneHeap             // this session's lanes by the response of their last op
		placed := map[wire.Seq]int32{} // a scan -> its first part placed
		for _, o := range byInv {
			first, inScan := int32(0), false
			if x.ops[o].Scan {
				first, inScan = placed[x.ops[o].Seq]
				// An invalid scan (history-invalid) may not share a window.
				inScan = inScan && x.end[first] == x.end[o] && x.ops[first].InvokeNS == x.ops[o].InvokeNS
			}
			switch {
			case inScan && x.completed(o):
				// The parts of a scan share its window: they are one step
				// of a lane, not a chain.
				ss.lane[o], ss.rank[o] = ss.lane[first], ss.rank[first]
			case x.completed(o) && len(tails) > 0 && tails[0].end < x.ops[o].InvokeNS:
				l := &tails[0]
				ss.lane[o], ss.rank[o] = l.lane, l.size
				l.end, l.size = x.end[o], l.size+1
				heap.Fix(&tails, 0)
			case x.completed(o):
				ss.lane[o] = int32(ss.lanes)
				heap.Push(&tails, laneTail{end: x.end[o], lane: int32(ss.lanes), size: 1})
				ss.lanes++
			case read[o]:
				ss.lane[o] = int32(ss.lanes)
				ss.lanes++
			}
			if x.ops[o].Scan && !inScan {
				placed[x.ops[o].Seq] = o
			}
		}
	}
	return ss
}

// laneTail is a lane being filled: the response of its last op and its
// length.
type laneTail struct {
	end        int64
	lane, size int32
}

type laneHeap []laneTail

func (h laneHeap) Len() int { return len(h) }
func (h laneHeap) Less(i, j int) bool {
	return cmp.Or(cmp.Compare(h[i].end, h[j].end), cmp.Compare(h[i].lane, h[j].lane)) < 0
}
func (h laneHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *laneHeap) Push(v any)   { *h = append(*h, v.(laneTail)) }
func (h *laneHeap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}

// clock is a set of operations closed under so-predecessors: for every
// lane u, the first t[u] ops of u (a set closed under so meets a chain of
// so in a prefix). It also carries joins over the set that the rules
// need, which a union preserves (causal.go). Clocks are shared
// copy-on-write: refs counts the holders.
type clock struct {
	refs int32
	t    []int32
	// maxPos is the greatest log position of a put of the set that is in
	// the reference log, maxPosOp that put (-1: none). Logs only.
	maxPos   int64
	maxPosOp int32
	// lost is a put of the set missing from the reference log (-1: none).
	// Logs only.
	lost int32
}

func newClock(lanes int) *clock {
	return &clock{refs: 1, t: make([]int32, lanes), maxPos: negInf, maxPosOp: -1, lost: -1}
}

func (c *clock) ref() *clock { c.refs++; return c }

func (c *clock) release() { c.refs-- }

func (c *clock) clone() *clock {
	d := *c
	d.refs = 1
	d.t = slices.Clone(c.t)
	return &d
}

// add inserts op o, whose so-predecessors must already be in the set.
func (s *sweep) add(c *clock, o int32) {
	u, r := s.ss.lane[o], s.ss.rank[o]
	if r < c.t[u] {
		return
	}
	c.t[u] = r + 1
	if s.pos == nil || !s.x.isPut(o) {
		return
	}
	if p := s.pos[o]; p == notInLog {
		if c.lost < 0 {
			c.lost = o
		}
	} else if p > c.maxPos {
		c.maxPos, c.maxPosOp = p, o
	}
}

// join makes c the union of c and d.
func (s *sweep) join(c, d *clock) {
	for u, t := range d.t {
		c.t[u] = max(c.t[u], t)
	}
	if d.maxPos > c.maxPos {
		c.maxPos, c.maxPosOp = d.maxPos, d.maxPosOp
	}
	if c.lost < 0 {
		c.lost = d.lost
	}
}
