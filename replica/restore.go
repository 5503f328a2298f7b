package replica

import (
	"swiftpaxos/replica/storage"
	"swiftpaxos/wire"
)

// restore rebuilds a durable replica from what it found on disk: the
// snapshot's store and client table, the log after it (not yet known
// committed: a leader will say), the witness records in their arrival
// order, its ballot and vote. Nothing it acknowledged before the crash is
// missing, so, unlike a replica restarted without its state (join.go,
// PROTOCOL.md 6.10), it is a member at once if it was one: it may vote and
// witness. It comes back a follower with no known leader, and learns its
// current view's start from the log (the ballot's no-op) when the log
// holds it.
func (c *Core) restore(st *storage.State) {
	c.ballot, c.el.votedFor, c.member = st.Hard.Ballot, st.Hard.Vote, st.Hard.Member
	c.el.preMax = st.Hard.PreGranted
	if sn := st.Snapshot; sn != nil {
		c.store = sn.Store.Thaw()
		c.sessions = restoreSessions(sn.Sessions)
		c.snap = &snapshot{lastSlot: sn.LastSlot, lastBallot: sn.LastBallot, store: c.store.Snapshot(), sessions: sn.Sessions}
		c.entries.reset(sn.LastSlot, sn.LastBallot)
		c.commitIndex, c.appliedIndex, c.matchedUpTo = sn.LastSlot, sn.LastSlot, sn.LastSlot
	}
	for _, e := range st.Entries {
		s := c.entries.append(e)
		c.cmdIndex[e.Cmd] = s
		c.keys.add(s, e.Command)
		if isViewNoop(&e) && e.Ballot == c.ballot && c.ballot > 0 {
			c.viewBallot, c.viewStart = c.ballot, s+1
		}
	}
	now := c.o.Now()
	for _, r := range st.Records {
		c.wit.restore(r, now)
	}
	c.role, c.leader = Follower, wire.NoReplica
	c.resetElectionTimer()
	c.restored, c.restoredAt = true, now
	c.log.Info("restarted from disk", "ballot", uint32(c.ballot), "member", c.member,
		"snapshot", uint64(c.entries.base), "last", uint64(c.entries.last()),
		"records", len(st.Records), "cut", st.Cut)
	if c.member {
		// The line a restarted replica logs when it votes and witnesses
		// again (checkMember): the run's summary looks for it.
		c.log.Info("rejoined as a full member", "ballot", uint32(c.ballot), "applied", uint64(c.appliedIndex),
			"from_disk", true)
	}
}

// justRestored reports whether the replica restarted from disk less than
// the minimum election timeout ago. It then grants no pre-vote: it does
// not know the leader yet, and granting would let a follower that only
// lost its own link to a live leader depose it. A leader that is alive
// makes itself known within that time; a cluster restarted whole waits
// at least as long for its first election anyway.
func (c *Core) justRestored() bool {
	return c.restored && c.o.Now()-c.restoredAt < int64(c.o.ElectionTimeoutMin)
}

// startJournal starts durable mode: from here on every change is written
// down. The disk holds what restore read (or nothing), so the journal
// starts from that; records of commands the snapshot already applied are
// decided, and go.
func (c *Core) startJournal() {
	j := &journal{hard: storage.HardState{Vote: wire.NoReplica}, synced: c.entries.last()}
	if st := c.o.Restore; st != nil {
		j.hard = st.Hard
	}
	c.dur = j
	c.entries.j, c.wit.j = j, j
	for id := range c.wit.byCmd {
		if c.sessions.wasApplied(id) {
			c.wit.remove(id)
		}
	}
}
