package sim

import "container/heap"

type eventKind uint8

const (
	evDeliver eventKind = iota
	evTickReplica
	evTickClient
	evInvoke
	evFault
	evApply
	evReplicaDown
	evReplicaUp
	evSync
	evPeerDown
)

// event is one scheduled happening. seq breaks ties between events at the
// same instant so that the order never depends on heap internals.
type event struct {
	at   int64
	seq  uint64
	kind eventKind
	// deliver
	link  *link
	epoch uint64
	frame []byte
	// ticks and invokes; evReplicaDown: the session; evPeerDown: the
	// replica that learns of the break
	idx int
	// evReplicaDown: the crashed replica; evPeerDown: the replica at the
	// other end
	peer int
	// evSync: the last batch the sync covers
	batch uint64
}

type eventQueue []*event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(*event)) }
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return e
}

func (q *eventQueue) push(e *event) { heap.Push(q, e) }
func (q *eventQueue) pop() *event   { return heap.Pop(q).(*event) }
