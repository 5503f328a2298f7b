package check

import (
	"cmp"
	"fmt"
	"slices"

	"swiftpaxos/kvs"
)

// checkOrdered checks the ordered operations (history member ordered,
// docs/DECISIONS.md 45): an ordered operation takes effect after every
// earlier operation of its session (lower Seq) that conflicts with it,
// even one still in flight when it was invoked. Its slot in the applied
// logs must be above theirs: a write's above every earlier GET or write
// of its key, a GET's above every earlier write. Only operations the logs
// hold are compared (a weak read is not logged; an operation that never
// executed has no slot). SCANs are left out: the clients order none.
func checkOrdered(x *history, l *logIndex, c *collector) {
	type sk struct {
		s SessionID
		k kvs.Key
	}
	if !slices.ContainsFunc(x.cmds, func(o Op) bool { return o.Ordered }) {
		return
	}
	groups := map[sk][]int32{}
	for i := range x.cmds {
		if o := &x.cmds[i]; o.Kind != Scan {
			groups[sk{o.Session, o.Key}] = append(groups[sk{o.Session, o.Key}], int32(i))
		}
	}
	for _, g := range groups {
		slices.SortFunc(g, func(a, b int32) int { return cmp.Compare(x.cmds[a].Seq, x.cmds[b].Seq) })
		lastW, lastAny := int32(-1), int32(-1)
		var posW, posAny int64 = -1, -1
		for _, i := range g {
			o := &x.cmds[i]
			p, in := l.pos[o.ID()]
			if !in {
				continue
			}
			write := o.Kind != Get
			if o.Ordered {
				before, bp := lastW, posW
				if write {
					before, bp = lastAny, posAny
				}
				if before >= 0 && bp > p {
					c.add(Violation{
						Rule: RuleOrdered,
						Ops:  []OpID{o.ID(), x.cmds[before].ID()},
						Message: fmt.Sprintf("%s is at slot %d of %s, before %s at slot %d, an earlier operation of its session on the same key; "+
							"an ordered operation must take effect after every earlier conflicting operation of its session (docs/DECISIONS.md 45)",
							x.describeCmd(i), p, l.ref, x.describeCmd(before), bp),
					})
				}
			}
			if p > posAny {
				lastAny, posAny = i, p
			}
			if write && p > posW {
				lastW, posW = i, p
			}
		}
	}
}
