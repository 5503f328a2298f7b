package replica

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// De-duplication, PROTOCOL.md 1.5 (AckUpTo), 3.5 (duplicates at the
// leader), 3.7 (Sync) and 6.7 (at-most-once execution): a command re-sent
// any number of times executes at most once, and its client always gets
// the result of that one execution.

// syncReplies returns the SyncReplies among ms.
func syncReplies(ms []wire.Message) []*wire.SyncReply { return msgsOf[*wire.SyncReply](ms) }

// TestResentProposeExecutesOnce: PROTOCOL.md 3.5, "Duplicates". A re-sent
// Propose whose command is in the log but not applied gets nothing (the
// SyncReply follows when it applies); one already applied gets a SyncReply
// with the stored result; neither is appended again.
func TestResentProposeExecutesOnce(t *testing.T) {
	c := leaderWith(t, 3)
	runs := countExecutions(c.Core)
	p := &wire.Propose{Cmd: cmdID(7, 1), Command: putCmd(1, "a")}

	c.StepClient(7, p)
	require.Len(t, msgsOf[*wire.LeaderReply](c.out.take()), 1)
	c.StepClient(7, p)
	require.Equal(t, kvs.Slot(1), c.LastSlot(), "in the log: not appended again")
	require.Empty(t, c.out.take(), "and not answered before it applies")

	commitAll(c)
	require.Len(t, syncReplies(c.out.take()), 1)
	c.StepClient(7, p)
	require.Equal(t, kvs.Slot(1), c.LastSlot(), "applied: not appended again")
	got := syncReplies(c.out.take())
	require.Len(t, got, 1, "answered from the client table")
	require.Equal(t, kvs.Slot(1), got[0].Slot)
	require.Equal(t, 1, runs[cmdID(7, 1)])
}

// TestResultIsTheStoredOne: PROTOCOL.md 3.7. "A replica MUST NOT answer
// Sync by computing a fresh result from the current store": a read re-sent
// after a later write to its key gets the value it read when it executed.
func TestResultIsTheStoredOne(t *testing.T) {
	c := leaderWith(t, 3)
	c.StepClient(7, &wire.Propose{Cmd: cmdID(7, 1), Command: putCmd(1, "a")})
	read := &wire.Propose{Cmd: cmdID(7, 2), Command: getCmd(1), AckUpTo: 1}
	c.StepClient(7, read)
	commitAll(c)
	c.StepClient(8, &wire.Propose{Cmd: cmdID(8, 1), Command: putCmd(1, "b")})
	commitAll(c)
	v, _ := value(c.Core, 1)
	require.Equal(t, "b", v)
	c.out.take()

	c.StepClient(7, read)
	c.StepClient(7, &wire.Sync{Cmd: read.Cmd})
	got := syncReplies(c.out.take())
	require.Len(t, got, 2)
	for _, r := range got {
		require.Equal(t, kvs.Value("a"), r.Result.Value)
		require.True(t, r.Result.Found)
		require.Equal(t, kvs.Slot(1), r.Result.Version)
		require.Equal(t, kvs.Slot(2), r.Slot)
	}
}

// TestRequestsAtOrBelowAckUpToIgnored: PROTOCOL.md 1.5. A replica "MUST
// ignore any request whose Seq <= AckUpTo of that session": the client has
// completed it, and the replica may have forgotten its result, so it can
// neither execute nor answer it safely. The leader neither appends nor
// answers it, and a witness keeps no record of it.
func TestRequestsAtOrBelowAckUpToIgnored(t *testing.T) {
	t.Run("leader", func(t *testing.T) {
		c := leaderWith(t, 3)
		c.StepClient(7, &wire.Propose{Cmd: cmdID(7, 1), Command: putCmd(1, "a")})
		c.StepClient(7, &wire.Propose{Cmd: cmdID(7, 2), Command: putCmd(2, "b")})
		commitAll(c)
		c.StepClient(7, &wire.Propose{Cmd: cmdID(7, 4), Command: putCmd(4, "d"), AckUpTo: 3})
		c.out.take()
		for _, seq := range []wire.Seq{1, 3} {
			c.StepClient(7, &wire.Propose{Cmd: cmdID(7, seq), Command: putCmd(int(seq), "again")})
			require.Empty(t, c.out.take(), "seq %d", seq)
		}
		require.Equal(t, kvs.Slot(3), c.LastSlot())
	})
	t.Run("witness", func(t *testing.T) {
		c := newStepCore(t, 1, 3, nil)
		c.StepClient(7, &wire.Propose{Cmd: cmdID(7, 4), Command: putCmd(4, "d"), AckUpTo: 3})
		require.Len(t, msgsOf[*wire.RecordAck](c.out.take()), 1)
		c.StepClient(7, &wire.Propose{Cmd: cmdID(7, 3), Command: putCmd(3, "c")})
		require.Empty(t, c.out.take())
		require.Equal(t, 1, c.RecordCount())
	})
}

// TestApplySkipsDuplicates: PROTOCOL.md 6.7. "The same CmdId may
// legitimately appear twice in a log (a retry appended by a new leader
// whose log already held an old-ballot copy), [so] the apply-time check is
// the last line of defence." Here command (7,1) is at slot 1 and again at
// slot 4, appended by the leader of ballot 1, after another client's write
// to the same key: executing it twice would bring back the older value.
// It is skipped whether its result is still stored, or forgotten below the
// session's floor (raised by the AckUpTo stamped on slot 3).
func TestApplySkipsDuplicates(t *testing.T) {
	for _, tc := range []struct {
		name  string
		floor wire.Seq
	}{{"result stored", 0}, {"below the floor", 1}} {
		t.Run(tc.name, func(t *testing.T) {
			third := put(7, 2, 2, "b")
			third.AckUpTo = tc.floor
			c := followerWith(t, 1, 3, 0, put(7, 1, 1, "a"), put(8, 1, 1, "x"), third)
			runs := countExecutions(c.Core)
			require.NoError(t, c.StepReplica(2, &wire.Accept{Ballot: 1, Leader: 2, PrevSlot: 3, PrevBallot: 0,
				Entries: []wire.Entry{putIn(1, 7, 1, 1, "a")}, LeaderCommit: 4}))
			require.Equal(t, kvs.Slot(4), c.AppliedIndex())

			v, ver := value(c.Core, 1)
			require.Equal(t, "x", v, "the duplicate did not overwrite the later write")
			require.Equal(t, kvs.Slot(2), ver)
			require.Equal(t, 1, runs[cmdID(7, 1)])
			_, stored := c.sessions.appliedResult(cmdID(7, 1))
			require.Equal(t, tc.floor == 0, stored)
		})
	}
}
