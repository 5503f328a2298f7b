package replica

import (
	"swiftpaxos/config/quorum"
	"swiftpaxos/wire"
)

// A durable replica that restarts as a non-member cannot vote (join.go),
// so a brand-new durable cluster that crashes while fewer than a majority
// of its replicas have their membership on disk could never elect a
// leader again. Two rules close that window (docs/DECISIONS.md 26):
//
//   - the initial leader of a brand-new durable cluster appends nothing
//     until a majority of replicas, itself included, have their membership
//     on disk: a follower's first AcceptAck says so (it waits for the
//     follower's sync), Synced says so for the leader. Client requests
//     wait meanwhile, as during recovery;
//   - a durable replica that asks to join counts a member that reports
//     ballot 0 and an empty log as fresh: nothing was ever appended
//     anywhere, and such a member vouched for nothing (vouchesForNothing),
//     so bootstrapping again loses nothing.
//
// Once anything is appended, a majority are members on disk and can elect
// a leader whatever else crashed.

// founding is the initial leader's wait for a majority of members on disk.
type founding struct {
	onDisk   []bool
	buffered []bufferedRequest
}

// startFounding starts the wait at a bootstrapping leader. In memory the
// leader is a member at once, and a follower's first AcceptAck says it is
// one: the wait keeps every member's log empty until a majority are
// members, so that a replica joining late can count a member that holds
// nothing as fresh (join.go) and found the cluster with them. A core
// started as a member by a test (Options.StartAsMember) does not wait.
func (c *Core) startFounding() {
	if c.o.ID != c.o.InitialLeader || !c.o.Durable && c.o.StartAsMember {
		return
	}
	c.founded = &founding{onDisk: make([]bool, c.o.N)}
	if !c.o.Durable {
		c.foundingAck(c.o.ID)
	}
}

// Founding reports whether this replica leads a new cluster and still
// waits for a majority of members (on disk when durable) before it
// appends anything (weak reads are answered meanwhile).
func (c *Core) Founding() bool { return c.founded != nil }

// foundingAck notes that replica p's membership is on disk.
func (c *Core) foundingAck(p wire.ReplicaID) {
	f := c.founded
	if f == nil || f.onDisk[p] {
		return
	}
	f.onDisk[p] = true
	if count(f.onDisk) < quorum.Majority(c.o.N) {
		return
	}
	c.founded = nil
	if c.o.Durable {
		c.log.Info("a majority are members on disk: serving", "buffered", len(f.buffered))
	} else {
		c.log.Info("a majority are members: serving", "buffered", len(f.buffered))
	}
	for _, b := range f.buffered {
		c.stepClient(b.from, b.msg)
	}
}

// The rest tells, from the answers to a Join, a brand-new cluster from one
// that holds state (the first two cases of join.go), and makes the
// replica a member of a new one.

// foundingGrace is how long a majority of new replicas wait for the others'
// answers before they found without them. Replicas started together do
// not come up together: one that listened first dialled peers that were
// not listening yet, and its answer to their Join is lost until it dials
// again (the server redials every 100 ms) and answers the next Join, a
// heartbeat later. Founding on the first majority would leave it out,
// and were it the initial leader, nobody would lead until the others
// elected another, an election timeout later. Waiting changes only who
// founds, never whether founding is safe.
func (c *Core) foundingGrace() int64 { return 4 * int64(c.o.HeartbeatInterval) }

// fresh reports whether every replica, this one included, reported ballot
// 0, an empty log and no membership (a durable member with nothing
// appended counts too: freshReply): the cluster is brand new.
func (c *Core) fresh() bool {
	if c.ballot != 0 || c.entries.last() != 0 {
		return false
	}
	for p, r := range c.jn.replies {
		if wire.ReplicaID(p) != c.o.ID && !c.freshReply(r) {
			return false
		}
	}
	return true
}

// vouchesForNothing reports whether this durable replica's witness must
// acknowledge no strong request Ok: no entry of its log is on disk yet.
// A replica that lost its disk and asks to join counts a member that
// reports ballot 0 and an empty log as fresh (freshReply), and, if every
// replica is, founds the cluster anew without the witness records it
// lost. That loses nothing only if no such member vouched for a request:
// CURP's fast path completes with the leader's reply and a super-quorum
// of witnesses' records, before any entry reaches a follower, and
// counting members cannot tell that case (docs/DECISIONS.md 53). With
// this rule a fast path needs witnesses that hold an entry on disk and
// report it in their answers; the first requests of a new durable
// cluster complete on the slow path. A read's acknowledgement may leave
// before its batch is on disk (readAckUnsynced), so the rule asks for a
// synced entry, not one in memory.
func (c *Core) vouchesForNothing() bool {
	return c.dur != nil && c.syncedLast() == 0 && !c.o.Mutation.WitnessOksOnEmptyLog
}

