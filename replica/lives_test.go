package replica

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/wire"
)

// livesWith is the lives of a reply from replica p that has heard of the
// given incarnations (by replica; unlisted ones 0), its own first life
// included unless listed.
func livesWith(n int, p wire.ReplicaID, known map[wire.ReplicaID]uint64) wire.Lives {
	ls := lifeOf(n, p)
	for r, life := range known {
		ls[r] = life
	}
	return ls
}

// TestCandidateCountsOnlyTheLatestLives: docs/DECISIONS.md 51. A
// candidate of five counts the pre-vote and the vote of a replica only
// while it has heard of no later life of it, whether it hears of one from
// the new life's Join or from another replica's grant.
func TestCandidateCountsOnlyTheLatestLives(t *testing.T) {
	c := followerWith(t, 3, 5, 0)
	c.silence()
	c.Tick()
	c.out.discard()
	grantPre := func(p wire.ReplicaID, ls wire.Lives) {
		require.NoError(t, c.StepReplica(p, &wire.PreVoteReply{PreBallot: 1, Replica: p, Granted: true, Lives: ls}))
	}
	grantPre(1, lifeOf(5, 1))
	require.NoError(t, c.StepReplica(1, &wire.Join{Replica: 1, Incarnation: 2}))
	c.out.discard()
	grantPre(4, lifeOf(5, 4))
	require.Equal(t, wire.Ballot(0), c.Ballot(), "counted the grant of replica 1's earlier life")

	grantPre(2, lifeOf(5, 2))
	require.Equal(t, Candidate, c.role, "three grants of current lives")
	grantVote := func(p wire.ReplicaID, ls wire.Lives) {
		require.NoError(t, c.StepReplica(p, &wire.RequestVoteReply{Ballot: 1, Replica: p, Granted: true, Lives: ls}))
	}
	grantVote(4, lifeOf(5, 4))
	grantVote(2, livesWith(5, 2, map[wire.ReplicaID]uint64{4: 7, 3: 50}))
	require.Equal(t, Candidate, c.role, "counted the vote of replica 4's earlier life")
	require.Equal(t, uint64(51), c.incarnation, "a later life of its own id was heard of")
	grantVote(1, livesWith(5, 1, map[wire.ReplicaID]uint64{1: 2}))
	require.True(t, c.IsLeader(), "replicas 1, 2 and 3 in their current lives, its own under its new number")
}

// TestLivesTravelInAnswers: a replica answers a Join, a pre-vote and a
// vote with the latest lives it heard of, its own included.
func TestLivesTravelInAnswers(t *testing.T) {
	c := followerWith(t, 1, 3, 0)
	require.NoError(t, c.StepReplica(2, &wire.Join{Replica: 2, Incarnation: 5}))
	joins := msgsOf[*wire.JoinReply](c.out.takePeer())
	require.Len(t, joins, 1)
	require.Equal(t, wire.Lives{0, 1, 5}, joins[0].Lives)
	c.silence()
	require.NoError(t, c.StepReplica(0, &wire.PreVote{Ballot: 1, Candidate: 0}))
	pre := msgsOf[*wire.PreVoteReply](c.out.takePeer())
	require.Len(t, pre, 1)
	require.True(t, pre[0].Granted)
	require.Equal(t, wire.Lives{0, 1, 5}, pre[0].Lives)
	require.NoError(t, c.StepReplica(0, &wire.RequestVote{Ballot: 1, Candidate: 0}))
	votes := msgsOf[*wire.RequestVoteReply](c.out.takePeer())
	require.Len(t, votes, 1)
	require.True(t, votes[0].Granted)
	require.Equal(t, wire.Lives{0, 1, 5}, votes[0].Lives)
	votes[0].Lives[2] = 9
	require.Equal(t, uint64(5), c.lives[2], "a message's lives are a copy")
}

// TestLearnerThatHearsOfALaterLifeOfItselfAsksAgain: a replica whose
// clock was set back since an earlier life starts with a lower
// incarnation; the first answer that knows the earlier one makes it take
// a higher one and ask again, discarding the answers about the lower one.
// A member (a durable replica restarted from its disk asks nobody) takes a
// higher one too.
func TestLearnerThatHearsOfALaterLifeOfItselfAsksAgain(t *testing.T) {
	c := joiner(t, 2, 3, false)
	c.Tick()
	require.Len(t, msgsOf[*wire.Join](c.out.takePeer()), 2)
	require.NoError(t, c.StepReplica(0, &wire.JoinReply{Replica: 0, Leader: 0, Member: true, Incarnation: 100,
		Lives: livesWith(3, 0, map[wire.ReplicaID]uint64{0: 100, 2: 40})}))
	require.Equal(t, uint64(41), c.incarnation)
	require.Nil(t, c.jn.replies[0], "an answer about the earlier life counts")
	c.Tick()
	joins := msgsOf[*wire.Join](c.out.takePeer())
	require.Len(t, joins, 2, "asked again at once")
	require.Equal(t, uint64(41), joins[0].Incarnation)
	for _, p := range []wire.ReplicaID{0, 1} {
		require.NoError(t, c.StepReplica(p, &wire.JoinReply{Replica: p, Leader: 0, Member: true, Incarnation: 100,
			Lives: livesWith(3, p, map[wire.ReplicaID]uint64{2: 40})}))
	}
	require.Nil(t, c.jn.replies[0], "a late answer to the Join of the earlier number counts")
	require.False(t, c.Member())
	for _, p := range []wire.ReplicaID{0, 1} {
		require.NoError(t, c.StepReplica(p, &wire.JoinReply{Replica: p, Leader: 0, Member: true, Incarnation: 100,
			Lives: livesWith(3, p, map[wire.ReplicaID]uint64{2: 41})}))
	}
	require.True(t, c.Member(), "the answers to the later number")

	member := followerWith(t, 1, 3, 0)
	require.NoError(t, member.StepReplica(0, &wire.JoinReply{Replica: 0, Leader: 0, Member: true,
		Lives: livesWith(3, 0, map[wire.ReplicaID]uint64{1: 40})}))
	require.Equal(t, uint64(41), member.incarnation, "a member takes a later one too")
	require.True(t, member.Member())
}

