package check

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"swiftpaxos/kvs"
)

// Keys whose operations are not only GETs, PUTs and SCANs are decided by
// a search over the key's operations with their full semantics: the
// algorithm of Wing and Gong with the memo of Lowe (the one porcupine
// implements), on a model of one key (absent or a value, and which write
// made it so). There is no unique value to name the write a read of
// absent read, nor an INCR's, so the cluster characterisation of
// lin_zones.go does not apply. The search is exact; it is bounded by
// linBudget steps, counted, not timed, so that a history gets the same
// verdict on every machine, and a key that needs more is reported as
// undecided (Report.Unknown), never as a pass. doc.go ("Linearizability")
// lists the operations taking part.

// linBudget bounds the model steps of one key's search
// (docs/DECISIONS.md 43).
const linBudget = 16_000_000

// linState is the state of one key: absent or a value, and the part that
// wrote it last (-1: the initial absent w0), for a CAS on a version.
type linState struct {
	found bool
	value string
	last  int32
}

// sop is one operation of a key's search: its window and its effect,
// which reports false if the operation cannot take effect in state s.
type sop struct {
	part      int32
	call, ret int64
	step      func(s linState) (bool, linState)
	// twin is an earlier operation with the same window and effect (weak
	// DELETEs), or -1: of two twins the search only tries the earlier
	// first, since any order using the later one alone has a mirror
	// using the earlier.
	twin int32
}

// needsSearch reports whether key k has an operation beyond GET, PUT and
// SCAN, so that the exact cluster decision does not apply.
func (x *history) needsSearch(k kvs.Key) bool {
	for _, i := range x.byKey[k] {
		if kd := x.cmds[x.ops[i].cmd].Kind; kd != Get && kd != Put && kd != Scan {
			return true
		}
	}
	return false
}

// version returns the slot of the write part w (-1: w0, slot 0); -1 and
// false without the logs, or for a write missing from them.
func version(pos []int64, w int32) (int64, bool) {
	switch {
	case w < 0:
		return 0, true
	case pos == nil || pos[w] == notInLog:
		return -1, pos != nil
	}
	return pos[w], true
}

// searchOps builds the operations of key k's search, or says why the key
// cannot be decided.
//
//   - Every completed strong operation, with [inv, resp], except reads of
//     a value no write wrote (read-never-written reports them).
//   - Every pending strong write, with [inv, +inf): it may have taken
//     effect, or not (ordered last).
//   - Every weak write that a strong operation may have observed, with
//     [inv, +inf), but a weak put's window ends where its first strong
//     reader's does: HYB orders weak writes by no real time but their
//     invocation (a strong operation cannot observe a write not yet
//     invoked: read-from-future), a weak write no strong operation
//     observes may be left out of the order (strong inclusion), and the
//     windows of lin.go are implied by these. A weak
//     put may have been observed if a strong read returned its value or a
//     strong CAS expected it (or it is an integer on a key with INCRs); a
//     weak DELETE if a strong operation may have found the key absent.
func (x *history) searchOps(k kvs.Key, pos []int64) ([]sop, string) {
	observed, absent, counter, version := map[string]bool{}, false, false, false
	present := false               // a strong operation observed that the key held some value
	firstRead := map[int32]int64{} // weak put -> least response of its strong readers
	for _, i := range x.byKey[k] {
		p, o := &x.ops[i], &x.cmds[x.ops[i].cmd]
		if p.Level != Strong {
			continue
		}
		switch {
		case o.Kind == Incr:
			counter, absent = true, true
		case o.Kind == CAS:
			observed[o.ExpectValue] = o.Expect == kvs.ExpectValue
			absent = absent || o.Expect == kvs.ExpectAbsent
			version = version || o.Expect == kvs.ExpectVersion
		case o.Kind == Delete:
			absent = true // a DELETE's existed may be false
			present = present || !x.completed(i) || o.FoundUnknown || o.Found
		}
		if p.Kind == Get && x.completed(i) {
			if p.Found {
				observed[p.Value] = true
			} else {
				absent = true
			}
			if w := x.src[i]; w >= 0 {
				if t, ok := firstRead[w]; !ok || x.end[i] < t {
					firstRead[w] = x.end[i]
				}
			}
		}
	}
	var out []sop
	// Weak writes that no strong operation observes by value dominate one
	// another by invocation: one invoked earlier can stand wherever one
	// invoked later stands (both windows end at +inf, and nobody reads
	// their values), so each is tried only once the earlier one is in.
	// Their value is replaced by one no read returns, so that the memo
	// sees the states they make as one.
	var twins [2][]int32 // weak DELETEs, unobserved weak PUTs: indexes into out
	for _, i := range x.byKey[k] {
		p, o := &x.ops[i], &x.cmds[x.ops[i].cmd]
		if o.Kind == CAS && o.Expect == kvs.ExpectVersion && pos == nil {
			return nil, "a CAS on a version is decided against the slots of the applied logs, which were not given"
		}
		strong, done := p.Level == Strong, x.completed(i)
		switch {
		case strong && done && p.Kind == Get && x.src[i] == srcNone:
		case strong && done:
			out = append(out, sop{i, p.InvokeNS, x.end[i], x.effect(i, pos, true), -1})
		case strong && p.Kind == Put:
			out = append(out, sop{i, p.InvokeNS, inf, x.effect(i, pos, false), -1})
		case p.Kind == Put && p.Found && (observed[p.Value] || counter && isInteger(p.Value)):
			ret, ok := firstRead[i]
			if !ok {
				ret = inf
			}
			out = append(out, sop{i, p.InvokeNS, ret, x.effect(i, pos, false), -1})
		case p.Kind == Put && p.Found && present:
			twins[1] = append(twins[1], int32(len(out)))
			out = append(out, sop{i, p.InvokeNS, inf, unobserved(i), -1})
		case p.Kind == Put && !p.Found && absent:
			twins[0] = append(twins[0], int32(len(out)))
			out = append(out, sop{i, p.InvokeNS, inf, x.effect(i, pos, false), -1})
		}
	}
	for _, g := range twins {
		if version {
			break // which write made the state matters to a CAS on a version
		}
		slices.SortStableFunc(g, func(a, b int32) int { return cmp.Compare(out[a].call, out[b].call) })
		for j := 1; j < len(g); j++ {
			out[g[j]].twin = g[j-1]
		}
	}
	return out, ""
}

