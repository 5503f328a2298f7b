package replica

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// The vote rule, PROTOCOL.md 6.2, with the pre-vote of docs/DECISIONS.md
// 20 and the membership rule of 6.10.

// voterWithTwoBallots is replica 1 of five whose log holds slots 1-2 of
// ballot 0 (committed) and slots 3-4 of ballot 1, received from leader 3
// of ballot 1, which has since fallen silent. Its log is judged by
// (last ballot, last slot) = (1, 4).
func voterWithTwoBallots(t *testing.T) *testCore {
	t.Helper()
	c := followerWith(t, 1, 5, 2, put(7, 1, 1, "a"), put(7, 2, 2, "b"))
	require.NoError(t, c.StepReplica(3, &wire.Accept{Ballot: 1, Leader: 3, PrevSlot: 2, PrevBallot: 0,
		Entries: []wire.Entry{putIn(1, 8, 1, 3, "c"), putIn(1, 8, 2, 4, "d")}, LeaderCommit: 2}))
	require.Equal(t, kvs.Slot(4), c.LastSlot())
	require.Equal(t, wire.Ballot(1), c.Ballot())
	c.out.discard()
	c.silence()
	return c
}

// TestVoteOnlyForUpToDateLog: PROTOCOL.md 6.2. "A replica grants ... only
// if the candidate's log is at least as up to date as its own, comparing
// (LastBallot, LastSlot) lexicographically." The rule is what keeps every
// committed entry in the next leader's log: a committed entry is held by a
// majority, and a candidate lacking it cannot collect a vote from any
// replica of that majority.
//
// Each case is checked on two paths: a candidate standing in a new ballot
// (pre-vote, then vote), and a candidate of the ballot the voter is
// already in (it learned ballot 3 from another replica's heartbeat, so
// only the vote rule of RequestVote judges the candidate).
func TestVoteOnlyForUpToDateLog(t *testing.T) {
	cases := []struct {
		name       string
		lastBallot wire.Ballot
		lastSlot   kvs.Slot
		granted    bool
	}{
		{"same log", 1, 4, true},
		{"longer log, same last ballot", 1, 6, true},
		{"shorter log, newer last ballot", 2, 3, true},
		{"shorter log, same last ballot", 1, 3, false},
		{"longer log, older last ballot", 0, 9, false},
		{"empty log", 0, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name+"/new ballot", func(t *testing.T) {
			c := voterWithTwoBallots(t)
			require.Equal(t, tc.granted, c.preVote(t, 2, 3, tc.lastSlot, tc.lastBallot), "pre-vote")
			require.Equal(t, tc.granted, c.vote(t, 2, 3, tc.lastSlot, tc.lastBallot), "vote")
			if tc.granted {
				require.Equal(t, wire.Ballot(3), c.Ballot(), "granting a vote adopts the ballot")
				require.Equal(t, wire.ReplicaID(2), c.el.votedFor)
			} else {
				require.Equal(t, wire.Ballot(1), c.Ballot(), "a refused candidate moves no ballot")
				require.Equal(t, wire.NoReplica, c.el.votedFor)
			}
			require.Equal(t, kvs.Slot(4), c.LastSlot(), "voting changes no log")
		})
		t.Run(tc.name+"/current ballot", func(t *testing.T) {
			c := voterWithTwoBallots(t)
			// Replica 4 leads ballot 3; its heartbeat does not match this
			// log, so it changes nothing but the ballot.
			require.NoError(t, c.StepReplica(4, &wire.Accept{Ballot: 3, Leader: 4, PrevSlot: 9, PrevBallot: 2}))
			require.Equal(t, wire.Ballot(3), c.Ballot())
			require.Equal(t, kvs.Slot(4), c.LastSlot())
			require.Equal(t, tc.granted, c.vote(t, 2, 3, tc.lastSlot, tc.lastBallot))
		})
	}
}

