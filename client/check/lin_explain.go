package check

import (
	"cmp"
	"fmt"
	"slices"
)

// explainLin looks for two simple patterns that make a key's operations
// non-linearizable, in terms of the same windows porcupine was given, so
// that a failure can be reported in words (and so that such a failure is
// still reported when the search itself times out). Each instance on its
// own rules out every legal order:
//
//   - Stale read: get r reads w, and a put s has ret(w) < call(s) and
//     ret(s) < call(r), so s sits between w and r in every order
//     (PROTOCOL.md 2.6 item 4, first clause).
//   - Reads going back: gets r1, r2 with ret(r1) < call(r2) read w1 and w2,
//     and ret(w2) < call(w1): every order has w2 < w1 < r1 < r2, so r2
//     cannot return w2's value (2.6 item 4, third clause).
//
// Both are swept in O(n log n). It returns one message per instance and the
// operations of the first.
func (x *history) explainLin(lops []linOp) ([]string, []OpID) {
	win := map[int32]linOp{}
	var puts, reads []linOp
	for _, lo := range lops {
		if x.isPut(lo.op) {
			win[lo.op] = lo
			if lo.ret != inf {
				puts = append(puts, lo)
			}
		} else {
			reads = append(reads, lo)
		}
	}
	// srcRet is ret(w) for the source w of read r; negInf for w0.
	srcRet := func(r linOp) int64 {
		if w := x.src[r.op]; w >= 0 {
			return win[w].ret
		}
		return negInf
	}
	byRet := func(a, b linOp) int { return cmp.Compare(a.ret, b.ret) }
	slices.SortFunc(puts, byRet)
	readsByRet := slices.Clone(reads)
	slices.SortFunc(readsByRet, byRet)
	slices.SortFunc(reads, func(a, b linOp) int { return cmp.Compare(a.call, b.call) })

	var msgs []string
	var first []OpID
	note := func(msg string, ops []OpID) {
		if first == nil {
			first = ops
		}
		msgs = append(msgs, msg)
	}
	lastPut, lastSrc := noLatest, noLatest // max call(s) with its s; max call(src(r1)) with its r1
	nextPut, nextRead := 0, 0
	for _, r := range reads {
		for ; nextPut < len(puts) && puts[nextPut].ret < r.call; nextPut++ {
			lastPut.offer(puts[nextPut].call, puts[nextPut].op)
		}
		for ; nextRead < len(readsByRet) && readsByRet[nextRead].ret < r.call; nextRead++ {
			r1 := readsByRet[nextRead]
			if w1 := x.src[r1.op]; w1 >= 0 {
				lastSrc.offer(win[w1].call, r1.op)
			}
		}
		wRet := srcRet(r)
		if wRet == inf {
			continue // a source without an upper bound can move past anything
		}
		w := x.src[r.op]
		if lastPut.op >= 0 && lastPut.rank > wRet {
			s := win[lastPut.op]
			why := x.endPhrase(s) + " before the get was invoked"
			if w >= 0 {
				why = fmt.Sprintf("%s before %s, and %s", x.endPhrase(win[w]), x.startPhrase(s), why)
			}
			note(fmt.Sprintf("%s read from %s, but %s must be ordered between that write and the get because %s",
				x.describe(r.op), x.describeSrc(w), x.describe(s.op), why),
				x.ids(r.op, s.op, w))
		}
		if lastSrc.op >= 0 && lastSrc.rank > wRet {
			r1 := lastSrc.op
			w1 := win[x.src[r1]]
			why := ""
			if w >= 0 {
				why = fmt.Sprintf(", which must be ordered after %v because %s before %s",
					x.ops[w].ID(), x.endPhrase(win[w]), x.startPhrase(w1))
			}
			note(fmt.Sprintf("%s read from %s, but %s, which completed before that get was invoked, had already read from %s%s; reads cannot go back to an older value",
				x.describe(r.op), x.describeSrc(w), x.describe(r1), x.describe(w1.op), why),
				x.ids(r.op, r1, w, w1.op))
		}
	}
	return msgs, first
}

// endPhrase says why a put is ordered before ret(lo): it completed, or a
// strong get read it and completed.
func (x *history) endPhrase(lo linOp) string {
	if lo.retBy == lo.op {
		return fmt.Sprintf("%v completed at %d", x.ops[lo.op].ID(), lo.ret)
	}
	return fmt.Sprintf("%v was read by %v, which completed at %d", x.ops[lo.op].ID(), x.ops[lo.retBy].ID(), lo.ret)
}

// startPhrase says why a put need not be ordered before call(lo): it, or
// its earliest strong reader, was invoked then.
func (x *history) startPhrase(lo linOp) string {
	if lo.callBy == lo.op {
		return fmt.Sprintf("%v was invoked at %d", x.ops[lo.op].ID(), lo.call)
	}
	return fmt.Sprintf("%v and all strong gets of it were invoked at or after %d", x.ops[lo.op].ID(), lo.call)
}
