package check

import (
	"cmp"
	"slices"
	"strconv"
)

// The search of lin_model.go: Wing and Gong's, with Lowe's memo of
// (operations taken, state), bounded by linBudget model steps.

// searchResult is the outcome of one key's search: legal, or the most
// operations some order took before it got stuck and the operation whose
// response it could not pass; or undecided.
type searchResult struct {
	legal, undecided bool
	best             int
	stuck            int32
}

// event of the search: the call or return of operation op.
type sevent struct {
	at         int64
	op         int32
	ret        bool
	prev, next *sevent
	match      *sevent // a call's return
}

// search decides whether ops have a legal order within their windows.
func search(ops []sop, withLast bool) searchResult {
	evs := make([]*sevent, 0, 2*len(ops))
	for i := range ops {
		c := &sevent{at: ops[i].call, op: int32(i)}
		r := &sevent{at: ops[i].ret, op: int32(i), ret: true}
		c.match = r
		evs = append(evs, c, r)
	}
	// At equal instants calls come first: windows that touch overlap.
	slices.SortFunc(evs, func(a, b *sevent) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmpBool(a.ret, b.ret), cmp.Compare(a.op, b.op))
	})
	head := &sevent{}
	prev := head
	for _, e := range evs {
		prev.next, e.prev = e, prev
		prev = e
	}
	lift := func(c *sevent) {
		c.prev.next = c.next
		if c.next != nil {
			c.next.prev = c.prev
		}
		r := c.match
		r.prev.next = r.next
		if r.next != nil {
			r.next.prev = r.prev
		}
	}
	unlift := func(c *sevent) {
		r := c.match
		r.prev.next = r
		if r.next != nil {
			r.next.prev = r
		}
		c.prev.next = c
		if c.next != nil {
			c.next.prev = c
		}
	}
	type frame struct {
		call  *sevent
		state linState
	}
	bits := make([]uint64, (len(ops)+63)/64)
	seen := map[string]struct{}{}
	key := func(s linState) string {
		b := make([]byte, 0, 8*len(bits)+len(s.value)+8)
		for _, w := range bits {
			b = append(b, byte(w), byte(w>>8), byte(w>>16), byte(w>>24), byte(w>>32), byte(w>>40), byte(w>>48), byte(w>>56))
		}
		if withLast {
			b = strconv.AppendInt(b, int64(s.last), 10)
		}
		if s.found {
			b = append(b, '=')
			b = append(b, s.value...)
		}
		return string(b)
	}
	var stack []frame
	state := linState{last: -1}
	res := searchResult{stuck: -1}
	steps := 0
	cur := head.next
	for head.next != nil {
		if steps++; steps > linBudget {
			res.undecided = true
			return res
		}
		if !cur.ret {
			op := cur.op
			ok, next := false, state
			if t := ops[op].twin; t < 0 || bits[t/64]&(1<<(t%64)) != 0 {
				ok, next = ops[op].step(state)
			}
			if ok {
				bits[op/64] |= 1 << (op % 64)
				k := key(next)
				if _, dup := seen[k]; !dup {
					seen[k] = struct{}{}
					stack = append(stack, frame{cur, state})
					state = next
					lift(cur)
					if len(stack) > res.best {
						res.best, res.stuck = len(stack), -1
					}
					cur = head.next
					continue
				}
				bits[op/64] &^= 1 << (op % 64)
			}
			cur = cur.next
			continue
		}
		if len(stack) == res.best && res.stuck < 0 {
			res.stuck = cur.op
		}
		if len(stack) == 0 {
			return res
		}
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		state = f.state
		bits[f.call.op/64] &^= 1 << (f.call.op % 64)
		unlift(f.call)
		cur = f.call.next
	}
	res.legal = true
	return res
}
