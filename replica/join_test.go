package replica

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/replica/storage"
	"swiftpaxos/wire"
)

// Founding a cluster with a majority of new replicas (join.go,
// docs/DECISIONS.md 37), step by step on one core.

// joiner is replica id of n, started without state; isNew is -cluster new.
// Its clock starts past the founding grace, which
// TestMajorityWaitsForTheOthersAnswers is about.
func joiner(t *testing.T, id wire.ReplicaID, n int, isNew bool) *testCore {
	t.Helper()
	c := newStepCore(t, id, n, func(o *Options) { o.StartAsMember, o.ClusterNew = false, isNew })
	c.now = c.foundingGrace()
	return c
}

// fresh is the JoinReply of a replica with nothing appended.
func freshReply(p wire.ReplicaID, isNew bool) *wire.JoinReply {
	return &wire.JoinReply{Replica: p, Leader: wire.NoReplica, Incarnation: uint64(p) + 100, ClusterNew: isNew}
}

func TestMajorityOfNewReplicasFounds(t *testing.T) {
	for _, tc := range []struct {
		name      string
		id        wire.ReplicaID
		n         int
		isNew     bool
		replies   []*wire.JoinReply
		member    bool
		leads     bool
		state     wire.JoinState
		fresh     int
		freshNew  int
		leaderIs0 bool
	}{
		{name: "follower and one new peer", id: 1, n: 3, isNew: true, replies: []*wire.JoinReply{freshReply(2, true)},
			member: true, leaderIs0: true},
		{name: "initial leader and one new peer", id: 0, n: 3, isNew: true, replies: []*wire.JoinReply{freshReply(1, true)},
			member: true, leads: true, leaderIs0: true},
		{name: "alone", id: 1, n: 3, isNew: true,
			state: wire.JoinFounding, fresh: 1, freshNew: 1},
		{name: "a peer started existing does not count", id: 1, n: 3, isNew: true, replies: []*wire.JoinReply{freshReply(2, false)},
			state: wire.JoinFounding, fresh: 2, freshNew: 1},
		{name: "existing replicas need everyone", id: 1, n: 3, replies: []*wire.JoinReply{freshReply(2, false)},
			state: wire.JoinFounding, fresh: 2},
		{name: "n=5 needs three new", id: 1, n: 5, isNew: true, replies: []*wire.JoinReply{freshReply(2, true), freshReply(3, false)},
			state: wire.JoinFounding, fresh: 3, freshNew: 2},
		{name: "n=5 three new", id: 1, n: 5, isNew: true, replies: []*wire.JoinReply{freshReply(2, true), freshReply(3, true)},
			member: true, leaderIs0: true},
		// The initial leader started existing may have led ballot 0
		// before it lost its state: the founders elect a leader instead.
		{name: "existing initial leader among new ones", id: 0, n: 5, replies: []*wire.JoinReply{freshReply(2, true), freshReply(3, true), freshReply(4, true)},
			member: true},
		// A member that holds no entry may hold witness records of
		// commands that completed on the fast path: in memory it is no
		// fresh replica, and the replica that heard it joins as a
		// learner (here at once: the leader's mark is slot 0, and the
		// other replica answered too; with the leader alone it waits).
		{name: "the leader answered, holding nothing", id: 1, n: 3, isNew: true,
			replies: []*wire.JoinReply{{Replica: 0, Leader: 0, Member: true, Incarnation: 7}, {Replica: 2, Leader: 0, Member: true, Incarnation: 8}},
			member:  true, leaderIs0: true},
		{name: "the leader answered, the other replica is new", id: 1, n: 3, isNew: true,
			replies: []*wire.JoinReply{{Replica: 0, Leader: 0, Member: true, Incarnation: 7}, freshReply(2, true)},
			member:  true, leaderIs0: true},
		{name: "the leader alone answered", id: 1, n: 3, isNew: true,
			replies: []*wire.JoinReply{{Replica: 0, Leader: 0, Member: true, Incarnation: 7}},
			state:   wire.JoinLearner, fresh: 1, freshNew: 1},
		{name: "a member answered, holding nothing", id: 1, n: 3,
			replies: []*wire.JoinReply{{Replica: 0, Leader: wire.NoReplica, Member: true, Incarnation: 7}},
			state:   wire.JoinLearner, fresh: 1},
		{name: "a peer holds a log", id: 1, n: 3, isNew: true,
			replies: []*wire.JoinReply{{Replica: 0, Leader: wire.NoReplica, LastSlot: 4, Incarnation: 7}, freshReply(2, true)},
			state:   wire.JoinLearner, fresh: 2, freshNew: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := joiner(t, tc.id, tc.n, tc.isNew)
			for _, r := range tc.replies {
				require.NoError(t, c.StepReplica(r.Replica, r))
			}
			require.Equal(t, tc.member, c.Member())
			assert.Equal(t, tc.leads, c.IsLeader())
			if tc.member {
				want := wire.NoReplica
				if tc.leaderIs0 {
					want = 0
				}
				assert.Equal(t, want, c.Leader())
				return
			}
			state, fresh, freshNew := c.JoinStatus()
			assert.Equal(t, tc.state, state)
			assert.Equal(t, tc.fresh, fresh, "fresh")
			assert.Equal(t, tc.freshNew, freshNew, "fresh and new")
		})
	}
}

