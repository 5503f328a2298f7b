package check

import (
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/anishathalye/porcupine"

	"swiftpaxos/kvs"
)

// Linearizability of strong operations, one key at a time (PROTOCOL.md
// section 2.3, LIN-RT and LIN-LEGAL restricted to one key; a register
// history is linearizable iff each key's is). doc.go explains which
// operations take part and with which time windows.

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
// doc.go shows why these windows only impose orderings that every valid
// order has.
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

type linResult struct {
	violation *Violation
	unknown   *Unknown
}

// checkLinearizability checks every key with a strong read, opts.Parallelism
// keys at a time, and reports in key order.
func checkLinearizability(x *history, opts Options, c *collector) {
	model := registerModel(x)
	results := make([]linResult, len(x.keys))
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
				results[n] = x.checkKey(model, x.keys[n], opts)
			}
		}()
	}
	wg.Wait()
	for _, r := range results {
		if r.violation != nil {
			c.add(*r.violation)
		}
		if r.unknown != nil {
			c.unknown = append(c.unknown, *r.unknown)
		}
	}
}

func (x *history) checkKey(model porcupine.Model, k kvs.Key, opts Options) linResult {
	lops := x.linOps(k)
	if lops == nil {
		return linResult{}
	}
	sessions := map[SessionID]int{}
	ops := make([]porcupine.Operation, len(lops))
	for j, lo := range lops {
		o := &x.ops[lo.op]
		client, ok := sessions[o.Session]
		if !ok {
			client = len(sessions)
			sessions[o.Session] = client
		}
		ops[j] = porcupine.Operation{
			ClientId: client,
			Input:    linInput{put: o.Kind == Put, value: o.Value},
			Output:   o.Value,
			Call:     lo.call,
			Return:   lo.ret,
			Metadata: lo.op,
		}
	}
	// A quick check first; the verbose one, which records partial
	// linearizations and costs more when the search backtracks, runs only
	// to explain a failure.
	res := porcupine.CheckOperationsTimeout(model, ops, opts.LinTimeout)
	if res == porcupine.Ok {
		return linResult{}
	}
	explanations, involved := x.explainLin(lops)
	if res == porcupine.Unknown && len(explanations) == 0 {
		return linResult{unknown: &Unknown{
			Rule: RuleLinearizability,
			Key:  k,
			Message: fmt.Sprintf("linearizability of the %d operations on key %d is undecided: the search ran out of its %v budget (Options.LinTimeout)",
				len(ops), k, opts.LinTimeout),
		}}
	}
	v := &Violation{Rule: RuleLinearizability, Ops: involved}
	var visErr error
	if res == porcupine.Illegal {
		vres, info := porcupine.CheckOperationsVerbose(model, ops, opts.LinTimeout)
		if vres == porcupine.Illegal {
			if len(explanations) == 0 {
				var e string
				e, v.Ops = x.explainPartial(info, lops)
				explanations = append(explanations, e)
			}
			if opts.VisualizeDir != "" {
				v.Visualization, visErr = visualize(model, info, opts.VisualizeDir, k)
			}
		}
	}
	if len(explanations) == 0 {
		explanations = []string{"the search found no legal order"}
	}
	msg := fmt.Sprintf("the strong operations on key %d are not linearizable: %s", k, explanations[0])
	if more := len(explanations) - 1; more > 0 {
		msg += fmt.Sprintf(" (and %d similar conflict(s) on this key)", more)
	}
	msg += "; strong operations must appear to take effect in one order that respects real time and in which every get returns the latest put (PROTOCOL.md 2.3 LIN-RT, LIN-LEGAL)"
	switch {
	case v.Visualization != "":
		msg += "; visualization: " + v.Visualization
	case visErr != nil:
		msg += fmt.Sprintf("; visualization not written: %v", visErr)
	}
	v.Message = msg
	return linResult{violation: v}
}

// visualize writes porcupine's rendering of key k and returns its path.
func visualize(model porcupine.Model, info porcupine.LinearizationInfo, dir string, k kvs.Key) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, fmt.Sprintf("linearizability-key-%d.html", k))
	if err := porcupine.VisualizePath(model, info, path); err != nil {
		return "", err
	}
	return path, nil
}

// explainPartial describes where porcupine's longest partial linearization
// stops: the first operation (by response) that no legal order could place.
func (x *history) explainPartial(info porcupine.LinearizationInfo, lops []linOp) (string, []OpID) {
	parts := info.PartialLinearizationsOperations()
	var longest []porcupine.Operation
	if len(parts) > 0 {
		for _, p := range parts[0] {
			if len(p) > len(longest) {
				longest = p
			}
		}
	}
	placed := map[int32]bool{}
	state := ""
	last := int32(-1)
	for _, o := range longest {
		i := o.Metadata.(int32)
		placed[i] = true
		last = i
		if in := o.Input.(linInput); in.put {
			state = in.value
		}
	}
	stuck, stuckRet := int32(-1), int64(inf)
	for _, lop := range lops {
		if !placed[lop.op] && (stuck < 0 || lop.ret < stuckRet) {
			stuck, stuckRet = lop.op, lop.ret
		}
	}
	if stuck < 0 {
		return "the search found no legal order", nil
	}
	prefix := "no operation can be placed first"
	if last >= 0 {
		prefix = fmt.Sprintf("the longest legal order places %d of the %d operations, ending with %s and leaving the value %s",
			len(longest), len(lops), x.describe(last), describeValue(state))
	}
	return fmt.Sprintf("%s; %s cannot be placed next without breaking real time or returning a value other than the latest put",
		prefix, x.describe(stuck)), x.ids(stuck, last)
}
