package replica

import (
	"cmp"
	"math"
	"slices"

	"swiftpaxos/config/quorum"
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// replicate sends every follower the entries it has not been sent yet and,
// when the commit index moved, a Commit (PROTOCOL.md 3.2). Entries are
// pipelined: sent[p] advances optimistically and is rewound by a rejection.
func (c *Core) replicate() {
	last := c.entries.last()
	// Followers that are level get the same Accept: one copy of the
	// entries, one message, whatever the number of followers.
	var shared *wire.Accept
	for p := range c.o.N {
		r := wire.ReplicaID(p)
		if r == c.o.ID {
			continue
		}
		if c.sent[p] < c.entries.base {
			// The follower needs compacted slots: it gets the snapshot,
			// and an empty Accept when a leadership round begins, which
			// it can answer meanwhile.
			if c.xfer[r] == nil {
				c.sendSnapshot(r)
			}
			if c.lr.due {
				c.out.toReplica(r, c.emptyAccept(p))
			}
			continue
		}
		sentSomething := false
		for c.sent[p] < last {
			prev := c.sent[p]
			m := shared
			if m == nil || m.PrevSlot != prev {
				pb, _ := c.entries.ballotAt(prev)
				// The log's own entries, which it never rewrites
				// (raftLog.slice): the message is encoded later, on
				// another goroutine.
				ents := c.entries.slice(prev+1, last, c.o.MaxBatch)
				m = &wire.Accept{
					Ballot: c.ballot, Leader: c.o.ID, PrevSlot: prev, PrevBallot: pb,
					Entries: ents, LeaderCommit: c.commitIndex, Round: c.lr.round, Life: c.incarnation,
				}
				if shared == nil {
					shared = m
				}
			}
			c.out.toReplica(r, m)
			c.sent[p] += kvs.Slot(len(m.Entries))
			sentSomething = true
		}
		switch {
		case sentSomething:
		case c.lr.due:
			// A leadership round begins (leaderread.go): an empty Accept,
			// which every follower answers, also carries the commit index.
			c.out.toReplica(r, c.emptyAccept(p))
		case c.commitIndex > c.commitSent:
			c.out.toReplica(r, &wire.Commit{Ballot: c.ballot, CommitIndex: c.commitIndex})
		}
	}
	c.commitSent = c.commitIndex
	c.lr.due = false
}

// emptyAccept is the Accept that carries no entries to follower p: a
// heartbeat, or the start of a leadership round. A follower that missed
// entries answers with a rejection that rewinds sent[p].
func (c *Core) emptyAccept(p int) *wire.Accept {
	prev := max(c.sent[p], c.entries.base)
	pb, _ := c.entries.ballotAt(prev)
	return &wire.Accept{
		Ballot: c.ballot, Leader: c.o.ID, PrevSlot: prev, PrevBallot: pb, LeaderCommit: c.commitIndex, Round: c.lr.round,
		Life: c.incarnation,
	}
}

// heartbeat sends an empty Accept to every follower.
func (c *Core) heartbeat() {
	for p := range c.o.N {
		r := wire.ReplicaID(p)
		if r == c.o.ID {
			continue
		}
		c.out.toReplica(r, c.emptyAccept(p))
		if x := c.xfer[r]; x != nil && c.o.Now()-x.sentAt >= 4*int64(c.o.HeartbeatInterval) {
			// A chunk or its ack was lost with a connection: start over.
			delete(c.xfer, r)
			c.sendSnapshot(r)
		}
	}
}

func (c *Core) onAcceptAck(from wire.ReplicaID, m *wire.AcceptAck) error {
	if m.Replica != from {
		return invalid("AcceptAck from replica %d names replica %d", from, m.Replica)
	}
	if m.Ballot > c.ballot {
		c.becomeFollower(m.Ballot, wire.NoReplica)
		return nil
	}
	if c.role != Leader || m.Ballot != c.ballot {
		return nil
	}
	p := m.Replica
	joined := c.learner[p] && !m.Learner
	c.learner[p], c.out.learner[p] = m.Learner, m.Learner
	if !m.Learner {
		c.foundingAck(p)
		c.noteRound(p, m.Round)
	}
	if !m.Success {
		// MatchSlot is the follower's hint of where its log may agree.
		if m.MatchSlot < c.sent[p] {
			c.sent[p] = max(m.MatchSlot, c.match[p])
		}
		return nil
	}
	if m.MatchSlot > c.match[p] || joined {
		// A follower that became a member counts with the copy it
		// acknowledged as a learner, although that copy did not move: in
		// one ballot a follower's log only grows, and a restart would
		// make it a learner again.
		c.match[p] = max(c.match[p], min(m.MatchSlot, c.entries.last()))
		c.advanceCommit()
	}
	return nil
}

// advanceCommit moves the commit index to the highest slot held by a
// majority whose entry is of the current ballot (PROTOCOL.md 3.2).
func (c *Core) advanceCommit() {
	// Only members' copies count: counting a learner could commit an
	// entry that no future election majority holds.
	cand, m, ok := heldByMajority(c.match, c.learner, c.scratchMatch)
	c.scratchMatch = m
	if !ok || cand <= c.commitIndex {
		return
	}
	if b, _ := c.entries.ballotAt(cand); b != c.ballot {
		return
	}
	for s := c.commitIndex + 1; s <= cand; s++ {
		if e := c.entries.at(s); c.answers(s, e) {
			c.policy.Committed(c, e)
		}
	}
	c.commitIndex = cand
	c.applyCommitted()
}

// heldByMajority is the largest value that a majority of the members
// hold (vals by replica), false when fewer members than a majority are
// left. A learner does not count: it restarted without its state and does
// not vote (PROTOCOL.md 6.10). scratch is reused and returned.
func heldByMajority[T cmp.Ordered](vals []T, learner []bool, scratch []T) (T, []T, bool) {
	m := scratch[:0]
	for p, v := range vals {
		if !learner[p] {
			m = append(m, v)
		}
	}
	majority := quorum.Majority(len(vals))
	if len(m) < majority {
		var none T
		return none, m, false
	}
	slices.Sort(m)
	return m[len(m)-majority], m, true
}

// answers reports whether the leader tells the client of the entry e at
// slot s that it committed or was applied (docs/DECISIONS.md 34). An
// entry below the view start (earlier views', and the replay block) whose
// session has declared it complete is answered to nobody: a leader that
// re-commits a long log (after a whole-cluster restart, from its snapshot
// on) would otherwise send its clients thousands of answers they no longer
// wait for, more than their connections' queues hold. Every entry from
// the view start on is answered: a tainted CURP-HO session waits for its
// read's answer although it declared the read complete.
func (c *Core) answers(s kvs.Slot, e *wire.Entry) bool {
	return s >= c.viewStart || c.sessions.awaited(e.Cmd)
}

// onAccept is the follower side of replication (PROTOCOL.md 3.2). The
// message is checked before it changes anything (checkAccept).
func (c *Core) onAccept(from wire.ReplicaID, m *wire.Accept) error {
	if err := c.checkAccept(from, m); err != nil {
		return err
	}
	if c.endedLife(from, m.Ballot, m.Life) {
		c.log.Info("ignored an Accept of an ended life", "from", int32(from), "life", m.Life, "latest", c.lives[from])
		return nil
	}
	if m.Ballot < c.ballot {
		c.out.toReplica(from, &wire.AcceptAck{Ballot: c.ballot, Replica: c.o.ID, Learner: !c.member, MatchSlot: c.entries.last()})
		return nil
	}
	if m.Ballot > c.ballot || c.role != Follower {
		c.becomeFollower(m.Ballot, m.Leader)
	}
	c.leader = m.Leader
	c.heardLeader()
	c.promise()
	prevSlot, prevBallot, ents := m.PrevSlot, m.PrevBallot, m.Entries
	if base := c.entries.base; prevSlot < base {
		// Slots up to base are committed and compacted here, and a
		// leader of this ballot holds them: skip its copies.
		skip := min(len(ents), int(base-prevSlot))
		if skip > 0 {
			prevBallot = ents[skip-1].Ballot
		}
		prevSlot, ents = prevSlot+kvs.Slot(skip), ents[skip:]
		if prevSlot < base {
			c.out.toReplica(from, &wire.AcceptAck{Ballot: c.ballot, Replica: c.o.ID, Learner: !c.member, Success: true, MatchSlot: prevSlot, Round: m.Round})
			c.followCommit(min(m.LeaderCommit, prevSlot))
			return nil
		}
	}
	pb, ok := c.entries.ballotAt(prevSlot)
	if !ok || pb != prevBallot {
		hint := c.entries.last()
		if ok {
			hint = min(c.commitIndex, prevSlot-1)
		}
		c.out.toReplica(from, &wire.AcceptAck{Ballot: c.ballot, Replica: c.o.ID, Learner: !c.member, MatchSlot: hint, Round: m.Round})
		return nil
	}
	truncated := false
	var viewNoop kvs.Slot
	for i := range ents {
		e := ents[i]
		e.Slot = prevSlot + kvs.Slot(i) + 1
		if isViewNoop(&e) && e.Ballot == c.ballot {
			viewNoop = e.Slot
		}
		if e.Slot <= c.entries.last() {
			if c.entries.at(e.Slot).Ballot == e.Ballot {
				continue
			}
			c.truncate(e.Slot)
			truncated = true
		}
		c.entries.append(e)
		c.cmdIndex[e.Cmd] = e.Slot
		if !truncated {
			c.keys.add(e.Slot, e.Command)
		}
	}
	if truncated {
		c.rebuildKeys()
	}
	if viewNoop > 0 {
		// The no-op that ends the ballot's replay block: the view starts
		// after it (PROTOCOL.md 6.5), whether or not the leader's NewView
		// arrives.
		c.learnViewStart(c.ballot, viewNoop+1)
	}
	lastNew := prevSlot + kvs.Slot(len(ents))
	c.matchedUpTo = max(c.matchedUpTo, lastNew)
	c.out.toReplica(from, &wire.AcceptAck{Ballot: c.ballot, Replica: c.o.ID, Learner: !c.member, Success: true, MatchSlot: lastNew, Round: m.Round})
	c.followCommit(min(m.LeaderCommit, lastNew))
	return nil
}

// checkAccept rejects an Accept that no correct leader sends: one naming
// another sender, one of this replica's own ballot while it leads it,
// entries that are not log entries (a command with no id, an invalid
// command, a ballot above the Accept's, ballots going down), slots past
// the end of the slot space, or, from a leader of this ballot or a later
// one, an entry that differs from a committed one here (such a leader's log
// holds every committed entry, PROTOCOL.md 6.2).
func (c *Core) checkAccept(from wire.ReplicaID, m *wire.Accept) error {
	if m.Leader != from {
		return invalid("Accept from replica %d names leader %d", from, m.Leader)
	}
	if err := c.checkLeader(from, m.Ballot); err != nil {
		return err
	}
	if m.PrevSlot > kvs.Slot(math.MaxUint64)-kvs.Slot(len(m.Entries)) {
		return invalid("Accept from replica %d runs past the last slot", from)
	}
	prev := m.PrevBallot
	for i := range m.Entries {
		e := &m.Entries[i]
		s := m.PrevSlot + kvs.Slot(i) + 1
		switch {
		case e.Ballot > m.Ballot:
			return invalid("Accept of ballot %d from replica %d carries an entry of ballot %d at slot %d", m.Ballot, from, e.Ballot, s)
		case e.Ballot < prev:
			return invalid("Accept from replica %d: ballots go down at slot %d", from, s)
		case !validEntry(e, c.o.Limits, c.o.Mutation.AcceptWeakRMW):
			return invalid("Accept from replica %d: slot %d holds no valid entry (%v %s)", from, s, e.Cmd, e.Command)
		}
		prev = e.Ballot
		// A deposed leader may still send what a newer ballot replaced;
		// a leader of this ballot or a later one holds every committed
		// entry.
		if m.Ballot >= c.ballot && s > c.entries.base && s <= c.commitIndex && s <= c.entries.last() {
			if have := c.entries.at(s); have.Ballot != e.Ballot || have.Cmd != e.Cmd {
				return invalid("Accept from replica %d replaces committed slot %d", from, s)
			}
		}
	}
	return nil
}

// checkLeader rejects a leader's message for ballot b from a replica that
// cannot lead b: ballot 0 is the initial leader's, and of the current
// ballot this replica may lead it or know another leader (one ballot has
// one leader, PROTOCOL.md 1.4).
func (c *Core) checkLeader(from wire.ReplicaID, b wire.Ballot) error {
	switch {
	case b == 0 && from != c.o.InitialLeader:
		return invalid("replica %d acts as leader of ballot 0, which replica %d leads", from, c.o.InitialLeader)
	case b != c.ballot:
		return nil
	case c.role == Leader:
		return invalid("replica %d acts as leader of ballot %d, which this replica leads", from, b)
	case c.leader != wire.NoReplica && c.leader != from:
		return invalid("replica %d acts as leader of ballot %d, which replica %d leads", from, b, c.leader)
	}
	return nil
}

func (c *Core) onCommit(from wire.ReplicaID, m *wire.Commit) {
	if m.Ballot != c.ballot || c.role != Follower || from != c.leader {
		return
	}
	c.followCommit(min(m.CommitIndex, c.matchedUpTo))
}

func (c *Core) followCommit(s kvs.Slot) {
	if s > c.commitIndex {
		c.commitIndex = min(s, c.entries.last())
		c.applyCommitted()
	}
	// The first entries of a ballot are its leader's replays and no-op;
	// once an entry of the current ballot is committed, so is the view
	// start, and older witness records can go (PROTOCOL.md 6.3 step 6)
	// even if the leader's NewView{Committed} was lost.
	if b, _ := c.entries.ballotAt(c.commitIndex); b == c.ballot && c.purged < c.ballot {
		c.purged = c.ballot
		c.wit.removeOlderThan(c.ballot)
	}
}

// truncate deletes the conflicting suffix from slot s on. Committed
// entries are never truncated: the leader's log holds them all.
func (c *Core) truncate(s kvs.Slot) {
	if s <= c.commitIndex {
		panic("replica: truncating a committed slot")
	}
	for i := s; i <= c.entries.last(); i++ {
		e := c.entries.at(i)
		if c.cmdIndex[e.Cmd] == i {
			delete(c.cmdIndex, e.Cmd)
		}
	}
	c.entries.truncate(s)
	c.matchedUpTo = min(c.matchedUpTo, s-1)
}

// rebuildKeys recomputes the key index from the unapplied suffix.
func (c *Core) rebuildKeys() {
	c.keys.reset()
	for s := c.appliedIndex + 1; s <= c.entries.last(); s++ {
		c.keys.add(s, c.entries.at(s).Command)
	}
}
