package replica

import (
	"time"

	"go.uber.org/zap"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
)

// election is the state of failure detection and voting (PROTOCOL.md
// 6.1-6.2).
type election struct {
	votedFor wire.ReplicaID // in the current ballot; NoReplica if none
	votes    []bool         // candidate: who granted
	timeout  int64          // current randomised election timeout
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

// checkElectionTimer starts an election when the leader has been silent
// for the randomised timeout.
func (c *Core) checkElectionTimer(now int64) {
	if c.role == Leader || now-c.lastHeard < c.el.timeout {
		return
	}
	c.startElection()
}

func (c *Core) startElection() {
	c.becomeFollower(c.ballot+1, wire.NoReplica)
	c.role = Candidate
	c.el.votedFor = c.o.ID
	c.el.votes = make([]bool, c.o.N)
	c.el.votes[c.o.ID] = true
	c.resetElectionTimer()
	last, lastBallot := c.voteLog()
	c.log.Info("starting election", zap.Uint32("ballot", uint32(c.ballot)))
	for p := range c.o.N {
		if wire.ReplicaID(p) != c.o.ID {
			c.o.Out.ToReplica(wire.ReplicaID(p), &wire.RequestVote{Ballot: c.ballot, Candidate: c.o.ID, LastSlot: last, LastBallot: lastBallot})
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

func (c *Core) onRequestVote(m *wire.RequestVote) {
	if m.Ballot > c.ballot {
		c.becomeFollower(m.Ballot, wire.NoReplica)
	}
	granted := false
	if m.Ballot == c.ballot && c.role == Follower && (c.el.votedFor == wire.NoReplica || c.el.votedFor == m.Candidate) {
		last, lastBallot := c.voteLog()
		if m.LastBallot > lastBallot || m.LastBallot == lastBallot && m.LastSlot >= last {
			granted = true
			c.el.votedFor = m.Candidate
			c.resetElectionTimer()
		}
	}
	c.o.Out.ToReplica(m.Candidate, &wire.RequestVoteReply{Ballot: c.ballot, Replica: c.o.ID, Granted: granted})
}

func (c *Core) onRequestVoteReply(m *wire.RequestVoteReply) {
	if m.Ballot > c.ballot {
		c.becomeFollower(m.Ballot, wire.NoReplica)
		return
	}
	if c.role != Candidate || m.Ballot != c.ballot || !m.Granted || m.Replica < 0 || int(m.Replica) >= c.o.N {
		return
	}
	c.el.votes[m.Replica] = true
	n := 0
	for _, v := range c.el.votes {
		if v {
			n++
		}
	}
	if n >= c.o.N/2+1 {
		c.becomeLeader()
	}
}

// becomeFollower adopts ballot b (when higher) and follows leader. Work
// that only a leader may do is dropped: clients retry it. The election
// timer is left alone: only hearing a leader or granting a vote restarts
// it, so that a candidate whose log is behind cannot keep the replicas
// that could win from standing.
func (c *Core) becomeFollower(b wire.Ballot, leader wire.ReplicaID) {
	if b > c.ballot {
		c.ballot = b
		c.el.votedFor = wire.NoReplica
		c.matchedUpTo = 0
		defer c.viewChanged()
	}
	if c.role == Leader {
		c.log.Info("stepping down", zap.Uint32("ballot", uint32(b)))
	}
	if c.role != Follower {
		clear(c.held)
		clear(c.heldOrder)
		c.heldOrder = c.heldOrder[:0]
		c.rec = nil
	}
	c.role = Follower
	c.leader = leader
}

// PeerDown tells the core that its connection to peer r broke. Losing the
// leader's connection shortens the wait for an election to a random
// fraction of the heartbeat period (PROTOCOL.md 6.1 allows it); the
// randomisation keeps followers from splitting the vote.
func (c *Core) PeerDown(r wire.ReplicaID) {
	if r != c.leader || c.role == Leader {
		return
	}
	soon := c.o.Rand.Int64N(int64(4*c.o.HeartbeatInterval)) + int64(c.o.HeartbeatInterval)
	c.lastHeard = c.o.Now() - c.el.timeout + soon
}