// A majority of new replicas founds without the others only once they had
// the founding grace to answer: a replica that started first may have
// lost its answer to their first Join (it dialled them before they
// listened), and founding without it would leave the initial leader out.
func TestMajorityWaitsForTheOthersAnswers(t *testing.T) {
	c := newStepCore(t, 1, 3, func(o *Options) { o.StartAsMember, o.ClusterNew = false, true })
	c.now = 1
	c.Tick()
	require.NotEmpty(t, msgsOf[*wire.Join](c.out.takePeer()))
	require.NoError(t, c.StepReplica(2, freshReply(2, true)))
	require.False(t, c.Member(), "replica 0 has not answered yet")
	c.now += c.foundingGrace() - 1
	require.NoError(t, c.StepReplica(2, freshReply(2, true)))
	require.False(t, c.Member())
	c.now++
	require.NoError(t, c.StepReplica(2, freshReply(2, true)))
	require.True(t, c.Member(), "the grace is over")
	assert.Equal(t, wire.ReplicaID(0), c.Leader())

	// Replica 0's answer within the grace: every replica founds, and the
	// initial leader leads ballot 0.
	zero := newStepCore(t, 0, 3, func(o *Options) { o.StartAsMember, o.ClusterNew = false, true })
	zero.now = 1
	zero.Tick()
	require.NoError(t, zero.StepReplica(1, freshReply(1, true)))
	require.False(t, zero.Member())
	require.NoError(t, zero.StepReplica(2, freshReply(2, true)))
	require.True(t, zero.Member())
	assert.True(t, zero.IsLeader())
}

// An answer counts toward the status's "up" figures only while it is
// recent: a replica that stopped answering is no longer counted up.
func TestJoinStatusForgetsOldAnswers(t *testing.T) {
	c := joiner(t, 1, 3, true)
	require.NoError(t, c.StepReplica(2, freshReply(2, false)))
	_, fresh, _ := c.JoinStatus()
	require.Equal(t, 2, fresh)
	c.now += 4 * int64(c.o.HeartbeatInterval)
	_, fresh, _ = c.JoinStatus()
	assert.Equal(t, 1, fresh)
}

// A founder answers the Join of a peer that was fresh and new when it
// answered, in the same incarnation, with the founders: that peer is a
// member at once, as in a bootstrap by every replica.
func TestLateFounderOfAMajorityIsTold(t *testing.T) {
	a := joiner(t, 1, 3, true)
	bReply := freshReply(2, true)
	require.NoError(t, a.StepReplica(2, bReply))
	require.True(t, a.Member())
	a.out.discard()
	require.NoError(t, a.StepReplica(2, &wire.Join{Replica: 2, Incarnation: bReply.Incarnation}))
	replies := msgsOf[*wire.JoinReply](a.out.takePeer())
	require.Len(t, replies, 1)
	b := joiner(t, 2, 3, true)
	b.incarnation = bReply.Incarnation
	require.NoError(t, b.StepReplica(1, replies[0]))
	assert.True(t, b.Member())
}

