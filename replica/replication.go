package replica

import (
	"slices"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
)

// replicate sends every follower the entries it has not been sent yet and,
// when the commit index moved, a Commit (PROTOCOL.md 3.2). Entries are
// pipelined: sent[p] advances optimistically and is rewound by a rejection.
func (c *Core) replicate() {
	last := c.entries.last()
	for p := range c.o.N {
		r := wire.ReplicaID(p)
		if r == c.o.ID {
			continue
		}
		sentSomething := false
		for c.sent[p] < last {
			prev := c.sent[p]
			pb, _ := c.entries.ballotAt(prev)
			// Copy: the log's backing array is reused after a truncation,
			// and the message is encoded later on another goroutine.
			ents := slices.Clone(c.entries.slice(prev+1, last, c.o.MaxBatch))
			c.o.Out.ToReplica(r, &wire.Accept{
				Ballot: c.ballot, Leader: c.o.ID, PrevSlot: prev, PrevBallot: pb,
				Entries: ents, LeaderCommit: c.commitIndex,
			})
			c.sent[p] += kvs.Slot(len(ents))
			sentSomething = true
		}
		if !sentSomething && c.commitIndex > c.commitSent {
			c.o.Out.ToReplica(r, &wire.Commit{Ballot: c.ballot, CommitIndex: c.commitIndex})
		}
	}
	c.commitSent = c.commitIndex
}

// heartbeat sends an empty Accept to every follower; a follower that
// missed entries answers with a rejection that rewinds sent[p].
func (c *Core) heartbeat() {
	for p := range c.o.N {
		r := wire.ReplicaID(p)
		if r == c.o.ID {
			continue
		}
		pb, _ := c.entries.ballotAt(c.sent[p])
		c.o.Out.ToReplica(r, &wire.Accept{
			Ballot: c.ballot, Leader: c.o.ID, PrevSlot: c.sent[p], PrevBallot: pb, LeaderCommit: c.commitIndex,
		})
	}
}

func (c *Core) onAcceptAck(m *wire.AcceptAck) {
	if m.Ballot > c.ballot {
		c.becomeFollower(m.Ballot, wire.NoReplica)
		return
	}
	if c.role != Leader || m.Ballot != c.ballot || m.Replica < 0 || int(m.Replica) >= c.o.N {
		return
	}
	p := m.Replica
	if !m.Success {
		// MatchSlot is the follower's hint of where its log may agree.
		if m.MatchSlot < c.sent[p] {
			c.sent[p] = max(m.MatchSlot, c.match[p])
		}
		return
	}
	if m.MatchSlot > c.match[p] {
		c.match[p] = min(m.MatchSlot, c.entries.last())
		c.advanceCommit()
	}
}

// advanceCommit moves the commit index to the highest slot held by a
// majority whose entry is of the current ballot (PROTOCOL.md 3.2).
func (c *Core) advanceCommit() {
	m := slices.Clone(c.match)
	slices.Sort(m)
	cand := m[len(m)-(c.o.N/2+1)]
	if cand <= c.commitIndex {
		return
	}
	if b, _ := c.entries.ballotAt(cand); b != c.ballot {
		return
	}
	for s := c.commitIndex + 1; s <= cand; s++ {
		c.policy.Committed(c, c.entries.at(s))
	}
	c.commitIndex = cand
	c.applyCommitted()
}

// onAccept is the follower side of replication (PROTOCOL.md 3.2).
func (c *Core) onAccept(from wire.ReplicaID, m *wire.Accept) {
	if m.Ballot < c.ballot {
		c.o.Out.ToReplica(from, &wire.AcceptAck{Ballot: c.ballot, Replica: c.o.ID, MatchSlot: c.entries.last()})
		return
	}
	if m.Ballot > c.ballot || c.role != Follower {
		c.becomeFollower(m.Ballot, m.Leader)
	}
	c.leader = m.Leader
	c.lastHeard = c.o.Now()
	pb, ok := c.entries.ballotAt(m.PrevSlot)
	if !ok || pb != m.PrevBallot {
		hint := c.entries.last()
		if ok {
			hint = min(c.commitIndex, m.PrevSlot-1)
		}
		c.o.Out.ToReplica(from, &wire.AcceptAck{Ballot: c.ballot, Replica: c.o.ID, MatchSlot: hint})
		return
	}
	truncated := false
	var viewNoop kvs.Slot
	for i := range m.Entries {
		e := m.Entries[i]
		e.Slot = m.PrevSlot + kvs.Slot(i) + 1
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
	lastNew := m.PrevSlot + kvs.Slot(len(m.Entries))
	c.matchedUpTo = max(c.matchedUpTo, lastNew)
	c.o.Out.ToReplica(from, &wire.AcceptAck{Ballot: c.ballot, Replica: c.o.ID, Success: true, MatchSlot: lastNew})
	c.followCommit(min(m.LeaderCommit, lastNew))
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
	clear(c.keys)
	for s := c.appliedIndex + 1; s <= c.entries.last(); s++ {
		c.keys.add(s, c.entries.at(s).Command)
	}
}
