package check

import (
	"cmp"
	"fmt"
	"slices"
)

// The log-order rules for strong reads (PROTOCOL.md section 2.6 item 4):
// a completed strong get r of key k with source w, against the order <A
// of k's puts in the reference log, as opposed to the order a
// linearizability decision is free to choose:
//
//	a. no completed strong put s of k with s rt r has w <A s;
//	b. w was invoked before resp(r) (read-from-future says so);
//	c. strong gets r1 rt r2 of k have src(r1) <=A src(r2);
//	d. every strong put s of k with r rt s has w <A s.
//
// Comparisons where a position is unknown are skipped: a source or put
// missing from the log is reported by durability, C1 or C3. Each clause
// is a sweep per key over sorted lists, O(n log n), and each get is
// reported at most once (the first clause it breaks). Gets that
// read-your-writes or monotonic reads flagged are not repeated: those are
// clauses a and c for a put or get of the reader's own session.

// readOrderFind is the operation that breaks a clause for a get, with
// the log position that does; op -1 means none.
type readOrderFind struct {
	pos int64
	op  int32
}

var noFind = readOrderFind{op: -1}

// checkStrongReadOrder checks clauses a, c and d for every key; it needs
// the logs.
func checkStrongReadOrder(x *history, l *logIndex, pos []int64, c *collector) {
	for _, k := range x.keys {
		var reads, puts []int32
		for _, i := range x.byKey[k] {
			switch {
			case !x.strong(i):
			case x.isPut(i) && pos[i] != notInLog:
				puts = append(puts, i)
			case x.isRead(i) && x.completed(i) && x.srcPos(pos, i) != notInLog:
				reads = append(reads, i)
			}
		}
		if len(reads) > 0 {
			checkKeyReadOrder(x, l, pos, reads, puts, c)
		}
	}
}

// srcPos is the log position of read r's source: -1 for the initial NIL
// (it precedes every slot), notInLog if unknown.
func (x *history) srcPos(pos []int64, r int32) int64 {
	switch w := x.src[r]; {
	case w == srcNil:
		return -1
	case w >= 0:
		return pos[w]
	}
	return notInLog
}

func checkKeyReadOrder(x *history, l *logIndex, pos []int64, reads, puts []int32, c *collector) {
	byInv := func(a, b int32) int {
		return cmp.Or(cmp.Compare(x.ops[a].InvokeNS, x.ops[b].InvokeNS), cmp.Compare(a, b))
	}
	byEnd := func(a, b int32) int { return cmp.Or(cmp.Compare(x.end[a], x.end[b]), cmp.Compare(a, b)) }
	readsByInv := slices.SortedFunc(slices.Values(reads), byInv)
	readsByEnd := slices.SortedFunc(slices.Values(reads), byEnd)
	putsByInv := slices.SortedFunc(slices.Values(puts), byInv)
	var done []int32 // completed puts by response
	for _, s := range puts {
		if x.completed(s) {
			done = append(done, s)
		}
	}
	slices.SortFunc(done, byEnd)

	// d: the earliest-positioned put invoked after r returned.
	preceded := make(map[int32]readOrderFind, len(reads))
	firstPut := noFind
	next := len(putsByInv) - 1
	for i := len(readsByEnd) - 1; i >= 0; i-- {
		r := readsByEnd[i]
		for ; next >= 0 && x.ops[putsByInv[next]].InvokeNS > x.end[r]; next-- {
			if s := putsByInv[next]; firstPut.op < 0 || pos[s] < firstPut.pos {
				firstPut = readOrderFind{pos[s], s}
			}
		}
		preceded[r] = firstPut
	}
	// a: the latest-positioned completed put that returned before r was
	// invoked; c: the get with the latest-positioned source among those
	// that returned before r was invoked.
	lastPut, lastSrc := noFind, noFind
	nextPut, nextRead := 0, 0
	for _, r := range readsByInv {
		inv := x.ops[r].InvokeNS
		for ; nextPut < len(done) && x.end[done[nextPut]] < inv; nextPut++ {
			if s := done[nextPut]; lastPut.op < 0 || pos[s] > lastPut.pos {
				lastPut = readOrderFind{pos[s], s}
			}
		}
		for ; nextRead < len(readsByEnd) && x.end[readsByEnd[nextRead]] < inv; nextRead++ {
			if r1 := readsByEnd[nextRead]; lastSrc.op < 0 || x.srcPos(pos, r1) > lastSrc.pos {
				lastSrc = readOrderFind{x.srcPos(pos, r1), r1}
			}
		}
		if c.flagged[r] {
			continue
		}
		pw := x.srcPos(pos, r)
		switch d := preceded[r]; {
		case lastPut.op >= 0 && lastPut.pos > pw:
			reportReadOrder(x, l, r, lastPut.op, fmt.Sprintf("%s completed before the get was invoked and follows that write in %s (%s, then slot %d); "+
				"a strong read must not return a value that a strong write of its key completed before the read was invoked has overwritten in the log",
				x.describe(lastPut.op), l.ref, slotOf(x, x.src[r], pw), lastPut.pos), c)
		case lastSrc.op >= 0 && lastSrc.pos > pw:
			w1 := x.src[lastSrc.op]
			reportReadOrder(x, l, r, lastSrc.op, fmt.Sprintf("%s, which completed before the get was invoked, had read %s, which follows that write in %s (%s, then slot %d); "+
				"strong reads of a key that follow each other in real time must not go back in the log order",
				x.describe(lastSrc.op), x.describeSrc(w1), l.ref, slotOf(x, x.src[r], pw), lastSrc.pos), c, w1)
		case d.op >= 0 && d.pos < pw:
			reportReadOrder(x, l, r, d.op, fmt.Sprintf("%s, invoked after the get returned, precedes that write in %s (slot %d, then %s); "+
				"a strong read must not return a write ordered after a strong write of its key that was invoked after the read returned",
				x.describe(d.op), l.ref, d.pos, slotOf(x, x.src[r], pw)), c)
		}
	}
}

func reportReadOrder(x *history, l *logIndex, r, other int32, why string, c *collector, more ...int32) {
	c.add(Violation{
		Rule: RuleStrongReadOrder,
		Ops:  x.ids(append([]int32{r, other, x.src[r]}, more...)...),
		Message: fmt.Sprintf("%s read from %s, but %s (PROTOCOL.md 2.6 item 4)",
			x.describe(r), x.describeSrc(x.src[r]), why),
	})
}