// A member vouches only for founders started -cluster new: an initial
// leader started existing, which answered fresh, is not told it is a
// founder (it may have led ballot 0 before it lost its state); having
// heard members, it waits for a leader's mark, as a learner.
func TestExistingReplicaIsNoFounder(t *testing.T) {
	zero := joiner(t, 0, 3, false)
	one := joiner(t, 1, 3, true)
	zeroReply := freshReply(0, false)
	zeroReply.Incarnation = zero.incarnation
	require.NoError(t, one.StepReplica(0, zeroReply))
	require.NoError(t, one.StepReplica(2, freshReply(2, true)))
	require.True(t, one.Member())
	one.out.discard()
	require.NoError(t, one.StepReplica(0, &wire.Join{Replica: 0, Incarnation: zero.incarnation}))
	replies := msgsOf[*wire.JoinReply](one.out.takePeer())
	require.Len(t, replies, 1)
	assert.Empty(t, replies[0].Founders)
	require.NoError(t, zero.StepReplica(1, replies[0]))
	require.False(t, zero.Member(), "not a founder on replica 1's word")
	require.NoError(t, zero.StepReplica(2, &wire.JoinReply{Replica: 2, Leader: 1, Member: true, Incarnation: 102}))
	require.False(t, zero.Member(), "members answered: it waits for a leader's mark")
	assert.False(t, zero.IsLeader())
}

// A founder told so after the founders elected a leader (it learnt their
// ballot from their answers) is a member of that ballot, not a second
// leader of it: the initial leader leads ballot 0 only.
func TestLateFounderDoesNotLeadALaterBallot(t *testing.T) {
	zero := joiner(t, 0, 3, true)
	require.NoError(t, zero.StepReplica(2, &wire.Accept{Ballot: 1, Leader: 2}))
	require.Equal(t, wire.Ballot(1), zero.Ballot())
	require.False(t, zero.Member())
	founders := []uint64{zero.incarnation, 101, 102}
	require.NoError(t, zero.StepReplica(1, &wire.JoinReply{Ballot: 1, Replica: 1, Leader: 2, Member: true, Incarnation: 101, Founders: founders}))
	require.True(t, zero.Member())
	assert.False(t, zero.IsLeader(), "a second leader of ballot 1")
}

// A replica that restarted empty learns from a member's answer that the
// cluster is in ballot 1. The initial leader, cut off since ballot 0 and
// holding none of ballot 1's entries, answers it as leader of ballot 0:
// that answer makes it no member (it would then vote for that leader,
// whose log lacks what ballot 1 committed), and neither does the old
// leader's Accept.
func TestLearnerIgnoresALeaderOfAnEarlierBallot(t *testing.T) {
	two := joiner(t, 2, 3, false)
	require.NoError(t, two.StepReplica(1, &wire.JoinReply{Ballot: 1, Replica: 1, Leader: 2, LastSlot: 49, Member: true, Incarnation: 101}))
	require.False(t, two.Member())
	require.Equal(t, wire.Ballot(1), two.Ballot(), "the member's ballot")
	require.NoError(t, two.StepReplica(0, &wire.JoinReply{Ballot: 0, Replica: 0, Leader: 0, Member: true, Incarnation: 100}))
	require.NoError(t, two.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0}))
	require.False(t, two.Member(), "made a member by a leader of ballot 0")
	require.NoError(t, two.StepReplica(1, &wire.JoinReply{Ballot: 2, Replica: 1, Leader: 1, LastSlot: 49, Member: true, Mark: 0, Incarnation: 101}))
	require.True(t, two.Member(), "the leader of ballot 2 marks it")
}

// The same answers in the other order: the old leader's mark comes first,
// and the replica waits for a majority of the others to answer as members
// before it counts; the member's later ballot then voids it.
func TestLearnerWaitsForAMajorityOfMembers(t *testing.T) {
	two := joiner(t, 2, 3, false)
	require.NoError(t, two.StepReplica(0, &wire.JoinReply{Ballot: 0, Replica: 0, Leader: 0, Member: true, Incarnation: 100}))
	require.False(t, two.Member(), "made a member on one leader's word")
	require.NoError(t, two.StepReplica(1, &wire.JoinReply{Ballot: 1, Replica: 1, Leader: 2, LastSlot: 49, Member: true, Incarnation: 101}))
	require.False(t, two.Member(), "made a member by a leader of ballot 0")
	two.silence()
	two.Tick()
	require.Len(t, msgsOf[*wire.Join](two.out.takePeer()), 2, "it asks again")
	require.NoError(t, two.StepReplica(1, &wire.JoinReply{Ballot: 2, Replica: 1, Leader: 1, LastSlot: 49, Member: true, Incarnation: 101}))
	require.True(t, two.Member(), "the leader of ballot 2 marks it, a majority of the others answered as members")
}

