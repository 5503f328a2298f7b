package replica

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// The promise that leases rest on (lease.go, docs/DECISIONS.md 55).

func leaseFollower(t *testing.T, m Mutation) *testCore {
	t.Helper()
	return newStepCore(t, 1, 3, func(o *Options) { o.LeaseReads, o.Mutation = true, m })
}

// TestPromiseRefusesVotesAfterAnAck: a follower that acknowledged its
// leader grants no pre-vote or vote for ElectionTimeoutMin after, even
// when its connection from the leader broke (PeerDown, which otherwise
// makes it grant pre-votes at once), and grants them afterwards.
func TestPromiseRefusesVotesAfterAnAck(t *testing.T) {
	c := leaseFollower(t, Mutation{})
	c.silence() // past the start-up promise
	require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, Round: 1}))
	require.Len(t, msgsOf[*wire.AcceptAck](c.out.takePeer()), 1)
	c.PeerDown(0)
	c.now += int64(c.o.ElectionTimeoutMin) - 1
	require.False(t, c.preVote(t, 2, 1, 0, 0), "pre-vote within the promise")
	require.False(t, c.vote(t, 2, 0, 0, 0), "vote within the promise")
	c.Tick()
	require.Empty(t, msgsOf[*wire.PreVote](c.out.takePeer()), "stands within the promise")
	c.now++
	require.True(t, c.preVote(t, 2, 1, 0, 0), "pre-vote once the promise ended")
	require.True(t, c.vote(t, 2, 1, 0, 0), "vote once the promise ended")
}

// TestPromiseFromTheStart: a replica that starts does not know what an
// earlier life acknowledged, so it promises from its start.
func TestPromiseFromTheStart(t *testing.T) {
	c := leaseFollower(t, Mutation{})
	c.PeerDown(0)
	c.now += int64(c.o.ElectionTimeoutMin) - 1
	require.False(t, c.preVote(t, 2, 1, 0, 0))
	c.now++
	require.True(t, c.preVote(t, 2, 1, 0, 0))
}

// TestNoPromiseWithoutLeases: without leases the same follower grants the
// pre-vote as soon as its connection from the leader broke, and so does
// one with the LeaseWithoutPromise mutation.
func TestNoPromiseWithoutLeases(t *testing.T) {
	for _, c := range []*testCore{newStepCore(t, 1, 3, nil), leaseFollower(t, Mutation{LeaseWithoutPromise: true})} {
		c.silence()
		require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, Round: 1}))
		c.out.discard()
		c.PeerDown(0)
		require.True(t, c.preVote(t, 2, 1, 0, 0))
	}
}

// TestLeaseFromTheRoundsStart: the leader's lease runs from the start of
// the round a majority confirmed, for three quarters of the promise; a
// leader read is answered at once while it holds, and held for a round
// after. LeaseLeft and LeaderReads (status and metrics) say so.
func TestLeaseFromTheRoundsStart(t *testing.T) {
	c := leaderWith(t, 3, 1)
	c.o.LeaseReads = true
	c.ack(t, 1, 1)
	c.out.discard()
	start := c.now + int64(c.o.HeartbeatInterval)
	c.now = start
	c.Tick() // a heartbeat begins a round
	beats := msgsOf[*wire.Accept](c.out.takePeer())
	require.Len(t, beats, 2, "a heartbeat to each follower")
	round := beats[0].Round
	c.now += int64(10 * time.Millisecond)
	require.NoError(t, c.StepReplica(1, &wire.AcceptAck{Ballot: 0, Replica: 1, Success: true, MatchSlot: 1, Round: round}))
	span := int64(c.o.ElectionTimeoutMin) * 3 / 4
	require.Equal(t, start+span, c.lr.lease.until)
	require.Equal(t, time.Duration(start+span-c.now), c.LeaseLeft())

	c.now = start + span - 1
	c.StepClient(9, readAtLeader(1, 1))
	replies := msgsOf[*wire.SyncReply](c.out.take())
	require.Len(t, replies, 1, "answered at once under the lease")
	require.Equal(t, kvs.Value("v1"), replies[0].Result.Value)
	require.Equal(t, LeaderReadCounts{Lease: 1}, c.LeaderReads())
	require.Equal(t, time.Duration(1), c.LeaseLeft())

	c.now++
	require.Zero(t, c.LeaseLeft(), "the lease ended")
	c.StepClient(9, readAtLeader(2, 1))
	require.Empty(t, msgsOf[*wire.SyncReply](c.out.take()), "held once the lease ended")
	next := roundOf(t, c)
	require.NoError(t, c.StepReplica(2, &wire.AcceptAck{Ballot: 0, Replica: 2, Success: true, MatchSlot: 1, Round: next}))
	require.Len(t, msgsOf[*wire.SyncReply](c.out.take()), 1, "answered once its round is confirmed")
	require.Equal(t, LeaderReadCounts{Lease: 1, Round: 1}, c.LeaderReads())
}

// TestPromiseHoldsBackAnElection: a pre-candidate that acknowledges its
// leader while its pre-vote is out does not turn the pre-vote majority
// into an election (it would vote for itself within its promise).
func TestPromiseHoldsBackAnElection(t *testing.T) {
	c := leaseFollower(t, Mutation{})
	c.silence()
	c.Tick()
	pv := msgsOf[*wire.PreVote](c.out.takePeer())
	require.Len(t, pv, 2, "stands once its promise and its timer ended")
	require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, Round: 1}))
	c.out.discard()
	require.NoError(t, c.StepReplica(2, &wire.PreVoteReply{Ballot: 0, PreBallot: pv[0].Ballot, Replica: 2, Granted: true, Lives: lifeOf(3, 2)}))
	require.Empty(t, msgsOf[*wire.RequestVote](c.out.takePeer()))
	require.Equal(t, wire.Ballot(0), c.Ballot())
}

// TestPromiseKeepsTheBallot: a follower that granted a pre-vote and then
// acknowledged its leader refuses the candidate's RequestVote without
// adopting its ballot, which would depose the leader it promised.
func TestPromiseKeepsTheBallot(t *testing.T) {
	c := leaseFollower(t, Mutation{})
	c.silence()
	require.True(t, c.preVote(t, 2, 1, 0, 0))
	require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, Round: 1}))
	c.out.discard()
	require.False(t, c.vote(t, 2, 1, 0, 0))
	require.Equal(t, wire.Ballot(0), c.Ballot())
}

// TestStandingAfterThePromiseIsSpread: a follower whose timer ran out
// within its promise stands zero to four heartbeat periods after the
// promise ends, not at its end: the followers of a crashed leader promised
// until about the same moment.
func TestStandingAfterThePromiseIsSpread(t *testing.T) {
	hb := int64(50 * time.Millisecond)
	seen := map[int64]bool{}
	for seed := range uint64(8) {
		c := newStepCore(t, 1, 3, func(o *Options) {
			o.LeaseReads = true
			o.Rand = rand.New(rand.NewPCG(seed, 1))
		})
		require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, Round: 1}))
		c.out.discard()
		c.PeerDown(0)
		promised := c.el.promised
		at := int64(-1)
		for c.now = 0; c.now <= promised+4*hb; c.now += int64(time.Millisecond) {
			c.Tick()
			if len(msgsOf[*wire.PreVote](c.out.takePeer())) > 0 {
				at = c.now
				break
			}
		}
		require.GreaterOrEqual(t, at, promised, "stood within the promise")
		require.LessOrEqual(t, at, promised+4*hb)
		seen[(at-promised)/hb] = true
	}
	require.Greater(t, len(seen), 1, "every follower stands at the same moment")
}
