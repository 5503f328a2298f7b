package replica

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/wire"
)

// beat advances the core to now, ticks, and returns what it sent the
// replicas.
func beat(c *testCore, now int64) []wire.Message {
	c.now = now
	c.Tick()
	return c.out.takePeer()
}

// TestCheckQuorumFallsQuiet: a leader that hears from no majority, itself
// included, for longer than ElectionTimeoutMax sends the replicas
// nothing, and not a moment before; one message from a follower,
// whatever it is, makes it speak again at once. It keeps its ballot and
// its role throughout.
func TestCheckQuorumFallsQuiet(t *testing.T) {
	c := newStepCore(t, 0, 3, nil)
	window, hb := int64(c.o.ElectionTimeoutMax), int64(c.o.HeartbeatInterval)
	require.NotEmpty(t, beat(c, window), "a whole ElectionTimeoutMax since it became leader")
	require.False(t, c.Quiet())
	require.Empty(t, beat(c, window+hb), "nobody heard for longer than ElectionTimeoutMax")
	require.True(t, c.Quiet())
	require.Equal(t, 1, c.QuietFalls())
	c.StepClient(7, &wire.Propose{Cmd: cmdID(7, 1), Command: putCmd(1, "v")})
	require.Empty(t, c.out.takePeer(), "no Accept either")
	require.True(t, c.IsLeader())
	require.Equal(t, wire.Ballot(0), c.Ballot())

	heard := c.now
	require.NoError(t, c.StepReplica(2, &wire.AcceptAck{Ballot: 0, Replica: 2, Success: true}))
	require.False(t, c.Quiet(), "speaks again at once")
	require.NotEmpty(t, beat(c, heard+window), "replica 2 and itself: a majority")
	require.Empty(t, beat(c, heard+window+hb), "quiet again")
}

// TestCheckQuorumAndLearners: a learner's messages do not keep the
// leader speaking, since its acknowledgements commit nothing, but a quiet
// leader goes on sending to it: only a leader can make it a member.
func TestCheckQuorumAndLearners(t *testing.T) {
	c := newStepCore(t, 0, 3, nil)
	window, hb := int64(c.o.ElectionTimeoutMax), int64(c.o.HeartbeatInterval)
	c.learner[1] = true
	c.now = window / 2
	require.NoError(t, c.StepReplica(1, &wire.Join{Replica: 1, Incarnation: 2}))
	c.out.discard()
	destinations := func() map[wire.ReplicaID]bool {
		c.Tick()
		to := map[wire.ReplicaID]bool{}
		for _, e := range c.Core.Ready().Messages {
			if !e.ToClient {
				to[e.To] = true
			}
		}
		return to
	}
	c.now = window/2 + window
	require.Equal(t, map[wire.ReplicaID]bool{1: true}, destinations(), "quiet, but for the learner")
	require.NoError(t, c.StepReplica(2, &wire.AcceptAck{Ballot: 0, Replica: 2, Success: true}))
	c.now += hb
	require.Equal(t, map[wire.ReplicaID]bool{1: true, 2: true}, destinations(), "a member speaks")
}

// TestQuietLeaderIgnoresStaleLearnerFlags: a replica flagged a learner
// in an earlier leadership of this replica, which became a member under
// another leader since, hears nothing from it once it is quiet: only
// this leadership's learners are talked to.
func TestQuietLeaderIgnoresStaleLearnerFlags(t *testing.T) {
	c := newStepCore(t, 0, 3, nil)
	c.learner[1] = true // as an earlier leadership left it
	require.Empty(t, beat(c, 2*int64(c.o.ElectionTimeoutMax)))
	require.True(t, c.Quiet())
}

// TestInvalidMessagesAreNotHeard: a message that breaks an invariant is
// dropped whole, and does not count for check-quorum either.
func TestInvalidMessagesAreNotHeard(t *testing.T) {
	c := newStepCore(t, 0, 3, nil)
	window := int64(c.o.ElectionTimeoutMax)
	c.now = window / 2
	require.ErrorIs(t, c.StepReplica(2, &wire.AcceptAck{Ballot: 0, Replica: 1, Success: true}), ErrInvalid)
	require.Empty(t, beat(c, window/2+window))
}

// TestQuietLeaderStepsDownOnAHigherBallot: a quiet leader that hears of a
// higher ballot steps down as any leader does, and a follower speaks,
// although it heard from no majority (two of five).
func TestQuietLeaderStepsDownOnAHigherBallot(t *testing.T) {
	c := newStepCore(t, 0, 5, nil)
	require.Empty(t, beat(c, 2*int64(c.o.ElectionTimeoutMax)))
	require.NoError(t, c.StepReplica(1, &wire.Accept{Ballot: 1, Leader: 1, Round: 1}))
	require.False(t, c.IsLeader())
	require.Len(t, msgsOf[*wire.AcceptAck](c.out.takePeer()), 1)
}

// TestCheckQuorumSparesFounding: a new durable cluster's leader waiting
// for a majority of members on disk has nobody to give way to; once the
// cluster is founded, the rule applies. So does the mutation.
func TestCheckQuorumSparesFounding(t *testing.T) {
	c := newStepCore(t, 0, 3, func(o *Options) { o.Durable = true })
	require.True(t, c.Founding())
	later := 10 * int64(c.o.ElectionTimeoutMax)
	c.now = later
	c.Tick()
	require.False(t, c.Core.out.quiet, "founding")
	c.founded = nil
	require.False(t, c.Founding())
	c.Tick()
	require.True(t, c.Core.out.quiet, "founded")

	m := newStepCore(t, 0, 3, func(o *Options) { o.Mutation.NoCheckQuorum = true })
	require.NotEmpty(t, beat(m, later), "Mutation.NoCheckQuorum")
}
