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
// weak write no strong operation read). A completed read missing from the
// log (a leader read, docs/DECISIONS.md 46, has no slot) is placed where
// the log order holds the state it returned (placeReads); any other
// completed operation missing from the log makes the log order no
// witness.
func logOrderLegal(ops []sop, pos []int64) bool {
	if pos == nil {
		return false
	}
	order := make([]int, 0, len(ops))
	var absent, floating []int
	for j, o := range ops {
		switch {
		case pos[o.part] != notInLog:
			order = append(order, j)
		case o.ret == inf:
			absent = append(absent, j)
		default:
			floating = append(floating, j)
		}
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(pos[ops[a].part], pos[ops[b].part]) })
	slices.SortFunc(absent, func(a, b int) int { return cmp.Compare(ops[a].call, ops[b].call) })
	order, ok := placeReads(ops, order, floating)
	if !ok {
		return false
	}
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

// placeReads inserts the completed operations missing from the log
// (floating) into order, each at the first gap that follows every
// operation of order that returned before it was invoked and whose state
// it reads without changing it; several in one gap go in invocation
// order. ok is false if one finds no such gap (a write, or a read of a
// state the order never holds there): the caller then has no witness.
// Real time is not checked here: the caller checks the whole order.
func placeReads(ops []sop, order, floating []int) ([]int, bool) {
	if len(floating) == 0 {
		return order, true
	}
	states := make([]linState, len(order)+1) // states[g]: before order[g]
	states[0] = linState{last: -1}
	for i, j := range order {
		ok, next := ops[j].step(states[i])
		if !ok {
			return nil, false
		}
		states[i+1] = next
	}
	slices.SortFunc(floating, func(a, b int) int { return cmp.Compare(ops[a].call, ops[b].call) })
	gaps := make([][]int, len(order)+1)
	for _, f := range floating {
		lo := 0
		for i, j := range order {
			if ops[j].ret < ops[f].call {
				lo = i + 1
			}
		}
		g := lo
		for ; g <= len(order); g++ {
			if ok, next := ops[f].step(states[g]); ok && next == states[g] {
				break
			}
		}
		if g > len(order) {
			return nil, false
		}
		gaps[g] = append(gaps[g], f)
	}
	merged := make([]int, 0, len(order)+len(floating))
	for g, fs := range gaps {
		merged = append(merged, fs...)
		if g < len(order) {
			merged = append(merged, order[g])
		}
	}
	return merged, true
}