// TestMalformedLivesAreRefused: lives for another number of replicas, or
// without the sender's own, and a grant without lives, are invalid.
func TestMalformedLivesAreRefused(t *testing.T) {
	c := followerWith(t, 1, 3, 0)
	for _, m := range []wire.Message{
		&wire.JoinReply{Replica: 2, Leader: 0, Member: true, Lives: wire.Lives{1, 1}},
		&wire.PreVoteReply{PreBallot: 1, Replica: 2, Lives: wire.Lives{1, 1, 0}},
		&wire.RequestVoteReply{Replica: 2, Granted: true},
		&wire.PreVoteReply{PreBallot: 1, Replica: 2, Granted: true},
	} {
		requireInvalid(t, c.StepReplica(2, m))
	}
	c.silence()
	c.Tick()
	requireInvalid(t, c.StepReplica(2, &wire.PreVoteReply{PreBallot: 1, Replica: 2, Granted: true}))
}

// TestForgedIncarnationsAreRefused: an incarnation of 0 or above
// math.MaxInt64, in a Join or in lives, is refused, so that no number a
// replica takes wraps to 0 (where a founder's table would take it for an
// unknown one); a replica that hears of the highest number takes it, and
// no more.
func TestForgedIncarnationsAreRefused(t *testing.T) {
	c := followerWith(t, 1, 3, 0)
	for _, m := range []wire.Message{
		&wire.Join{Replica: 2},
		&wire.Join{Replica: 2, Incarnation: math.MaxUint64},
		&wire.JoinReply{Replica: 2, Leader: 0, Incarnation: math.MaxInt64 + 1},
		&wire.JoinReply{Replica: 2, Leader: 0, Lives: wire.Lives{0, math.MaxUint64, 1}},
		&wire.RequestVoteReply{Replica: 2, Granted: true, Lives: wire.Lives{0, 0, math.MaxInt64 + 1}},
	} {
		requireInvalid(t, c.StepReplica(2, m))
	}
	require.Equal(t, uint64(1), c.incarnation)
	require.NoError(t, c.StepReplica(2, &wire.JoinReply{Replica: 2, Leader: 0, Lives: wire.Lives{0, math.MaxInt64, 1}}))
	require.Equal(t, uint64(math.MaxInt64), c.incarnation, "the highest number")
	require.NoError(t, c.StepReplica(2, &wire.JoinReply{Replica: 2, Leader: 0, Lives: wire.Lives{0, math.MaxInt64, 1}}))
	require.Equal(t, uint64(math.MaxInt64), c.incarnation)
}

// TestRepliesCarryTheLivesOfTheirWitnesses: docs/DECISIONS.md 58. A
// witness's RecordAck names its life; the leader's LeaderReply names the
// lives it has heard of, a later life of a witness as soon as its Join
// arrives, and a message's lives are not changed by what is heard later.
func TestRepliesCarryTheLivesOfTheirWitnesses(t *testing.T) {
	w := followerWith(t, 1, 3, 0)
	acks := msgsOf[*wire.RecordAck](propose(w, 7, putCmd(1, "a")))
	require.Len(t, acks, 1)
	require.Equal(t, w.incarnation, acks[0].Life)

	c := leaderWith(t, 3)
	first := msgsOf[*wire.LeaderReply](propose(c, 7, putCmd(1, "a"), 1))
	require.Len(t, first, 1)
	require.Equal(t, wire.Lives{c.incarnation, 0, 0}, first[0].Lives)
	require.NoError(t, c.StepReplica(2, &wire.Join{Replica: 2, Incarnation: 5}))
	c.out.discard()
	second := msgsOf[*wire.LeaderReply](propose(c, 7, putCmd(2, "b"), 2))
	require.Len(t, second, 1)
	require.Equal(t, wire.Lives{c.incarnation, 0, 5}, second[0].Lives, "the new life, heard of from its Join")
	require.Equal(t, wire.Lives{c.incarnation, 0, 0}, first[0].Lives, "an earlier reply's lives are its own")
}