// TestVoteRecheckedAfterPreVote: PROTOCOL.md 6.2. The vote rule is applied
// to the log the voter holds when the RequestVote arrives, not to the one
// it held at the pre-vote. Here the old leader was only slow: between the
// pre-vote and the vote the voter accepted slot 3, which with n = 3 the
// leader may have committed (and answered) on the strength of this very
// acknowledgement. Granting the vote would elect a leader without it.
func TestVoteRecheckedAfterPreVote(t *testing.T) {
	c := followerWith(t, 1, 3, 2, put(7, 1, 1, "a"), put(7, 2, 2, "b"))
	c.silence()
	require.True(t, c.preVote(t, 2, 1, 2, 0), "the candidate's log is as long as the voter's")

	require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, PrevSlot: 2, PrevBallot: 0,
		Entries: []wire.Entry{put(7, 3, 3, "c")}, LeaderCommit: 2}))
	acks := msgsOf[*wire.AcceptAck](c.out.takePeer())
	require.Len(t, acks, 1)
	require.True(t, acks[0].Success)
	require.Equal(t, kvs.Slot(3), acks[0].MatchSlot)

	require.False(t, c.vote(t, 2, 1, 2, 0), "the candidate lacks slot 3, which this replica acknowledged")
	require.Equal(t, wire.NoReplica, c.el.votedFor)
	require.Equal(t, Follower, c.role)
}

// TestOneVotePerBallot: PROTOCOL.md 6.2, "a replica grants at most one
// vote per ballot": two candidates of one ballot cannot both collect a
// majority. Another candidate is refused whatever its log; the same
// candidate asking again is answered the same; a later ballot gets a vote
// of its own.
func TestOneVotePerBallot(t *testing.T) {
	c := followerWith(t, 1, 5, 2, put(7, 1, 1, "a"), put(7, 2, 2, "b"))
	c.silence()
	require.True(t, c.preVote(t, 2, 1, 2, 0))
	require.True(t, c.vote(t, 2, 1, 2, 0))
	require.Equal(t, wire.Ballot(1), c.Ballot())

	require.False(t, c.preVote(t, 3, 1, 5, 0), "ballot 1 is not above the voter's")
	require.False(t, c.vote(t, 3, 1, 5, 0), "the vote of ballot 1 went to replica 2, however long replica 3's log")
	require.True(t, c.vote(t, 2, 1, 2, 0), "a re-sent request of the same candidate")
	require.Equal(t, wire.ReplicaID(2), c.el.votedFor)

	require.True(t, c.preVote(t, 3, 2, 2, 0), "ballot 1 has no known leader")
	require.True(t, c.vote(t, 3, 2, 2, 0), "ballot 2 has a vote of its own")
	require.Equal(t, wire.ReplicaID(3), c.el.votedFor)
}

// TestPreVoteRule: docs/DECISIONS.md 20, on top of PROTOCOL.md 6.2. A
// pre-vote is granted only for a ballot above the voter's, while the
// voter's leader is silent, to a candidate whose log passes the vote rule;
// granting or refusing it changes neither the ballot nor the vote, so a
// replica that keeps pre-voting disturbs nobody.
func TestPreVoteRule(t *testing.T) {
	cases := []struct {
		name       string
		silent     bool
		b          wire.Ballot
		lastSlot   kvs.Slot
		lastBallot wire.Ballot
		granted    bool
	}{
		{"leader heard just now", false, 1, 2, 0, false},
		{"ballot not above the voter's", true, 0, 2, 0, false},
		{"log behind", true, 1, 1, 0, false},
		{"log up to date", true, 1, 2, 0, true},
		{"log ahead", true, 1, 7, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := followerWith(t, 1, 3, 2, put(7, 1, 1, "a"), put(7, 2, 2, "b"))
			if tc.silent {
				c.silence()
			}
			require.Equal(t, tc.granted, c.preVote(t, 2, tc.b, tc.lastSlot, tc.lastBallot))
			require.Equal(t, wire.Ballot(0), c.Ballot())
			require.Equal(t, wire.NoReplica, c.el.votedFor)
			require.Equal(t, Follower, c.role)
			require.Equal(t, wire.ReplicaID(0), c.Leader())
		})
	}
}

