package check

import (
	"cmp"
	"container/heap"
	"slices"
)

// The causal order hb = (so ∪ rf)+ of PROTOCOL.md section 2.2 is never
// materialised: its closure over 200,000 operations and 400 sessions would
// hold billions of pairs. Instead one sweep visits the operations once, in
// an order in which every operation comes after its causal past, and
// describes the causal past past(o) = {p : p hb o} of each one compactly
// (a clock). The immediate predecessors of o in hb are its
// so-predecessors and, for a get, its source, so
//
//	past(o) = ∪ {past(p) ∪ {p} : p so o}  ∪  past(w) ∪ {w}  (if w rf o).
//
// Representation. past(o) is closed under so-predecessors (q so p hb o
// implies q hb o). Each session's completed operations are split into
// lanes, chains of so in which every operation is so-after the previous
// one (greedily, by invocation; a session without pipelining has one
// lane); a pending put that some get read has a lane of its own, and any
// other pending operation is in nobody's past (it has no so-successor and
// no reader). A set closed under so-predecessors meets a lane in a prefix,
// so a causal past is exactly a vector t of prefix lengths, one per lane:
// a clock. Union is the componentwise maximum.
//
// Order. Each session's invocations and responses are visited in time
// order, invocations first at equal instants, so the response of p comes
// before the invocation of o exactly when p so o. A session's frontier,
// the union of past(p) ∪ {p} over its responded operations, is therefore
// the so-part of past(o) when o is invoked: that is past(o) for a put, and
// the clock is kept (shared copy-on-write) for its readers. A get's
// response waits until its source has been invoked (the rf edge), then
// adds past(w) ∪ {w} to the frontier. Sessions advance in global time
// order; a waiting session is resumed when its source is invoked.
//
// Cycles. Visiting is stuck exactly when hb has a cycle. The waits are
// edges from the invocation of w to the response of its reader r; within a
// session, a path from the response of r to the invocation of w' means r
// so w'. So a stuck set of sessions, each waiting for a put behind another
// one's wait, is a cycle w1 rf r1 so w2 rf r2 ... so w1; conversely every
// hb cycle has this form, since so is transitive and rf edges end at gets.
// The cycle is reported (cc-acyclic), one of its rf edges is ignored, and
// the visit goes on. Without reads from the future, inv(w) <= resp(r) <
// inv(w') along such a cycle would increase strictly, so there is no
// cycle.
//
// Rules. With the clocks:
//
//   - cc-vis: the puts of key(r) in past(r) are, per lane, a prefix of the
//     lane's puts to that key, whose running maximum by log position is
//     precomputed; the latest of them is compared with r's source. When
//     fewer puts of the key are newer than the source than lanes write the
//     key (the usual case: gets return recent values), each newer put is
//     instead tested for membership, O(1) each.
//   - cc-arb and c3: the latest put by log position and some put missing
//     from the log are joins over a set (max, any), so every clock carries
//     them and a union combines them: past(w2) gives cc-arb for w2 and
//     past(w) the causal-past clause of C3, in O(1).

// notInLog is the position of an operation missing from the reference log.
const notInLog = negInf

// event is an invocation or a response of op, at instant at.
type event struct {
	at  int64
	op  int32
	end bool
}

// sweep visits the history in a topological order of hb and calls the
// rules with each operation's causal past.
type sweep struct {
	x     *history
	ss    *sessions
	pos   []int64 // op -> reference log position, notInLog; nil without logs
	rules *causalRules

	events  [][]event // session -> its invocations and responses, in time order
	next    []int     // session -> index of its next event
	fr      []*clock  // session -> causal past of its completed ops (frontier)
	snap    []*clock  // put -> its causal past at invocation, while readers need it
	need    []int32   // put -> readers that still need snap
	base    []*clock  // read -> its session's frontier at its invocation
	invoked []bool
	dropped []bool // read -> its rf edge was ignored to break a cycle

	ready     sessionHeap
	blockedOn []int32 // session -> the put its next response waits for, or -1
	waiting   map[int32][]int32
}

// needsSnap reports whether read r must merge its source's snapshot: it
// does unless the source is a put of its own session that completed
// before r was invoked, and so is already in r's frontier.
func (s *sweep) needsSnap(r int32) bool {
	w := s.x.src[r]
	if w < 0 {
		return false
	}
	return s.ss.of[w] != s.ss.of[r] || s.x.end[w] >= s.x.ops[r].InvokeNS
}

