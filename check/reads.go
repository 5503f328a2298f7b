package check

import "fmt"

// checkReadSources checks that every completed get returns NIL or a value
// some put wrote to the same key (RuleReadNeverWritten), and that the put
// was invoked before the get returned (RuleReadFromFuture, PROTOCOL.md
// section 2.6 item 4: "w was invoked before resp(r)").
func checkReadSources(x *history, c *collector) {
	for i := int32(0); int(i) < len(x.ops); i++ {
		if !x.isRead(i) || !x.completed(i) {
			continue
		}
		o := &x.ops[i]
		switch w := x.src[i]; {
		case w == srcNil, w == srcAmbiguous:
		case w == srcNone:
			msg := fmt.Sprintf("%s returned %s, which no write in the history wrote", x.describe(i), shortValue(o.Value))
			ops := x.ids(i)
			if w, ok := x.writer[o.Value]; ok {
				msg = fmt.Sprintf("%s returned %s, which was written to key %s by %v, not to key %s",
					x.describe(i), shortValue(o.Value), qk(x.ops[w].Key), x.ops[w].ID(), qk(o.Key))
				ops = x.ids(i, w)
			}
			c.add(Violation{
				Rule:    RuleReadNeverWritten,
				Ops:     ops,
				Message: msg + "; a read must return NIL or a value written to its key",
			})
		case x.ops[w].InvokeNS > x.end[i]:
			c.add(Violation{
				Rule: RuleReadFromFuture,
				Ops:  x.ids(i, w),
				Message: fmt.Sprintf("%s returned the value of %s, which was invoked only after the get returned; "+
					"a read cannot observe a write that had not been issued yet", x.describe(i), x.describe(w)),
			})
		}
	}
}
