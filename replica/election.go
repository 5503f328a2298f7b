package replica

import (
	"math"
	"time"

	"swiftpaxos/config/quorum"
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// election is the state of failure detection and voting (PROTOCOL.md
// 6.1-6.2), with a pre-vote round before a ballot is raised
// (docs/DECISIONS.md 20).
type election struct {
	votedFor wire.ReplicaID // in the current ballot; NoReplica if none
	votes    grants         // candidate: who granted, in which life (lives.go)
	timeout  int64          // current randomised election timeout
	// A pre-candidate asks whether a majority would vote for it in
	// preBallot before it raises its ballot; preVotes says who said yes.
	preBallot wire.Ballot // 0: not pre-voting
	preVotes  grants
	// preGranted is the last pre-vote this replica granted: it adopts a
	// higher ballot from a RequestVote only for that candidate and ballot.
	preGranted   wire.ReplicaID
	preGrantedIn wire.Ballot
	preGrantedAt int64
	// preMax is the highest ballot this replica ever granted a pre-vote
	// in (durable: kept in the hard state). It answers a Join with it: a
	// candidate's pre-vote majority may still turn into votes, and a
	// replica that restarted without its vote must learn that ballot
	// before any leader of an earlier one may make it a member
	// (docs/DECISIONS.md 50).
	preMax wire.Ballot
	// promised is when this replica's promise to the leader of lease
	// reads ends (lease.go).
	promised int64
}

// resetElectionTimer draws a new randomised timeout and restarts the wait.
func (c *Core) resetElectionTimer() {
	lo, hi := c.o.ElectionTimeoutMin, c.o.ElectionTimeoutMax
	d := lo
	if hi > lo {
		d += time.Duration(c.o.Rand.Int64N(int64(hi - lo)))
	}
	c.el.timeout = int64(d)
	c.lastHeard = c.o.Now()
}

// checkElectionTimer starts a pre-vote when the leader has been silent for
// the randomised timeout.
func (c *Core) checkElectionTimer(now int64) {
	if c.role == Leader || !c.member || now-c.lastHeard < c.el.timeout {
		return
	}
	if c.promising() {
		c.standAfterPromise()
		return
	}
	c.startPreVote()
}

// startPreVote asks every replica whether it would vote for this one in
// the next ballot. Only a majority of yes raises the ballot: a replica cut
// off from the others, or whose log is behind, never disturbs the
// cluster's ballot, however often its timer fires.
func (c *Core) startPreVote() {
	if c.ballot == math.MaxUint32 {
		c.log.Error("ballot space exhausted: no election possible")
		c.resetElectionTimer()
		return
	}
	c.el.preBallot = c.ballot + 1
	c.el.preVotes = c.newGrants()
	c.resetElectionTimer()
	last, lastBallot := c.voteLog()
	for p := range c.o.N {
		if wire.ReplicaID(p) != c.o.ID {
			c.out.toReplica(wire.ReplicaID(p), &wire.PreVote{Ballot: c.el.preBallot, Candidate: c.o.ID, LastSlot: last, LastBallot: lastBallot})
		}
	}
}

func (c *Core) startElection() {
	c.el.preBallot = 0
	c.becomeFollower(c.ballot+1, wire.NoReplica)
	c.role = Candidate
	c.el.votedFor = c.o.ID
	c.el.votes = c.newGrants()
	c.resetElectionTimer()
	last, lastBallot := c.voteLog()
	c.log.Info("starting election", "ballot", uint32(c.ballot))
	for p := range c.o.N {
		if wire.ReplicaID(p) != c.o.ID {
			c.out.toReplica(wire.ReplicaID(p), &wire.RequestVote{Ballot: c.ballot, Candidate: c.o.ID, LastSlot: last, LastBallot: lastBallot})
		}
	}
}

// voteLog is what a candidate's log is judged by: (last ballot, last slot),
// or, under the reference's rule kept as a mutation, its commit index.
func (c *Core) voteLog() (kvs.Slot, wire.Ballot) {
	if c.o.Mutation.VoteByCommitIndex {
		return c.commitIndex, 0
	}
	return c.entries.last(), c.entries.lastBallot()
}

// upToDate reports whether a candidate's log is at least as up to date as
// this replica's, comparing (last ballot, last slot) (PROTOCOL.md 6.2).
func (c *Core) upToDate(lastSlot kvs.Slot, lastBallot wire.Ballot) bool {
	last, ballot := c.voteLog()
	return lastBallot > ballot || lastBallot == ballot && lastSlot >= last
}

// leaderAlive reports whether this replica leads, or heard its leader
// within the minimum election timeout and has not lost its connection from
// it since: it then refuses pre-votes, so that a replica that merely lost
// its own link to the leader cannot depose it. A replica that lost its
// link too grants them: the leader reaches neither, so it cannot commit.
func (c *Core) leaderAlive() bool {
	return c.role == Leader || c.leader != wire.NoReplica && !c.leaderLost &&
		c.o.Now()-c.leaderHeard < int64(c.o.ElectionTimeoutMin)
}

// heardLeader notes a message from the current leader: it restarts the
// election timer and keeps the leader alive for pre-votes.
func (c *Core) heardLeader() {
	c.lastHeard = c.o.Now()
	c.leaderHeard, c.leaderLost = c.lastHeard, false
}

func (c *Core) onPreVote(from wire.ReplicaID, m *wire.PreVote) error {
	if m.Candidate != from {
		return invalid("PreVote from replica %d names candidate %d", from, m.Candidate)
	}
	granted := c.member && m.Ballot > c.ballot && !c.leaderAlive() && !c.justRestored() && !c.promising() &&
		c.upToDate(m.LastSlot, m.LastBallot)
	if granted && c.leaderLost && c.o.Now()-c.leaderHeard < int64(c.o.ElectionTimeoutMin) {
		c.log.Info("granted a pre-vote: the connection from the leader broke", "candidate", int32(m.Candidate),
			"leader", int32(c.leader), "ballot", uint32(m.Ballot))
	}
	if granted {
		c.el.preGranted, c.el.preGrantedIn, c.el.preGrantedAt = m.Candidate, m.Ballot, c.o.Now()
		c.el.preMax = max(c.el.preMax, m.Ballot)
	}
	c.out.toReplica(from, &wire.PreVoteReply{Ballot: c.ballot, PreBallot: m.Ballot, Replica: c.o.ID, Granted: granted,
		Lives: c.ourLives()})
	return nil
}

func (c *Core) onPreVoteReply(from wire.ReplicaID, m *wire.PreVoteReply) error {
	if m.Replica != from {
		return invalid("PreVoteReply from replica %d names replica %d", from, m.Replica)
	}
	if err := c.learnLives(from, m.Lives, m.Granted); err != nil {
		return err
	}
	if m.Ballot > c.ballot && !m.Granted {
		// The cluster moved on: catch up, and pre-vote again later in
		// the ballot after it.
		c.el.preBallot = 0
		c.becomeFollower(m.Ballot, wire.NoReplica)
		return nil
	}
	if c.role == Leader || c.el.preBallot == 0 || m.PreBallot != c.el.preBallot || !m.Granted {
		return nil
	}
	c.el.preVotes[from] = m.Lives[from]
	if c.counted(c.el.preVotes) >= quorum.Majority(c.o.N) && !c.promising() {
		c.startElection()
	}
	return nil
}

func (c *Core) onRequestVote(from wire.ReplicaID, m *wire.RequestVote) error {
	if m.Candidate != from {
		return invalid("RequestVote from replica %d names candidate %d", from, m.Candidate)
	}
	if m.Ballot > c.ballot {
		// A higher ballot counts only from the candidate this replica
		// told, in a pre-vote just now, that it would vote for: a stray
		// or forged RequestVote cannot move the ballot.
		// A replica that promised a lease since (lease.go) keeps its
		// ballot: it does not itself depose the leader it promised.
		pre := c.el.preGranted == m.Candidate && c.el.preGrantedIn == m.Ballot &&
			c.o.Now()-c.el.preGrantedAt < int64(c.o.ElectionTimeoutMax) && !c.promising()
		if !pre {
			c.out.toReplica(m.Candidate, &wire.RequestVoteReply{Ballot: c.ballot, Replica: c.o.ID, Lives: c.ourLives()})
			return nil
		}
		c.becomeFollower(m.Ballot, wire.NoReplica)
	}
	granted := false
	if c.member && m.Ballot == c.ballot && c.role == Follower && (c.el.votedFor == wire.NoReplica || c.el.votedFor == m.Candidate) &&
		c.upToDate(m.LastSlot, m.LastBallot) && !c.promising() {
		granted = true
		c.el.votedFor = m.Candidate
		c.resetElectionTimer()
	}
	c.out.toReplica(m.Candidate, &wire.RequestVoteReply{Ballot: c.ballot, Replica: c.o.ID, Granted: granted,
		Lives: c.ourLives()})
	return nil
}

func (c *Core) onRequestVoteReply(from wire.ReplicaID, m *wire.RequestVoteReply) error {
	if m.Replica != from {
		return invalid("RequestVoteReply from replica %d names replica %d", from, m.Replica)
	}
	if err := c.learnLives(from, m.Lives, m.Granted); err != nil {
		return err
	}
	if m.Ballot > c.ballot {
		c.becomeFollower(m.Ballot, wire.NoReplica)
		return nil
	}
	if c.role != Candidate || m.Ballot != c.ballot || !m.Granted {
		return nil
	}
	c.el.votes[from] = m.Lives[from]
	if c.counted(c.el.votes) >= quorum.Majority(c.o.N) {
		c.becomeLeader()
	}
	return nil
}

func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// becomeFollower adopts ballot b (when higher) and follows leader. Work
// that only a leader may do is dropped: clients retry it. The election
// timer is left alone: only hearing a leader or granting a vote restarts
// it, so that a candidate whose log is behind cannot keep the replicas
// that could win from standing.
func (c *Core) becomeFollower(b wire.Ballot, leader wire.ReplicaID) {
	if b > c.ballot {
		c.ballot = b
		if b >= c.el.preBallot {
			// A pre-vote still out is for a ballot that is no longer the
			// next one: its grants must not start an election in the
			// ballot after, for which nobody pre-voted.
			c.el.preBallot = 0
		}
		c.el.votedFor = wire.NoReplica
		c.matchedUpTo = 0
		c.jn.marked = false // a learner joins the new ballot's leader
		defer c.viewChanged()
	}
	if c.role == Leader {
		c.log.Info("stepping down", "ballot", uint32(b))
	}
	if c.role != Follower {
		c.founded = nil // its buffered requests are retried by their clients
		c.dropLeaderReads()
		clear(c.barred)
		clear(c.ending)
		clear(c.barredOrder)
		c.barredOrder = c.barredOrder[:0]
		c.rec = nil
	}
	c.role = Follower
	c.leader = leader
	c.out.quiet = false
}

// PeerDown tells the core that its connection to peer r broke. Losing the
// leader's connection shortens the wait for an election to three to seven
// heartbeat periods (PROTOCOL.md 6.1 allows it); the randomisation keeps
// followers from splitting the vote. The leader no longer counts as alive
// for the pre-votes of others (leaderAlive): when the leader dies, every
// follower sees its connection break, and the first to stand wins at once
// instead of a minimum election timeout later. A live leader that closed
// the connection itself (a full queue, a write timeout) dials again within
// redialEvery (100 ms) and is heard a heartbeat later, before three
// periods have passed: that makes it alive again, and the follower no
// longer stands. With leases the promise holds the candidacy back
// further (lease.go).
func (c *Core) PeerDown(r wire.ReplicaID) {
	if r != c.leader || c.role == Leader {
		return
	}
	hb := int64(c.o.HeartbeatInterval)
	c.lastHeard = c.o.Now() - c.el.timeout + 3*hb + c.o.Rand.Int64N(4*hb)
	c.leaderLost = true
}
