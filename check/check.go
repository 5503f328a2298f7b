package check

import "slices"

// Check verifies history h, and the replicas' applied logs when logs is not
// empty (replica name -> log in applied order), against the rules listed
// in doc.go. It never modifies its arguments and is safe to call
// concurrently.
func Check(h []Op, logs map[string][]LogEntry, opts Options) Report {
	opts = opts.withDefaults()
	c := newCollector(opts.MaxPerRule)
	x := newHistory(h, c)
	var l *logIndex
	var pos []int64
	if len(logs) > 0 {
		l = checkLogs(x, logs, c)
		pos = l.positions(x)
	}
	checkReadSources(x, c)
	checkLinearizability(x, pos, opts, c)
	checkSessions(x, l, c) // before checkCausal, which skips the reads it flags
	ss := newSessions(x)
	checkCausal(x, ss, l, pos, c)
	if l == nil {
		c.skipped = append(c.skipped,
			Skipped{RuleStrongWriteOrder, "needs the log positions of the applied logs"},
			Skipped{RuleStrongReadOrder, "needs the log order of the applied logs (the linearizability rule still orders strong operations by real time)"})
		if slices.ContainsFunc(h, func(o Op) bool { return o.Ordered }) {
			c.skipped = append(c.skipped, Skipped{RuleOrdered, "needs the log positions of the applied logs"})
		}
	} else {
		checkStrongWriteOrder(x, l, c)
		checkStrongReadOrder(x, l, pos, c) // after checkSessions, whose reads it skips
		checkDurability(x, l, opts.Crashed, c)
		checkOrdered(x, l, pos, c)
		checkC1C2(x, ss, l, pos, c)
	}
	return c.report(len(h))
}
