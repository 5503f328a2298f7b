package check

import "container/heap"

// doneWrites answers, for a session's unordered read of absent, the
// highest log position of its session's logged writes of the key that
// completed before the read was invoked: the read took effect after them,
// though perhaps before the session's earlier writes still in flight. A
// session invokes in Seq order, so the instants asked about do not
// decrease, and each write is counted once (a heap by return instant); an
// instant earlier than the last one asked (a clock stepped back) is
// answered by a scan.
type doneWrites struct {
	h    returnHeap // completed writes not yet counted
	all  []retPos
	lo   int64 // the highest position counted
	last int64 // the last instant asked about
}

type retPos struct{ ret, pos int64 }

// add notes a logged write at position pos that completed at ret.
func (d *doneWrites) add(ret, pos int64) {
	heap.Push(&d.h, retPos{ret, pos})
	d.all = append(d.all, retPos{ret, pos})
}

// before is the highest position of the writes that completed before t,
// or -1.
func (d *doneWrites) before(t int64) int64 {
	if t < d.last {
		lo := int64(-1)
		for _, w := range d.all {
			if w.ret < t {
				lo = max(lo, w.pos)
			}
		}
		return lo
	}
	d.last = t
	for len(d.h) > 0 && d.h[0].ret < t {
		d.lo = max(d.lo, heap.Pop(&d.h).(retPos).pos)
	}
	return d.lo
}

// returnHeap is a min-heap of writes by return instant.
type returnHeap []retPos

func (h returnHeap) Len() int           { return len(h) }
func (h returnHeap) Less(i, j int) bool { return h[i].ret < h[j].ret }
func (h returnHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *returnHeap) Push(x any)        { *h = append(*h, x.(retPos)) }
func (h *returnHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
