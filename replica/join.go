package replica

import (
	"slices"

	"swiftpaxos/config/quorum"
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// A replica that starts without state (in memory, or durable with an empty
// data directory; a durable replica with state restores it, restore.go) is
// not a member of the cluster until it knows it may be one (PROTOCOL.md
// 6.10, docs/DECISIONS.md 21 and 37). It asks every peer with Join:
//
//   - if every replica of the cluster, itself included, reports ballot 0,
//     an empty log and no membership (in durable mode a member with
//     nothing appended counts too: it vouched for nothing, founding.go),
//     nothing was ever appended: it is a member at once (the bootstrap),
//     and the initial leader leads ballot 0 unless a member answered and
//     it was not started -cluster new. The replica remembers the incarnation (a
//     number every start of the process raises: lives.go) of every replica
//     that answered fresh and was started -cluster new; one still
//     finishing its own start-up, whose Join names the same incarnation,
//     is told so and becomes a member too, even if the leader has taken
//     requests meanwhile: it was never a member, so it lost nothing. A
//     replica not started new is never vouched for: it may be a restart
//     that lost what it acknowledged, and the founder's answers may be
//     old (docs/DECISIONS.md 37);
//   - if the replicas that answered all report nothing, and a majority of
//     the cluster, itself included, were started as new replicas
//     (-cluster new: never members, so they acknowledged nothing), it
//     founds the cluster with them, once every replica answered or the
//     founding grace is over (foundingGrace): no majority ever acknowledged
//     anything, so nothing was committed, elected or completed on the
//     fast path. The initial leader leads ballot 0 only if it is new
//     itself; otherwise the founders elect one;
//   - otherwise it restarted, or the cluster was founded without it: it
//     follows the leader that answered, as a learner, receives the
//     leader's snapshot and log, and becomes a member once it has applied
//     the leader's last slot at the moment the leader answered, in that
//     leader's ballot. Every command that could have completed on the fast
//     path with a record this replica lost is then committed and needs no
//     witness replay.
//
// A non-member never votes, never starts an election, keeps no witness
// record and acknowledges no request (it does not count toward a fast
// path or a recovery), serves no weak read, and its copy of the log does
// not count toward a commit (AcceptAck.Learner).

// joining is the state of a replica that is not a member yet.
type joining struct {
	replies []*wire.JoinReply // the peers' answers, by replica
	heard   []int64           // when each answer came
	leader  wire.ReplicaID    // the leader that named mark
	ballot  wire.Ballot
	mark    kvs.Slot
	marked  bool // a leader of the current ballot answered
	learner bool // an answer showed a cluster that holds state
	askedAt int64
	// firstAsked is when the replica first asked: a majority founds
	// only once every replica answered, or foundingGrace after it.
	firstAsked int64
}

// Member reports whether the replica is a full member (see above).
func (c *Core) Member() bool { return c.member }

// askToJoin sends Join to every peer while the replica has no mark from a
// leader of its current ballot, every heartbeat period.
func (c *Core) askToJoin(now int64) {
	j := &c.jn
	if c.member || j.marked && j.ballot == c.ballot && j.leader == c.leader && c.answeredEnough() ||
		now-j.askedAt < int64(c.o.HeartbeatInterval) && j.askedAt > 0 {
		return
	}
	j.askedAt, j.marked = now, false
	if j.firstAsked == 0 {
		j.firstAsked = now
	}
	for p := range c.o.N {
		if wire.ReplicaID(p) != c.o.ID {
			c.out.toReplica(wire.ReplicaID(p), &wire.Join{Replica: c.o.ID, Incarnation: c.incarnation})
		}
	}
}

func (c *Core) onJoin(from wire.ReplicaID, m *wire.Join) error {
	if m.Replica != from {
		return invalid("Join from replica %d names replica %d", from, m.Replica)
	}
	if !validIncarnation(m.Incarnation) {
		return invalid("Join from replica %d in incarnation %d", from, m.Incarnation)
	}
	c.heardOfLife(from, m.Incarnation)
	r := &wire.JoinReply{Ballot: c.ballot, Replica: c.o.ID, Leader: c.leader, LastSlot: c.entries.last(), Member: c.member,
		Incarnation: c.incarnation, ClusterNew: c.o.ClusterNew, PreGranted: c.el.preMax, Lives: c.ourLives()}
	if c.role == Leader && c.rec != nil {
		r.Leader = wire.NoReplica // not in service before its view starts
	}
	founder := c.founders != nil && c.founders[from] == m.Incarnation
	if founder {
		// A copy: the message is encoded by another goroutine, and a
		// late answer may still add a founder (onJoinReply).
		r.Founders = slices.Clone(c.founders)
	}
	if c.role == Leader && c.rec == nil && c.member && !founder {
		// The peer lost its log: replicate to it from scratch, and do
		// not count it toward commits until it is a member again.
		r.Mark = c.entries.last()
		c.match[from], c.sent[from], c.learner[from], c.out.learner[from] = 0, 0, true, true
		// What its earlier life confirmed counts no more; a learner's
		// rounds count for nothing anyway, and a replica promises from
		// its start (lease.go): this keeps the argument local.
		c.lr.acked[from] = 0
		delete(c.xfer, from)
	}
	c.out.toReplica(from, r)
	return nil
}

func (c *Core) onJoinReply(from wire.ReplicaID, m *wire.JoinReply) error {
	if m.Replica != from {
		return invalid("JoinReply from replica %d names replica %d", from, m.Replica)
	}
	if current, err := c.answersThisLife(from, m); !current || err != nil {
		return err
	}
	if c.member {
		if c.founders != nil && c.founders[from] == 0 && m.Ballot == 0 && m.LastSlot == 0 && !m.Member && m.ClusterNew {
			// A late answer to this replica's own start-up Join: the peer
			// was fresh then, in that incarnation, was never a member,
			// and is a founder too.
			c.founders[from] = m.Incarnation
		}
		return nil
	}
	j := &c.jn
	j.replies[from], j.heard[from] = m, c.o.Now()
	if len(m.Founders) == c.o.N && m.Member && m.Founders[c.o.ID] == c.incarnation {
		// A founding member that was still starting.
		c.founders = m.Founders
		c.bootstrap(c.o.ClusterNew)
		return nil
	}
	if !j.learner && !c.freshReply(m) {
		j.learner = true
		c.log.Info("joining as a learner: a replica that holds state answered", "from", int32(from),
			"member", m.Member, "last_slot", uint64(m.LastSlot))
	}
	if c.fresh() {
		c.founders = make([]uint64, c.o.N)
		refound := false
		for p, r := range j.replies {
			if c.freshReply(r) && r.ClusterNew {
				c.founders[p] = r.Incarnation
			}
			refound = refound || r != nil && r.Member
		}
		c.founders[c.o.ID] = c.incarnation
		// Members that report nothing appended mean the cluster was
		// founded without this replica, or before it lost its state
		// (founding.go). It joins them, but unless it was started
		// -cluster new it does not lead ballot 0: it may have led it in
		// an earlier life, and an Accept it sent then may still reach a
		// follower and be taken for one of this life. The next leader
		// is elected, in ballot 1 or later, and recovers.
		c.bootstrap(!refound || c.o.ClusterNew)
		return nil
	}
	if c.mayFound() && c.foundingDue() {
		c.founders = make([]uint64, c.o.N)
		for p, r := range j.replies {
			if r != nil && r.ClusterNew {
				c.founders[p] = r.Incarnation
			}
		}
		c.founders[c.o.ID] = c.incarnation
		c.log.Info("founding the cluster with a majority of new replicas", "new", c.freshNew(0))
		c.bootstrap(c.o.ClusterNew)
		return nil
	}
	if c.o.Mutation.EarlyMember && m.Member {
		c.member = true
		c.resetElectionTimer()
		c.releaseEarly()
		return nil
	}
	if m.Member && m.Ballot > c.ballot {
		// A member knows a later ballot: only a leader of it, or of a
		// later one, may make this replica a member. A leader of an
		// earlier ballot may have been deposed while it could not hear,
		// and its log may lack what the later ballots committed
		// (docs/DECISIONS.md 50).
		leader := m.Leader
		if leader == c.o.ID {
			leader = wire.NoReplica // this replica's own earlier life
		}
		c.becomeFollower(m.Ballot, leader)
	}
	if m.Member && m.PreGranted > c.ballot && !c.o.Mutation.JoinIgnoresPreVotes {
		// A member granted a pre-vote in a later ballot: its candidate
		// may be collecting votes, perhaps with this replica's own lost
		// one, so that ballot may elect a leader whose log lacks what a
		// leader of an earlier ballot commits from now on.
		c.becomeFollower(m.PreGranted, wire.NoReplica)
	}
	if m.Leader == from && m.Member && m.Ballot >= c.ballot {
		if m.Ballot > c.ballot || c.role != Follower {
			c.becomeFollower(m.Ballot, from)
		}
		c.leader = from
		j.leader, j.ballot, j.mark, j.marked = from, m.Ballot, m.Mark, true
	}
	c.checkMember()
	return nil
}

// answeredEnough reports whether enough replicas answered this replica's
// Join for a leader's mark to count: a majority of the others (this one
// lost what it held) as members, or every other replica. Such answers meet
// the pre-vote majority of any ballot this replica may have voted in
// before it lost its state, so the ballot it adopted from their answers
// (their own, or one they pre-voted in) is at least that one, and a mark
// from a leader of an earlier ballot does not count (docs/DECISIONS.md 50;
// Viewstamped Replication's recovery waits for f+1 answers likewise). They
// also meet any vote majority, and those that vote after they answered
// tell the candidate of this life, so it no longer counts a vote of the
// life this replica lost (lives.go, docs/DECISIONS.md 51).
func (c *Core) answeredEnough() bool {
	members, all := 0, 0
	for p, r := range c.jn.replies {
		if wire.ReplicaID(p) != c.o.ID && r != nil {
			all++
			if r.Member {
				members++
			}
		}
	}
	return members >= quorum.Majority(c.o.N) || all == c.o.N-1
}

// checkMember makes a learner a member once it has applied its leader's
// mark in that leader's ballot.
func (c *Core) checkMember() {
	j := &c.jn
	if c.member || !j.marked || j.ballot != c.ballot || j.leader != c.leader || c.appliedIndex < j.mark ||
		!c.answeredEnough() {
		return
	}
	c.member = true
	c.resetElectionTimer()
	c.log.Info("rejoined as a full member", "ballot", uint32(c.ballot), "applied", uint64(c.appliedIndex))
	c.releaseEarly()
}

// JoinStatus says how a replica that is not a member waits (status): as a
// learner once an answer showed a cluster that holds state, founding
// otherwise; with the replicas, itself included, heard lately with
// nothing appended (fresh), and those of them started with -cluster new.
func (c *Core) JoinStatus() (state wire.JoinState, fresh, freshNew int) {
	if c.member {
		return wire.JoinMember, 0, 0
	}
	since := c.o.Now() - 3*int64(c.o.HeartbeatInterval)
	state = wire.JoinLearner
	if c.ballot == 0 && c.entries.last() == 0 {
		fresh++
		if !c.jn.learner {
			state = wire.JoinFounding
		}
	}
	for p, r := range c.jn.replies {
		if wire.ReplicaID(p) != c.o.ID && r != nil && c.freshReply(r) && c.jn.heard[p] >= since {
			fresh++
		}
	}
	return state, fresh, c.freshNew(since)
}
