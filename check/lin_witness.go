package check

import (
	"cmp"
	"slices"
)

// A key the search would decide may be decided at once by the order the
// replicas applied its operations in: if that order respects real time
// and every operation returns, in it, what the key held, it is a legal
// order, so the key is linearizable. Only the search can say that no
// order is legal, so a log order that fails proves nothing: the key goes
// on to the search, as without the logs. The log order is tried first
// because the search's cost grows with how many operations overlap
// (thousands of model steps per operation on a busy key, beyond linBudget
// on the harsh simulations), while replaying one order costs one step
// each.

// logOrderLegal reports whether ops, in the order of their positions in
// the reference log (pos), is a legal order of the key: each operation's
// step accepts the state the ones before it made, and no operation
// returned before one ordered ahead of it was invoked. An operation
// missing from the log never took effect there; it may stand last, in
// invocation order, only if nothing bounds its window (a pending write, a
// weak write no strong operation read), else the log order is no witness.
func logOrderLegal(ops []sop, pos []int64) bool {
	if pos == nil {
		return false
	}
	order := make([]int, 0, len(ops))
	var absent []int
	for j, o := range ops {
		switch {
		case pos[o.part] != notInLog:
			order = append(order, j)
		case o.ret == inf:
			absent = append(absent, j)
		default:
			return false
		}
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(pos[ops[a].part], pos[ops[b].part]) })
	slices.SortFunc(absent, func(a, b int) int { return cmp.Compare(ops[a].call, ops[b].call) })
	s := linState{last: -1}
	latestCall := int64(negInf)
	for _, j := range append(order, absent...) {
		o := &ops[j]
		if o.ret < max(latestCall, o.call) {
			return false // o returned before it, or one ordered ahead of it, was invoked
		}
		latestCall = max(latestCall, o.call)
		ok, next := o.step(s)
		if !ok {
			return false
		}
		s = next
	}
	return true
}
