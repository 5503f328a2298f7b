package replica

import (
	"sort"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
)

// waitingRead is a weak read held until appliedIndex reaches its minimum
// slot (the read frontier, PROTOCOL.md 4.5-4.6).
type waitingRead struct {
	from  wire.ClientID
	req   *wire.WeakRead
	min   kvs.Slot
	since int64
}

func (c *Core) onWeakRead(from wire.ClientID, r *wire.WeakRead) {
	if r.Ballot > c.ballot {
		// This replica has not joined the client's view yet.
		c.o.Out.ToClient(from, &wire.WeakReadReply{Replica: c.o.ID, Ballot: c.ballot, Cmd: r.Cmd, Retry: true})
		return
	}
	min := r.MinSlot
	if r.Ballot < c.ballot && min < c.viewStart {
		min = c.viewStart - 1
	}
	if c.appliedIndex >= min {
		c.answerRead(from, r)
		return
	}
	w := waitingRead{from: from, req: r, min: min, since: c.o.Now()}
	i := sort.Search(len(c.reads), func(i int) bool { return c.reads[i].min > min })
	c.reads = append(c.reads, waitingRead{})
	copy(c.reads[i+1:], c.reads[i:])
	c.reads[i] = w
}

func (c *Core) answerRead(to wire.ClientID, r *wire.WeakRead) {
	res := c.store.Read(r.Command)
	own := r.Own > 0 && c.sessions.wasApplied(wire.CmdID{Client: r.Cmd.Client, Seq: r.Own})
	c.o.Out.ToClient(to, &wire.WeakReadReply{
		Replica: c.o.ID, Ballot: c.ballot, Cmd: r.Cmd,
		Result: res.Value, Version: res.Version, AppliedIndex: c.appliedIndex, OwnApplied: own,
	})
}

// releaseReads answers the held reads whose minimum slot is applied.
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

// expireReads tells clients whose reads waited too long to retry
// elsewhere (PROTOCOL.md 4.5 step 2).
func (c *Core) expireReads(now int64) {
	keep := c.reads[:0]
	for _, w := range c.reads {
		if now-w.since >= int64(c.o.ReadWait) {
			c.o.Out.ToClient(w.from, &wire.WeakReadReply{Replica: c.o.ID, Ballot: c.ballot, Cmd: w.req.Cmd, Retry: true})
			continue
		}
		keep = append(keep, w)
	}
	clear(c.reads[len(keep):])
	c.reads = keep
}

// orphanAge is how many WitnessSyncAge periods a record may outlive its
// client's last message before it is dropped.
const orphanAge = 10

// dropOrphanRecords drops records whose client has been silent for
// orphanAge flush periods. A live client keeps re-sending what it has not
// completed, and a completed command is in the log and leaves on apply
// long before; what remains belongs to a crashed client and can never be
// ordered (its barrier or chain predecessor may never come), so it must not
// block its key forever (PROTOCOL.md 3.4 rule 4).
func (c *Core) dropOrphanRecords(now int64) {
	limit := orphanAge * int64(c.o.WitnessSyncAge)
	var orphans []wire.CmdID
	for id, r := range c.wit.byCmd {
		if now-r.born < limit {
			continue
		}
		if s := c.sessions.peek(id.Client); s == nil || now-s.heard >= limit {
			orphans = append(orphans, id)
		}
	}
	for _, id := range orphans {
		c.wit.remove(id)
	}
}

// flushStaleRecords hands the leader the witness records that have not
// committed for WitnessSyncAge (PROTOCOL.md 3.4 rule 4). A record is sent
// again after another WitnessSyncAge in case the leader changed.
func (c *Core) flushStaleRecords(now int64) {
	if c.leader == wire.NoReplica || c.leader == c.o.ID {
		return
	}
	age := int64(c.o.WitnessSyncAge)
	var stale []*witnessRecord
	for _, r := range c.wit.byCmd {
		if now-r.created >= age {
			stale = append(stale, r)
		}
	}
	if len(stale) == 0 {
		return
	}
	sort.Slice(stale, func(i, j int) bool { return stale[i].Arrival < stale[j].Arrival })
	m := &wire.WitnessSync{Records: make([]wire.Record, len(stale))}
	for i, r := range stale {
		m.Records[i] = r.Record
		r.created = now
	}
	c.o.Out.ToReplica(c.leader, m)
}