func newSweep(x *history, ss *sessions, pos []int64, rules *causalRules) *sweep {
	n := len(x.ops)
	s := &sweep{
		x: x, ss: ss, pos: pos, rules: rules,
		events: make([][]event, len(ss.names)), next: make([]int, len(ss.names)),
		fr: make([]*clock, len(ss.names)), snap: make([]*clock, n), need: make([]int32, n),
		base: make([]*clock, n), invoked: make([]bool, n), dropped: make([]bool, n),
		blockedOn: make([]int32, len(ss.names)), waiting: map[int32][]int32{},
	}
	for u, ops := range ss.byEnd {
		evs := make([]event, 0, 2*len(ops))
		for _, o := range ops {
			evs = append(evs, event{at: x.ops[o].InvokeNS, op: o})
			if x.completed(o) {
				evs = append(evs, event{at: x.end[o], op: o, end: true})
			}
		}
		// At equal instants invocations go first: so needs resp(a) < inv(b).
		slices.SortFunc(evs, func(a, b event) int {
			return cmp.Or(cmp.Compare(a.at, b.at), cmpBool(a.end, b.end), cmp.Compare(a.op, b.op))
		})
		s.events[u] = evs
		s.fr[u] = newClock(ss.lanes)
		s.blockedOn[u] = -1
	}
	for r := int32(0); int(r) < n; r++ {
		if x.isRead(r) && s.needsSnap(r) {
			s.need[x.src[r]]++
		}
	}
	return s
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// run processes every event. Sessions advance in the global order of their
// next events; a response of a read waits for its source's invocation
// (the rf edge). When every remaining session waits, hb has a cycle:
// run reports it and ignores one rf edge of it.
func (s *sweep) run() {
	for u := range s.events {
		s.push(int32(u))
	}
	blocked := 0
	for {
		if s.ready.Len() == 0 {
			if blocked == 0 {
				return
			}
			s.breakCycle()
			blocked--
			continue
		}
		u := heap.Pop(&s.ready).(sessionHead).session
		ev := s.events[u][s.next[u]]
		if ev.end && s.x.isRead(ev.op) && s.x.src[ev.op] >= 0 && !s.dropped[ev.op] && !s.invoked[s.x.src[ev.op]] {
			w := s.x.src[ev.op]
			s.blockedOn[u] = w
			s.waiting[w] = append(s.waiting[w], u)
			blocked++
			continue
		}
		if ev.end {
			s.complete(u, ev.op)
		} else {
			s.invoke(u, ev.op)
			for _, v := range s.waiting[ev.op] {
				if s.blockedOn[v] == ev.op {
					s.blockedOn[v] = -1
					blocked--
					s.push(v)
				}
			}
			delete(s.waiting, ev.op)
		}
		s.next[u]++
		s.push(u)
	}
}

func (s *sweep) push(u int32) {
	if s.next[u] < len(s.events[u]) {
		e := s.events[u][s.next[u]]
		heap.Push(&s.ready, sessionHead{e, u})
	}
}

func (s *sweep) invoke(u int32, o int32) {
	s.invoked[o] = true
	f := s.fr[u] // the causal past of o: its so-predecessors and theirs
	if s.x.isPut(o) {
		s.rules.onPut(o, f)
		if s.need[o] > 0 {
			s.snap[o] = f.ref()
		}
	} else if s.x.completed(o) && s.x.knownSource(o) {
		s.base[o] = f.ref()
	}
}

// mutable returns session u's frontier, copying it first if shared.
func (s *sweep) mutable(u int32) *clock {
	if f := s.fr[u]; f.refs > 1 {
		f.release()
		s.fr[u] = f.clone()
	}
	return s.fr[u]
}

func (s *sweep) complete(u int32, o int32) {
	if s.x.isRead(o) && s.x.knownSource(o) {
		w := s.x.src[o]
		var sw *clock // the source's causal past, when not in base already
		counted := s.needsSnap(o)
		if counted && !s.dropped[o] {
			sw = s.snap[w]
		}
		s.rules.onRead(o, s.base[o], sw)
		s.base[o].release() // first, so that an unshared frontier is updated in place
		s.base[o] = nil
		f := s.mutable(u)
		if sw != nil {
			s.join(f, sw)
		}
		if w >= 0 && !s.dropped[o] {
			s.add(f, w)
		}
		if counted {
			if s.need[w]--; s.need[w] == 0 && s.snap[w] != nil {
				s.snap[w].release()
				s.snap[w] = nil
			}
		}
	}
	s.add(s.mutable(u), o)
}

// breakCycle is called when every unfinished session waits for a put not
// yet invoked. Following the waits from the first waiting session must
// revisit a session: session u waits at read r for put w of session v,
// and v waits at read r' whose response precedes inv(w), so r' so w rf r.
// The sessions between the two visits form an hb cycle; the rf edge of
// the read the cycle closes at is ignored from then on.
func (s *sweep) breakCycle() {
	u := int32(slices.IndexFunc(s.blockedOn, func(w int32) bool { return w >= 0 }))
	seen := map[int32]int{}
	var order []int32
	for {
		if _, ok := seen[u]; ok {
			break
		}
		seen[u] = len(order)
		order = append(order, u)
		u = s.ss.of[s.blockedOn[u]]
	}
	loop := order[seen[u]:]
	head := func(v int32) int32 { return s.events[v][s.next[v]].op }
	// hb order: r_1 so w_m rf r_m so ... w_1 rf r_1, where r_i is the
	// read session loop[i-1] waits at and w_i its source.
	chain := []int32{head(loop[0])}
	for i := len(loop) - 1; i >= 0; i-- {
		r := head(loop[i])
		chain = append(chain, s.x.src[r], r)
	}
	s.rules.onCycle(chain)
	r := head(loop[0])
	s.dropped[r] = true
	w := s.blockedOn[loop[0]]
	s.blockedOn[loop[0]] = -1
	s.waiting[w] = slices.DeleteFunc(s.waiting[w], func(v int32) bool { return v == loop[0] })
	s.push(loop[0])
}

// sessionHead is a session in the ready heap, keyed by its next event.
type sessionHead struct {
	e       event
	session int32
}

type sessionHeap []sessionHead

func (h sessionHeap) Len() int { return len(h) }
func (h sessionHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	return cmp.Or(cmp.Compare(a.e.at, b.e.at), cmpBool(a.e.end, b.e.end), cmp.Compare(a.session, b.session)) < 0
}
func (h sessionHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *sessionHeap) Push(v any)   { *h = append(*h, v.(sessionHead)) }
func (h *sessionHeap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}
