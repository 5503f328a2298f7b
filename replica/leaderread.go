package replica

import (
	"swiftpaxos/wire"
)

// Leader reads (docs/DECISIONS.md 46): a strong read that a session sends
// to the leader alone (Propose.LeaderRead). The leader answers it, without
// a slot, from the state its log holds at the read's arrival, provided that
//
//   - no write to the keys it reads lies above the commit index: every
//     write completed before the read arrived is then committed, since a
//     write completes only with this leader's reply (a fast path) or its
//     commit, or was replayed into this log by the recovery that made this
//     replica leader; and the answer reflects no write that could be lost;
//   - the command it names as its barrier dependency (the session's latest
//     weak write, or the operation an ordered read follows) is committed,
//     and not refused: the read then follows it, and the session's weak
//     writes are durable (PROTOCOL.md 2.4 C1, C2); a refused one makes the
//     proposal path refuse the read too (docs/DECISIONS.md 15);
//   - a majority of members, this leader among them, still followed its
//     ballot after the read arrived: each echoed a leadership round begun
//     after the arrival (Accept.Round). A new leader needs the vote of one
//     of them, which would then have refused this ballot first, so no
//     other leader had completed a write when the read arrived, and none
//     can commit over what this leader committed.
//
// A read that fails the first two is proposed as any strong read is, by
// the leader alone: it gets a slot and completes on the slow path, as the
// witnesses never saw it. One that waits for its round is dropped when the
// leader steps down; the session re-sends it. With leases (lease.go) a
// read that passes the first two is answered at once while the leader's
// lease holds, which stands for the third.

// leaderRead is a read answered on arrival and held until a leadership
// round begun after its arrival is confirmed.
type leaderRead struct {
	to    wire.ClientID
	reply *wire.SyncReply
	round uint64
}

// leaderReads is the leader's state of its leader reads.
type leaderReads struct {
	held  []leaderRead // in round order
	round uint64       // the latest round begun, stamped on every Accept
	due   bool         // a round begins in this flush
	// acked is, by replica, the latest round it echoed in this ballot
	// (this leader's: the latest round it began).
	acked   []uint64
	scratch []uint64
	lease   lease
	counts  LeaderReadCounts
}

// LeaderReadCounts counts how this replica, while leading, served the
// leader reads it received (status and metrics show them): whether the
// lease is in use, and how many reads fall back to a slot.
type LeaderReadCounts struct {
	Lease uint64 // answered at once under the lease
	Round uint64 // answered once a leadership round confirmed them
	// Proposed counts the reads given a slot: a write to their keys lay
	// above the commit index, or their dependency was not yet committed.
	Proposed uint64
}

// LeaderReads returns the counts of the leader reads served so far.
func (c *Core) LeaderReads() LeaderReadCounts { return c.lr.counts }

// serveLeaderRead answers leader read p from committed state, at once
// under a lease or once its round is confirmed, and reports whether it
// could; if not, the caller proposes it.
func (c *Core) serveLeaderRead(from wire.ClientID, p *wire.Propose) bool {
	if dep, wait := c.policy.StrongDep(p); wait && !c.o.Mutation.LeaderReadIgnoresDependency {
		if _, committed, refused := c.Outcome(dep); refused || !committed {
			c.lr.counts.Proposed++
			return false
		}
	}
	c.scratchSlots = c.keys.uncommittedWrites(p.Command, c.commitIndex, c.scratchSlots[:0], 1)
	if len(c.scratchSlots) > 0 {
		c.lr.counts.Proposed++
		return false
	}
	reply := &wire.SyncReply{
		Replica: c.o.ID, Ballot: c.ballot, Cmd: p.Cmd, Result: c.readOverLog(p.Command),
		WeakCommittedSeq: c.WeakCommittedSeq(p.Cmd.Client),
	}
	if c.o.Mutation.UnconfirmedLeaderRead {
		c.out.toClient(from, reply)
		return true
	}
	if c.leaseRead(from, reply) {
		return true
	}
	c.lr.held = append(c.lr.held, leaderRead{to: from, reply: reply, round: c.lr.round + 1})
	return true
}

// beginRound begins a leadership round in this flush when a held read
// arrived after the latest one began.
func (c *Core) beginRound() {
	if n := len(c.lr.held); n > 0 && c.lr.held[n-1].round > c.lr.round {
		c.startRound()
		c.lr.due = true
	}
}

// startRound begins the next leadership round, which this leader
// confirms at once, and times it for the lease (lease.go).
func (c *Core) startRound() {
	c.lr.round++
	c.lr.acked[c.o.ID] = c.lr.round
	c.timeRound()
}

// noteRound records the round a follower's AcceptAck of this ballot
// echoed and answers the reads it confirms.
func (c *Core) noteRound(p wire.ReplicaID, round uint64) {
	if round > c.lr.acked[p] {
		c.lr.acked[p] = round
		c.releaseLeaderReads()
	}
}

// releaseLeaderReads answers the held reads whose round a majority of
// members (this leader counts for the latest round) has confirmed, and
// extends the lease (lease.go).
func (c *Core) releaseLeaderReads() {
	if len(c.lr.held) == 0 && c.lr.lease.round == 0 {
		return
	}
	confirmed, rs, ok := heldByMajority(c.lr.acked, c.learner, c.lr.scratch)
	c.lr.scratch = rs
	if !ok {
		return
	}
	c.confirmLease(confirmed)
	n := 0
	for ; n < len(c.lr.held) && c.lr.held[n].round <= confirmed; n++ {
		c.out.toClient(c.lr.held[n].to, c.lr.held[n].reply)
	}
	c.lr.counts.Round += uint64(n)
	k := copy(c.lr.held, c.lr.held[n:])
	clear(c.lr.held[k:])
	c.lr.held = c.lr.held[:k]
}

// dropLeaderReads forgets the held reads, the followers' rounds and the
// lease: on stepping down (the sessions re-send the reads), on becoming
// leader and on starting a recovery.
func (c *Core) dropLeaderReads() {
	clear(c.lr.held)
	c.lr.held = c.lr.held[:0]
	clear(c.lr.acked)
	c.lr.due = false
	c.lr.lease = lease{}
}