// TestCandidateNeedsMajorities: PROTOCOL.md 6.2 and docs/DECISIONS.md 20.
// A replica whose leader fell silent raises its ballot only once a majority
// (itself included) granted its pre-vote, and leads only once a majority
// granted its vote in that ballot; grants of another ballot do not count.
// It then starts recovery (6.3 step 1) rather than serving at once.
func TestCandidateNeedsMajorities(t *testing.T) {
	c := followerWith(t, 1, 5, 2, put(7, 1, 1, "a"), put(7, 2, 2, "b"))
	c.silence()
	c.Tick()
	pre := msgsOf[*wire.PreVote](c.out.takePeer())
	require.Len(t, pre, 4)
	require.Equal(t, wire.Ballot(1), pre[0].Ballot)
	require.Equal(t, kvs.Slot(2), pre[0].LastSlot)
	require.Equal(t, wire.Ballot(0), c.Ballot(), "a pre-vote raises no ballot")

	preReply := func(from wire.ReplicaID, granted bool) {
		require.NoError(t, c.StepReplica(from, &wire.PreVoteReply{Ballot: 0, PreBallot: 1, Replica: from, Granted: granted,
			Lives: lifeOf(5, from)}))
	}
	preReply(2, true)
	preReply(3, false)
	require.Equal(t, wire.Ballot(0), c.Ballot(), "two of five")
	preReply(4, true)
	require.Equal(t, wire.Ballot(1), c.Ballot(), "three of five")
	require.Equal(t, Candidate, c.role)
	rv := msgsOf[*wire.RequestVote](c.out.takePeer())
	require.Len(t, rv, 4)
	require.Equal(t, wire.RequestVote{Ballot: 1, Candidate: 1, LastSlot: 2, LastBallot: 0}, *rv[0])

	voteReply := func(from wire.ReplicaID, b wire.Ballot) {
		require.NoError(t, c.StepReplica(from, &wire.RequestVoteReply{Ballot: b, Replica: from, Granted: true, Lives: lifeOf(5, from)}))
	}
	voteReply(2, 1)
	voteReply(3, 0) // a grant of another ballot
	require.Equal(t, Candidate, c.role, "two valid votes of five")
	voteReply(4, 1)
	require.True(t, c.IsLeader())
	require.NotNil(t, c.rec, "the new leader recovers before it serves")
	require.Len(t, msgsOf[*wire.Collect](c.out.takePeer()), 4)
}

// TestRestartedReplicaNeverVotes: PROTOCOL.md 6.10. A replica that
// restarted without its state "MUST NOT vote" until it has caught up with
// a leader it heard after restarting: with n = 3, an empty replica's vote
// would elect a candidate lacking committed entries. It starts no election
// either. Once it has applied the leader's mark it is a member and votes
// again, which shows the refusals were for membership alone (its empty
// log never made any candidate's log fall short).
func TestRestartedReplicaNeverVotes(t *testing.T) {
	c := newStepCore(t, 1, 3, func(o *Options) { o.StartAsMember = false })
	require.False(t, c.Member())

	c.silence()
	c.Tick()
	sent := c.out.takePeer()
	require.Len(t, msgsOf[*wire.Join](sent), 2, "it asks to join")
	require.Empty(t, msgsOf[*wire.PreVote](sent), "it starts no election")
	require.False(t, c.preVote(t, 2, 1, 0, 0))
	require.False(t, c.vote(t, 2, 1, 0, 0))
	require.Equal(t, wire.Ballot(0), c.Ballot())

	// The candidate's ballot reached it through a leader's heartbeat: only
	// the vote rule of RequestVote can refuse.
	require.NoError(t, c.StepReplica(2, &wire.Accept{Ballot: 1, Leader: 2, PrevSlot: 5, PrevBallot: 1}))
	require.Equal(t, wire.Ballot(1), c.Ballot())
	require.False(t, c.vote(t, 0, 1, 0, 0), "a non-member's vote in its current ballot")

	// Leader 2 answers the Join with mark 2: the replica follows it as a
	// learner and becomes a member once slot 2 is applied.
	require.NoError(t, c.StepReplica(2, &wire.JoinReply{Ballot: 1, Replica: 2, Leader: 2, LastSlot: 2, Member: true, Mark: 2, Incarnation: 9}))
	require.NoError(t, c.StepReplica(2, &wire.Accept{Ballot: 1, Leader: 2,
		Entries: []wire.Entry{putIn(1, 7, 1, 1, "a"), putIn(1, 7, 2, 2, "b")}, LeaderCommit: 1}))
	acks := msgsOf[*wire.AcceptAck](c.out.takePeer())
	require.Len(t, acks, 1)
	require.True(t, acks[0].Learner, "a learner's copy does not count toward a commit")
	c.silence()
	require.False(t, c.preVote(t, 0, 2, 2, 1), "slot 1 of mark 2 applied: still a learner")

	require.NoError(t, c.StepReplica(2, &wire.Accept{Ballot: 1, Leader: 2, PrevSlot: 2, PrevBallot: 1, LeaderCommit: 2}))
	require.False(t, c.Member(), "mark applied, but one member answered of the two it waits for")
	require.NoError(t, c.StepReplica(0, &wire.JoinReply{Ballot: 1, Replica: 0, Leader: 2, LastSlot: 2, Member: true, Incarnation: 8}))
	require.True(t, c.Member())
	c.silence()
	require.True(t, c.preVote(t, 0, 2, 2, 1), "a member with the same log")
	require.True(t, c.vote(t, 0, 2, 2, 1))
}

