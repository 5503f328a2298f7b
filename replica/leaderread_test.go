package replica

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// Leader reads (leaderread.go, docs/DECISIONS.md 46), step by step at a
// leader of three replicas.

// readAtLeader is the leader read of key k by client 9.
func readAtLeader(seq wire.Seq, k int) *wire.Propose {
	return &wire.Propose{Cmd: cmdID(9, seq), Command: getCmd(k), LeaderRead: true}
}

// roundOf is the Round of the Accepts the leader sent since the last
// take; it requires at least one to every follower.
func roundOf(t *testing.T, c *testCore) uint64 {
	t.Helper()
	c.out.drain()
	accepts := msgsOf[*wire.Accept](c.out.takePeer())
	require.GreaterOrEqual(t, len(accepts), 2, "an Accept to each follower")
	return accepts[len(accepts)-1].Round
}

// A leader read of a committed key is answered from that state, with no
// slot, once a follower echoes a round begun after it arrived: not before,
// and not on an older round's echo.
func TestLeaderReadWaitsForItsRound(t *testing.T) {
	c := leaderWith(t, 3, 1)
	c.ack(t, 1, 1)
	c.out.discard()
	c.StepClient(9, readAtLeader(1, 1))
	require.Equal(t, kvs.Slot(1), c.LastSlot(), "a leader read takes no slot")
	round := roundOf(t, c)
	require.NotZero(t, round)
	require.Empty(t, c.out.take(), "no answer before a follower confirms the round")

	require.NoError(t, c.StepReplica(1, &wire.AcceptAck{Ballot: 0, Replica: 1, Success: true, MatchSlot: 1, Round: round - 1}))
	require.Empty(t, c.out.take(), "an older round confirms nothing")
	require.NoError(t, c.StepReplica(2, &wire.AcceptAck{Ballot: 0, Replica: 2, Success: false, MatchSlot: 0, Round: round}))
	replies := msgsOf[*wire.SyncReply](c.out.take())
	require.Len(t, replies, 1, "a rejection of this ballot confirms it too")
	require.Equal(t, cmdID(9, 1), replies[0].Cmd)
	require.Equal(t, kvs.Value("v1"), replies[0].Result.Value)
	require.Equal(t, kvs.Slot(0), replies[0].Slot)
}

// A leader read of a key with a write above the commit index is proposed
// instead, by the leader alone: it gets the next slot and is answered when
// it is applied.
func TestLeaderReadOverUncommittedWriteIsLogged(t *testing.T) {
	c := leaderWith(t, 3, 1)
	c.StepClient(9, readAtLeader(1, 1))
	require.Equal(t, kvs.Slot(2), c.LastSlot())
	require.Empty(t, msgsOf[*wire.SyncReply](c.out.take()))
	c.ack(t, 1, 2)
	replies := msgsOf[*wire.SyncReply](c.out.take())
	require.Len(t, replies, 2)
	require.Equal(t, kvs.Slot(2), replies[1].Slot)
	require.Equal(t, kvs.Value("v1"), replies[1].Result.Value)
	require.Equal(t, LeaderReadCounts{Proposed: 1}, c.LeaderReads())
}

// A leader read whose barrier dependency is not committed is proposed and
// barred behind it, as any strong read is.
func TestLeaderReadWithUncommittedDependencyIsLogged(t *testing.T) {
	c := leaderWith(t, 3, 1)
	c.ack(t, 1, 1)
	c.StepClient(7, &wire.Propose{Cmd: cmdID(7, 2), Command: putCmd(2, "w")})
	m := readAtLeader(1, 1)
	m.Cmd = cmdID(7, 3)
	m.WeakDep = 2
	c.StepClient(7, m)
	require.Equal(t, kvs.Slot(3), c.LastSlot(), "logged after its dependency")
	require.Equal(t, LeaderReadCounts{Proposed: 1}, c.LeaderReads())
}

// A leader that steps down answers none of its held reads, even when a
// follower then echoes their round in the old ballot: their sessions
// re-send them to the new leader.
func TestLeaderReadDroppedOnStepDown(t *testing.T) {
	c := leaderWith(t, 3, 1)
	c.ack(t, 1, 1)
	c.out.discard()
	c.StepClient(9, readAtLeader(1, 1))
	round := roundOf(t, c)
	require.NoError(t, c.StepReplica(1, &wire.AcceptAck{Ballot: 1, Replica: 1, Round: round}))
	require.False(t, c.IsLeader())
	require.NoError(t, c.StepReplica(2, &wire.AcceptAck{Ballot: 0, Replica: 2, Success: true, MatchSlot: 1, Round: round}))
	require.Empty(t, msgsOf[*wire.SyncReply](c.out.take()))
}

// A follower answers a leader read with a redirect and keeps no witness
// record of it; it echoes the Round of every Accept it answers.
func TestFollowerRedirectsLeaderReadAndEchoesRounds(t *testing.T) {
	c := followerWith(t, 1, 3, 1, put(7, 1, 1, "v1"))
	c.StepClient(9, readAtLeader(1, 1))
	nl := msgsOf[*wire.NotLeader](c.out.take())
	require.Len(t, nl, 1)
	require.Equal(t, wire.ReplicaID(0), nl[0].Leader)
	_, kept := c.wit.get(cmdID(9, 1))
	require.False(t, kept)
	require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, PrevSlot: 1, PrevBallot: 0, LeaderCommit: 1, Round: 41}))
	c.out.drain()
	acks := msgsOf[*wire.AcceptAck](c.out.takePeer())
	require.Len(t, acks, 1)
	require.Equal(t, uint64(41), acks[0].Round)
}

// A leader read whose dependency was refused is refused too, as the
// proposal path refuses it (docs/DECISIONS.md 15), not answered: the
// session's chain is broken.
func TestLeaderReadWithRefusedDependencyIsRefused(t *testing.T) {
	c := leaderWith(t, 3, 1)
	c.appendRefusal(cmdID(7, 2), wire.Weak, 0)
	c.ack(t, 1, c.LastSlot())
	c.out.discard()
	m := readAtLeader(1, 1)
	m.Cmd, m.WeakDep = cmdID(7, 3), 2
	c.StepClient(7, m)
	require.True(t, c.refused(cmdID(7, 3)))
}
