package replica

import (
	"math"
	"slices"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// waitingRead is a weak read parked until appliedIndex reaches its minimum
// slot (the read frontier, PROTOCOL.md 4.5-4.6, and the view start, 6.5).
// min is recomputed whenever the ballot or the known view start changes:
// it is a slot number of the ballot the read is judged in.
type waitingRead struct {
	from  wire.ClientID
	req   *wire.WeakRead
	min   kvs.Slot
	since int64
}

// unservable is the minimum slot of a read that must wait for the view
// start of the current ballot, which this replica does not know yet.
const unservable = kvs.Slot(math.MaxUint64)

// readMin is the applied index a weak read needs (PROTOCOL.md 6.5): its
// MinSlot, and, when it carries an older ballot than this replica's, the
// end of the current view's replay block (docs/DECISIONS.md 2). Without
// that view start (a new ballot whose leader has not finished recovery, or
// whose no-op has not reached this replica) the read must wait: what it
// could see now may lie inside the replay block.
func (c *Core) readMin(r *wire.WeakRead) kvs.Slot {
	if r.Ballot >= c.ballot {
		return r.MinSlot
	}
	if c.viewBallot != c.ballot {
		return unservable
	}
	return max(r.MinSlot, c.viewStart-1)
}

func (c *Core) onWeakRead(from wire.ClientID, r *wire.WeakRead) {
	if r.Ballot > c.ballot || !c.member {
		// This replica has not joined the client's view yet.
		c.out.toClient(from, &wire.WeakReadReply{Replica: c.o.ID, Ballot: c.ballot, Cmd: r.Cmd, Attempt: r.Attempt, Retry: true})
		return
	}
	min := c.readMin(r)
	if c.appliedIndex >= min {
		c.answerRead(from, r)
		return
	}
	c.parkRead(waitingRead{from: from, req: r, min: min, since: c.o.Now()})
}

// parkRead inserts w keeping the parked reads sorted by minimum slot.
func (c *Core) parkRead(w waitingRead) {
	i, _ := slices.BinarySearchFunc(c.reads, w.min, func(x waitingRead, m kvs.Slot) int {
		if x.min <= m {
			return -1
		}
		return 1
	})
	c.reads = slices.Insert(c.reads, i, w)
}

func (c *Core) answerRead(to wire.ClientID, r *wire.WeakRead) {
	res := c.store.Read(r.Command)
	if c.o.ReadAnswered != nil {
		c.o.ReadAnswered(&r.Command)
	}
	c.out.toClient(to, &wire.WeakReadReply{
		Replica: c.o.ID, Ballot: c.ballot, Cmd: r.Cmd, Attempt: r.Attempt,
		Result: res, AppliedIndex: c.appliedIndex,
		WeakApplied: c.WeakCommittedSeq(r.Cmd.Client),
	})
}

// releaseReads answers the parked reads whose minimum slot is applied.
func (c *Core) releaseReads() {
	n := 0
	for n < len(c.reads) && c.reads[n].min <= c.appliedIndex {
		c.answerRead(c.reads[n].from, c.reads[n].req)
		n++
	}
	if n > 0 {
		clear(c.reads[:n])
		c.reads = c.reads[n:]
	}
}

// viewChanged re-judges every parked read after the ballot or the known
// view start changed (PROTOCOL.md 6.5): a minimum computed in an older
// ballot's numbering may lie inside the new view's replay block.
func (c *Core) viewChanged() {
	for i := range c.reads {
		c.reads[i].min = c.readMin(c.reads[i].req)
	}
	slices.SortStableFunc(c.reads, func(a, b waitingRead) int {
		switch {
		case a.min < b.min:
			return -1
		case a.min > b.min:
			return 1
		}
		return 0
	})
	c.releaseReads()
}

// learnViewStart records the view start of the current ballot, from the
// leader's recovery, a NewView or the ballot's no-op in the log.
func (c *Core) learnViewStart(b wire.Ballot, start kvs.Slot) {
	if b != c.ballot || start == 0 || c.viewBallot == b && c.viewStart >= start {
		return
	}
	c.viewBallot, c.viewStart = b, start
	c.viewChanged()
}

// expireReads tells clients whose reads waited too long to retry
// elsewhere (PROTOCOL.md 4.5 step 2).
func (c *Core) expireReads(now int64) {
	keep := c.reads[:0]
	for _, w := range c.reads {
		if now-w.since >= int64(c.o.ReadWait) {
			c.out.toClient(w.from, &wire.WeakReadReply{Replica: c.o.ID, Ballot: c.ballot, Cmd: w.req.Cmd, Attempt: w.req.Attempt, Retry: true})
			continue
		}
		keep = append(keep, w)
	}
	clear(c.reads[len(keep):])
	c.reads = keep
}