// TestLostLeaderConnection: PROTOCOL.md 6.1. A follower whose connection
// from the leader breaks stands within three to seven heartbeats instead
// of an election timeout, and no longer counts the leader alive for another's
// pre-vote: when the leader dies, the followers see it together, and the
// first to stand must win at once. A broken connection from another
// replica changes nothing, and the leader's next message makes it alive
// again.
func TestLostLeaderConnection(t *testing.T) {
	c := followerWith(t, 1, 3, 1, put(7, 1, 1, "a"))
	require.False(t, c.preVote(t, 2, 1, 1, 0), "the leader was heard just now")
	c.PeerDown(2)
	require.False(t, c.preVote(t, 2, 1, 1, 0), "another replica's connection")

	c.PeerDown(0)
	require.True(t, c.preVote(t, 2, 1, 1, 0), "the leader's connection broke")
	c.now += int64(3*c.o.HeartbeatInterval) - 1
	c.Tick()
	require.Empty(t, msgsOf[*wire.PreVote](c.out.takePeer()), "not before three heartbeats: a live leader dials again")
	c.now += int64(4 * c.o.HeartbeatInterval)
	c.Tick()
	require.Len(t, msgsOf[*wire.PreVote](c.out.takePeer()), 2, "it stands within seven heartbeats")

	require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, PrevSlot: 1, PrevBallot: 0, LeaderCommit: 1}))
	c.out.discard()
	require.False(t, c.preVote(t, 2, 1, 1, 0), "the leader is heard again")
}

// TestStalePreVoteStartsNoElection: a replica pre-voting for ballot 1
// learns that ballot 1 elected another leader; the grants for its
// pre-vote, arriving late, must not start an election in ballot 2, for
// which nobody pre-voted (the pre-vote majority is what a restarted
// replica's Join relies on, docs/DECISIONS.md 50).
func TestStalePreVoteStartsNoElection(t *testing.T) {
	c := followerWith(t, 3, 5, 0)
	c.silence()
	c.Tick()
	require.Len(t, msgsOf[*wire.PreVote](c.out.takePeer()), 4)
	require.NoError(t, c.StepReplica(2, &wire.Accept{Ballot: 1, Leader: 2}))
	c.out.discard()
	for _, p := range []wire.ReplicaID{1, 4} {
		require.NoError(t, c.StepReplica(p, &wire.PreVoteReply{Ballot: 0, PreBallot: 1, Replica: p, Granted: true, Lives: lifeOf(c.o.N, p)}))
	}
	require.Empty(t, msgsOf[*wire.RequestVote](c.out.takePeer()), "an election started")
	require.Equal(t, wire.Ballot(1), c.Ballot())
	require.Equal(t, Follower, c.Role())
}
