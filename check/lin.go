package check

import (
	"fmt"
	"hash/maphash"
	"sync"
	"sync/atomic"

	"github.com/anishathalye/porcupine"

	"swiftpaxos/kvs"
)

// Linearizability of strong operations, one key at a time (PROTOCOL.md
// section 2.3, LIN-RT and LIN-LEGAL restricted to one key; a register
// history is linearizable iff each key's is). doc.go explains which
// operations take part and with which time windows; lin_zones.go decides
// exactly; porcupine, through the model below, only renders a violation.

// linInput is the porcupine input of one register operation.
type linInput struct {
	put   bool
	value string // put: written value
}

var stateSeed = maphash.MakeSeed()

// registerModel is a single register (one key) whose state is its value.
// x only serves to describe operations in visualizations.
func registerModel(x *history) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return "" },
		Step: func(state, input, output any) (bool, any) {
			in := input.(linInput)
			if in.put {
				return true, in.value
			}
			return output.(string) == state.(string), state
		},
		Hash: func(state any) uint64 { return maphash.String(stateSeed, state.(string)) },
		DescribeOperation: func(input, output any) string {
			if in := input.(linInput); in.put {
				return fmt.Sprintf("put(%q)", in.value)
			}
			return "get() -> " + describeValue(output.(string))
		},
		DescribeState:             func(state any) string { return describeValue(state.(string)) },
		DescribeOperationMetadata: func(info any) string { return x.describe(info.(int32)) },
	}
}

func describeValue(v string) string {
	if v == "" {
		return "NIL"
	}
	return fmt.Sprintf("%q", v)
}

// linOp is one operation of a key's linearizability check with its window
// [call, ret] (see doc.go, "Linearizability"). callBy and retBy
// name the operation whose instant defines each end: op itself, or for a
// put without a strong window, one of its strong readers.
type linOp struct {
	op            int32
	call, ret     int64
	callBy, retBy int32
}

// linOps selects the operations of key k that take part, with their
// windows, or nil if the key has no strong read (a register with only
// writes is always linearizable).
//
//   - A completed strong operation has its real window [inv, resp].
//   - A strong put that never returned takes part only if a completed
//     strong get read it (an unread one could always be ordered last);
//     its window is [inv(w), min resp(r)] over its strong readers r.
//   - A weak put takes part only if a completed strong get read it; its
//     window is [min(inv(w), inv(r)), min resp(r)] over its strong readers
//     r: it must precede each reader, and, not being ordered by real time,
//     need not follow anything a reader does not.
//
// These windows impose only orderings that every valid order has. They
// are not w's own [inv, resp] for the last two kinds, because HYB does not
// order weak operations by real time (LIN-RT covers strong pairs only): a
// weak put acknowledged at t=1 may legally be missed by a strong get
// invoked at t=2 and seen by one at t=4 (CURP-HO acknowledges weak writes
// before the leader orders them). Using resp(w) would report that as a
// violation. If ret(a) < call(b), then
//
//   - a, b both strong completed: a rt b, so a before b (LIN-RT);
//   - b is a pending strong put, a strong: a rt b (LIN-RT; b is in the
//     order since it was read);
//   - b is a weak put w, a strong: a rt r for all of w's strong readers r,
//     so a precedes them all; were a after w, it would lie between w and a
//     reader with no put in between, so a would be a strong reader of w
//     itself, and call(w) <= inv(a) <= resp(a), a contradiction;
//   - a is a put w of the last two kinds: its reader r with the least resp
//     has r rt b (b strong) or r before every reader of b (b a put of the
//     last two kinds, then b is after w, or w would separate b from its
//     readers); w precedes r, so w precedes b.
//
// Such a put's window ends at its first strong reader's response rather
// than at +infinity; the decision is the same either way (its cluster's
// least ret is a reader's), and porcupine, which renders violations, has
// less to search.
func (x *history) linOps(k kvs.Key) []linOp {
	var out []linOp
	reads := 0
	readOnly := map[int32]linOp{} // puts without a strong window
	for _, i := range x.byKey[k] {
		if !x.strong(i) || !x.completed(i) || (x.isRead(i) && x.src[i] == srcNone) {
			continue
		}
		out = append(out, linOp{i, x.ops[i].InvokeNS, x.end[i], i, i})
		if x.isPut(i) {
			continue
		}
		reads++
		w := x.src[i]
		if w < 0 || (x.strong(w) && x.completed(w)) {
			continue
		}
		lo, ok := readOnly[w]
		if !ok {
			lo = linOp{w, x.ops[w].InvokeNS, inf, w, -1}
		}
		if inv := x.ops[i].InvokeNS; inv < lo.call && !x.strong(w) {
			lo.call, lo.callBy = inv, i
		}
		if x.end[i] < lo.ret {
			lo.ret, lo.retBy = x.end[i], i
		}
		readOnly[w] = lo
	}
	if reads == 0 {
		return nil
	}
	for _, i := range x.byKey[k] { // history order keeps the output deterministic
		if lo, ok := readOnly[i]; ok {
			out = append(out, lo)
		}
	}
	return out
}

// checkLinearizability decides every key with a strong read,
// opts.Parallelism keys at a time, and reports in key order.
func checkLinearizability(x *history, pos []int64, opts Options, c *collector) {
	model := registerModel(x)
	results := make([]*Violation, len(x.keys))
	unknown := make([]*Unknown, len(x.keys))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range opts.Parallelism {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n := int(next.Add(1) - 1)
				if n >= len(x.keys) {
					return
				}
				if k := x.keys[n]; x.needsSearch(k) {
					results[n], unknown[n] = x.searchKey(k, pos)
				} else {
					results[n] = x.checkKey(model, k, opts)
				}
			}
		}()
	}
	wg.Wait()
	for n, v := range results {
		if v != nil {
			c.add(*v)
		}
		if u := unknown[n]; u != nil {
			c.unknown = append(c.unknown, *u)
		}
	}
}

// checkKey decides key k exactly (decideLin) and, if it is not
// linearizable, describes the first conflict and renders it with
// porcupine when opts.VisualizeDir is set.
func (x *history) checkKey(model porcupine.Model, k kvs.Key, opts Options) *Violation {
	lops := x.linOps(k)
	if lops == nil {
		return nil
	}
	conflicts := x.decideLin(lops)
	if len(conflicts) == 0 {
		return nil
	}
	why, ops := x.explainConflict(lops, conflicts[0])
	msg := fmt.Sprintf("the strong operations on key %s are not linearizable: %s", qk(k), why)
	if more := len(conflicts) - 1; more > 0 {
		msg += fmt.Sprintf(" (and %d more conflict(s) on this key)", more)
	}
	msg += "; strong operations must appear to take effect in one order that respects real time and in which every get returns the latest put (PROTOCOL.md 2.3 LIN-RT, LIN-LEGAL)"
	v := &Violation{Rule: RuleLinearizability, Ops: ops}
	if opts.VisualizeDir != "" {
		path, err := x.visualize(model, lops, conflicts[0], opts.VisualizeDir, k)
		if err != nil {
			msg += fmt.Sprintf("; visualization not written: %v", err)
		} else {
			v.Visualization = path
			msg += "; visualization: " + path
		}
	}
	v.Message = msg
	return v
}
