package replica

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swiftpaxos/wire"
)

// The promise that leases rest on (lease.go, docs/DECISIONS.md 55).

func leaseFollower(t *testing.T, m Mutation) *testCore {
	t.Helper()
	c := newStepCore(t, 1, 3, func(o *Options) { o.LeaseReads, o.Mutation = true, m })
	return c
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
// leader read is answered at once while it holds, and held after.
func TestLeaseFromTheRoundsStart(t *testing.T) {
	c := newStepCore(t, 0, 3, func(o *Options) { o.LeaseReads = true })
	require.True(t, c.IsLeader())
	c.now = int64(time.Second)
	c.Tick() // a heartbeat begins round 1 at 1 s
	beats := msgsOf[*wire.Accept](c.out.takePeer())
	require.NotEmpty(t, beats)
	round := beats[0].Round
	c.now += int64(10 * time.Millisecond)
	require.NoError(t, c.StepReplica(1, &wire.AcceptAck{Ballot: 0, Replica: 1, Success: true, Round: round}))
	span := int64(c.o.ElectionTimeoutMin) * 3 / 4
	require.Equal(t, int64(time.Second)+span, c.lr.lease.until)
	c.now = int64(time.Second) + span - 1
	require.True(t, c.leaseHolds())
	c.now++
	require.False(t, c.leaseHolds())
}