// TestLearnerHearsOfAPreVoteInALaterBallot: docs/DECISIONS.md 50. Five
// replicas; replica 0 leads ballot 0. Replica 3 collected pre-votes for
// ballot 1 from replicas 1 and 4, and replica 4 voted for it before it
// crashed and came back empty. Replicas 0, 1 and 2, a majority of the
// others, answer its Join as members of ballot 0, and replica 0 marks it.
// Were the mark to count, a write could commit with 0, 2 and the new 4
// while replica 1 can still grant replica 3 the vote that, with the lost
// one, elects it in ballot 1 without the write. Replica 1 says it granted
// a pre-vote in ballot 1, so the learner waits for a leader of ballot 1
// or later.
func TestLearnerHearsOfAPreVoteInALaterBallot(t *testing.T) {
	one := followerWith(t, 1, 5, 0)
	one.silence()
	require.True(t, one.preVote(t, 3, 1, 0, 0))
	four := joiner(t, 4, 5, false)
	require.NoError(t, one.StepReplica(4, &wire.Join{Replica: 4, Incarnation: four.incarnation}))
	replies := msgsOf[*wire.JoinReply](one.out.takePeer())
	require.Len(t, replies, 1)
	require.Equal(t, wire.Ballot(0), replies[0].Ballot)
	require.Equal(t, wire.Ballot(1), replies[0].PreGranted)

	require.NoError(t, four.StepReplica(0, &wire.JoinReply{Ballot: 0, Replica: 0, Leader: 0, Member: true, Incarnation: 100}))
	require.NoError(t, four.StepReplica(1, replies[0]))
	require.NoError(t, four.StepReplica(2, &wire.JoinReply{Ballot: 0, Replica: 2, Leader: 0, Member: true, Incarnation: 102}))
	require.NoError(t, four.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0}))
	require.False(t, four.Member(), "made a member by the leader of ballot 0")
	require.Equal(t, wire.Ballot(1), four.Ballot(), "the ballot replica 1 pre-voted in")

	require.True(t, one.vote(t, 3, 1, 0, 0), "replica 3 may still win ballot 1")
	require.NoError(t, four.StepReplica(3, &wire.JoinReply{Ballot: 1, Replica: 3, Leader: 3, Member: true, Incarnation: 103}))
	require.True(t, four.Member(), "the leader of ballot 1 marks it")
}

// TestDurablePreVoteIsWrittenDown: a durable replica's pre-vote grant
// leaves only once the hard state that remembers it is on disk, and a
// restart from that state still reports it to a Join.
func TestDurablePreVoteIsWrittenDown(t *testing.T) {
	c := newStepCore(t, 1, 3, func(o *Options) {
		o.Durable, o.StartAsMember = true, false
		o.Restore = &storage.State{Hard: storage.HardState{Member: true, Vote: wire.NoReplica}}
	})
	c.now += int64(c.o.ElectionTimeoutMin)
	require.NoError(t, c.StepReplica(2, &wire.PreVote{Ballot: 1, Candidate: 2}))
	rd := c.Ready()
	require.NotNil(t, rd.Persist)
	require.NotNil(t, rd.Persist.Hard)
	require.Equal(t, wire.Ballot(1), rd.Persist.Hard.PreGranted)
	require.Empty(t, msgsOf[*wire.PreVoteReply](envMsgs(rd.Messages)))
	replies := msgsOf[*wire.PreVoteReply](envMsgs(rd.AfterSync))
	require.Len(t, replies, 1)
	require.True(t, replies[0].Granted)

	restarted := newStepCore(t, 1, 3, func(o *Options) {
		o.Durable, o.StartAsMember = true, false
		o.Restore = &storage.State{Hard: *rd.Persist.Hard}
	})
	require.NoError(t, restarted.StepReplica(0, &wire.Join{Replica: 0, Incarnation: 9}))
	joins := msgsOf[*wire.JoinReply](envMsgs(restarted.Ready().AfterSync))
	require.Len(t, joins, 1)
	require.Equal(t, wire.Ballot(1), joins[0].PreGranted)
}

func envMsgs(es []Envelope) []wire.Message {
	out := make([]wire.Message, 0, len(es))
	for _, e := range es {
		out = append(out, e.Msg)
	}
	return out
}