// unobserved is the step of a weak put whose value no strong operation
// returns or expects: the key holds some value nobody reads.
func unobserved(i int32) func(linState) (bool, linState) {
	return func(linState) (bool, linState) { return true, linState{found: true, value: "\x00unobserved", last: i} }
}

// effect returns the model step of part i; done: its result is known and
// must match.
func (x *history) effect(i int32, pos []int64, done bool) func(linState) (bool, linState) {
	p, o := &x.ops[i], &x.cmds[x.ops[i].cmd]
	reads := func(s linState) bool { return s.found == p.Found && (!p.Found || s.value == p.Value) }
	expected := func(s linState) bool {
		switch o.Expect {
		case kvs.ExpectAbsent:
			return !s.found
		case kvs.ExpectValue:
			return s.found && s.value == o.ExpectValue
		}
		v, ok := version(pos, s.last)
		return ok && v == int64(o.ExpectVersion)
	}
	written := linState{found: p.Found, value: p.Value, last: i}
	switch o.Kind {
	case Get, Scan:
		return func(s linState) (bool, linState) { return reads(s), s }
	case Put:
		return func(linState) (bool, linState) { return true, written }
	case Delete:
		check := done && !o.FoundUnknown
		return func(s linState) (bool, linState) { return !check || s.found == o.Found, written }
	case CAS:
		written.value, written.found = o.Value, !o.Delete
		return func(s linState) (bool, linState) {
			switch e := expected(s); {
			case !done && e, done && o.Applied && e:
				return true, written
			case !done:
				return true, s
			}
			return !o.Applied && !expected(s) && reads(s), s
		}
	case Incr:
		return func(s linState) (bool, linState) {
			n, err := int64(0), error(nil)
			if s.found {
				n, err = strconv.ParseInt(s.value, 10, 64)
			}
			over := err == nil && (o.Delta > 0 && n > math.MaxInt64-o.Delta || o.Delta < 0 && n < math.MinInt64-o.Delta)
			next := linState{found: true, value: strconv.FormatInt(n+o.Delta, 10), last: i}
			switch {
			case !done && (err != nil || over):
				return true, s
			case !done:
				return true, next
			case o.Err == ErrNotInteger:
				return err != nil && reads(s), s
			case o.Err == ErrOverflow:
				return over && reads(s), s
			}
			return err == nil && !over && next.value == o.Ret, next
		}
	}
	return func(s linState) (bool, linState) { return false, s }
}

// searchKey decides key k by search and returns its violation or its
// undecided verdict, both nil when it is linearizable.
func (x *history) searchKey(k kvs.Key, pos []int64) (*Violation, *Unknown) {
	ops, why := x.searchOps(k, pos)
	if why != "" {
		return nil, &Unknown{Rule: RuleLinearizability, Message: fmt.Sprintf("key %s: %s", qk(k), why)}
	}
	strong := 0
	for _, o := range ops {
		if x.ops[o.part].Level == Strong && x.completed(o.part) {
			strong++
		}
	}
	if strong == 0 {
		return nil, nil
	}
	if logOrderLegal(ops, pos) {
		return nil, nil
	}
	withLast := false
	for _, i := range x.byKey[k] {
		withLast = withLast || x.cmds[x.ops[i].cmd].Expect == kvs.ExpectVersion
	}
	r := search(ops, withLast)
	switch {
	case r.legal:
		return nil, nil
	case r.undecided:
		return nil, &Unknown{Rule: RuleLinearizability, Message: fmt.Sprintf(
			"key %s: the search over its %d operations took more than %d steps; the checker cannot decide it", qk(k), len(ops), linBudget)}
	}
	msg := fmt.Sprintf("the strong operations on key %s are not linearizable: no order of its %d operations is legal", qk(k), len(ops))
	v := &Violation{Rule: RuleLinearizability}
	if r.stuck >= 0 {
		i := ops[r.stuck].part
		msg += fmt.Sprintf("; every order that respects real time gets stuck, after at most %d of them, before %s, which returned with no legal place left for it", r.best, x.describe(i))
		v.Ops = x.ids(i)
	}
	v.Message = msg + "; strong operations must appear to take effect in one order that respects real time and in which each returns what the key held (PROTOCOL.md 2.3 LIN-RT, LIN-LEGAL)"
	return v, nil
}