// mayFound reports whether the replica may found the cluster without
// waiting for every replica: it and every replica that answered report
// ballot 0, an empty log and no membership, and a majority of the cluster,
// itself included, were started with -cluster new (see above).
func (c *Core) mayFound() bool {
	if c.ballot != 0 || c.entries.last() != 0 {
		return false
	}
	for p, r := range c.jn.replies {
		if wire.ReplicaID(p) != c.o.ID && r != nil && !neverMember(r) {
			return false
		}
	}
	return c.freshNew(0) >= quorum.Majority(c.o.N)
}

// foundingDue reports whether a majority may found now: every other
// replica answered, or the founding grace is over.
func (c *Core) foundingDue() bool {
	for p, r := range c.jn.replies {
		if wire.ReplicaID(p) != c.o.ID && r == nil {
			return c.o.Now()-c.jn.firstAsked >= c.foundingGrace()
		}
	}
	return true
}

// neverMember reports whether a JoinReply shows a replica that appended
// nothing and is no member.
func neverMember(r *wire.JoinReply) bool {
	return r.Ballot == 0 && r.LastSlot == 0 && !r.Member
}

// freshNew counts the replicas, this one included, that were started with
// -cluster new and answered (this one: are) fresh; with since > 0, only
// the answers that came at or after since.
func (c *Core) freshNew(since int64) int {
	n := 0
	if c.o.ClusterNew && c.ballot == 0 && c.entries.last() == 0 {
		n++
	}
	for p, r := range c.jn.replies {
		if wire.ReplicaID(p) != c.o.ID && r != nil && r.ClusterNew && neverMember(r) && c.jn.heard[p] >= since {
			n++
		}
	}
	return n
}

// freshReply reports whether a peer's JoinReply shows it fresh: ballot 0,
// an empty log, and not a member, or, in durable mode, a member with
// nothing appended (founding.go). In memory a member with an empty log
// may still hold witness records of commands that completed on the fast
// path before any entry reached it: a replica that lost its state and
// counted it fresh would found anew, and with those records lost the
// next leader's recovery could miss an acknowledged write. A durable
// witness accepts no record while it has nothing on disk
// (vouchesForNothing).
func (c *Core) freshReply(r *wire.JoinReply) bool {
	return r != nil && r.Ballot == 0 && r.LastSlot == 0 && (!r.Member || c.o.Durable)
}

// bootstrap makes the replica a member of a brand-new cluster; lead false
// keeps the initial leader from leading ballot 0 (onJoinReply).
func (c *Core) bootstrap(lead bool) {
	if c.ballot != 0 {
		// The founders elected a leader before this replica joined
		// them (it learnt the ballot from their answers): the initial
		// leader leads ballot 0 only, and the ballot's leader is not
		// known yet.
		lead = false
	}
	c.member = true
	c.leader = c.o.InitialLeader
	if c.ballot != 0 {
		c.leader = wire.NoReplica
	}
	if c.o.ID == c.o.InitialLeader && !lead {
		c.leader = wire.NoReplica
	}
	if c.o.ID == c.o.InitialLeader && lead {
		c.role = Leader
		c.viewCommitted = true
		c.leaderSince = c.o.Now()
		c.startFounding()
	}
	if c.leader != c.o.ID && c.leader != wire.NoReplica && !c.o.Durable && !c.o.StartAsMember {
		// Tell the founding leader at once that this replica is a
		// member (its log is empty), rather than at its next heartbeat:
		// it appends nothing before a majority are (founding.go). A
		// durable follower says so once its membership is on disk; a
		// test's core started as a member has no founding leader.
		c.out.toReplica(c.leader, &wire.AcceptAck{Ballot: c.ballot, Replica: c.o.ID, Success: true})
	}
	c.resetElectionTimer()
	c.log.Info("cluster bootstrapped", "leader", int32(c.o.InitialLeader))
	c.releaseEarly()
}
