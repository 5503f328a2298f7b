package replica

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// Parked weak reads, PROTOCOL.md 4.5 step 2 and 6.5: a weak read waits at
// its replica until appliedIndex reaches its minimum slot (the client's
// read frontier, raised to the view start for a read of an older ballot),
// is re-judged when the ballot or the known view start changes, and is
// told to retry elsewhere when it waited too long.

// weakRead is a weak GET of key 1 by client, of ballot b with MinSlot min.
func weakRead(client wire.ClientID, b wire.Ballot, min kvs.Slot) *wire.WeakRead {
	return &wire.WeakRead{Cmd: cmdID(client, 1), Command: getCmd(1), MinSlot: min, Ballot: b}
}

// answeredTo maps the client of each WeakReadReply in ms to the reply.
func answeredTo(ms []wire.Message) map[wire.ClientID]*wire.WeakReadReply {
	out := make(map[wire.ClientID]*wire.WeakReadReply)
	for _, r := range msgsOf[*wire.WeakReadReply](ms) {
		out[r.Cmd.Client] = r
	}
	return out
}

// TestParkedReadReleasedWhenMinSlotApplied: PROTOCOL.md 4.5 step 2, "wait
// until appliedIndex >= min": a read whose minimum slot is applied is
// answered at once; the others wait, and each is answered exactly once,
// as soon as its own minimum slot is applied (not merely committed), with
// the store as of then.
func TestParkedReadReleasedWhenMinSlotApplied(t *testing.T) {
	c := followerWith(t, 1, 3, 0, put(7, 1, 1, "a"), put(7, 2, 1, "b"), put(7, 3, 1, "c"))
	c.o.DeferApply = true
	c.StepClient(20, weakRead(20, 0, 3))
	c.StepClient(21, weakRead(21, 0, 2))
	c.StepClient(22, weakRead(22, 0, 0))
	got := answeredTo(c.out.take())
	require.Len(t, got, 1)
	require.False(t, got[22].Result.Found, "nothing applied yet")
	require.Nil(t, got[22].Result.Value)
	require.Zero(t, got[22].AppliedIndex)

	commit := func(s kvs.Slot) {
		require.NoError(t, c.StepReplica(0, &wire.Commit{Ballot: 0, CommitIndex: s}))
	}
	commit(2)
	c.Apply(1)
	require.Empty(t, c.out.take(), "slot 1 applied: both still wait")
	require.Equal(t, kvs.Slot(2), c.CommitIndex())
	c.Apply(-1)
	got = answeredTo(c.out.take())
	require.Len(t, got, 1)
	require.Equal(t, kvs.Value("b"), got[21].Result.Value)
	require.Equal(t, kvs.Slot(2), got[21].Result.Version)
	require.Equal(t, kvs.Slot(2), got[21].AppliedIndex)

	commit(3)
	c.Apply(-1)
	got = answeredTo(c.out.take())
	require.Len(t, got, 1)
	require.Equal(t, kvs.Value("c"), got[20].Result.Value)
	commit(3)
	c.Apply(-1)
	require.Empty(t, c.out.take(), "answered once")
}

// TestOlderBallotReadWaitsForViewStart: PROTOCOL.md 6.5. "A replica that
// knows a newer ballot but not yet its ViewStart serves no older-ballot
// read": what it has applied may end inside the new view's replay block
// and miss a write the client already observed. A read parked in ballot 0
// is re-judged when the ballot changes (its slot is applied by the same
// heartbeat that brings ballot 1, yet it must wait); a read of ballot 0
// arriving later waits too; once the view start is known, both wait for
// the slot before it. A read of the current ballot is served by its
// MinSlot alone. (TestParkedReadRejudgedOnBallotChange, reads_test.go,
// learns the view start from the no-op instead of NewView.)
func TestOlderBallotReadWaitsForViewStart(t *testing.T) {
	c := followerWith(t, 1, 3, 0, put(7, 1, 1, "a"), put(7, 2, 1, "b"))
	c.StepClient(19, weakRead(19, 0, 1))
	require.Empty(t, c.out.take(), "parked for slot 1")

	require.NoError(t, c.StepReplica(2, &wire.Accept{Ballot: 1, Leader: 2, PrevSlot: 2, PrevBallot: 0, LeaderCommit: 2}))
	require.Equal(t, kvs.Slot(2), c.AppliedIndex())
	require.Empty(t, answeredTo(c.out.take()), "slot 1 is applied, but ballot 1's view start is unknown")

	c.StepClient(20, weakRead(20, 0, 0))
	c.StepClient(21, weakRead(21, 1, 2))
	got := answeredTo(c.out.take())
	require.Len(t, got, 1, "the ballot-0 read waits although slot 0 is long applied")
	require.Equal(t, kvs.Value("b"), got[21].Result.Value)

	require.NoError(t, c.StepReplica(2, &wire.NewView{Ballot: 1, Leader: 2, ViewStart: 5}))
	require.Empty(t, answeredTo(c.out.take()), "the replay block ends at slot 4")
	require.NoError(t, c.StepReplica(2, &wire.Accept{Ballot: 1, Leader: 2, PrevSlot: 2, PrevBallot: 0,
		Entries: []wire.Entry{putIn(1, 8, 1, 1, "replayed"), noopIn(1)}, LeaderCommit: 3}))
	require.Empty(t, answeredTo(c.out.take()), "slot 3 applied, slot 4 not")
	require.NoError(t, c.StepReplica(2, &wire.Commit{Ballot: 1, CommitIndex: 4}))
	got = answeredTo(c.out.take())
	require.Len(t, got, 2)
	for _, client := range []wire.ClientID{19, 20} {
		require.Equal(t, kvs.Value("replayed"), got[client].Result.Value, "the answer includes the replay block")
		require.Equal(t, kvs.Slot(4), got[client].AppliedIndex)
	}
}

// TestReadsThatCannotWaitAreRetried: PROTOCOL.md 4.5 step 2 and 6.10. A
// read of a ballot the replica has not joined, or at a replica that is not
// a member, is told to retry at once; a parked read is told to retry after
// ReadWait, and not before. A retry carries no value.
func TestReadsThatCannotWaitAreRetried(t *testing.T) {
	c := newStepCore(t, 1, 3, nil)
	c.StepClient(20, weakRead(20, 1, 0))
	got := answeredTo(c.out.take())
	require.Len(t, got, 1)
	require.True(t, got[20].Retry, "ballot 1 is not joined yet")

	c.StepClient(21, weakRead(21, 0, 1))
	c.now += int64(c.o.ReadWait) - 1
	c.Tick()
	require.Empty(t, answeredTo(c.out.take()))
	c.now++
	c.Tick()
	got = answeredTo(c.out.take())
	require.Len(t, got, 1)
	require.True(t, got[21].Retry)
	require.Empty(t, c.reads)

	l := newStepCore(t, 1, 3, func(o *Options) { o.StartAsMember = false })
	l.StepClient(22, weakRead(22, 0, 0))
	got = answeredTo(l.out.take())
	require.Len(t, got, 1)
	require.True(t, got[22].Retry, "a non-member serves no weak read")
}
