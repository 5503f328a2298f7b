package replica

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// Log truncation on a new ballot, PROTOCOL.md 3.2: a follower "deletes any
// conflicting suffix, appends the entries", and committed slots are never
// among the deleted (6.2: a leader's log holds every committed entry).

// TestAcceptReplacesConflictingSuffix: PROTOCOL.md 3.2 and 6.9 item 5. A
// leader of ballot 1 that does not hold slots 3-4 of the deposed leader
// overwrites them: the follower deletes them (and forgets their command
// ids and keys, so that neither de-duplication nor a later speculation
// sees them), appends the new entry, and only the new entry ever executes.
func TestAcceptReplacesConflictingSuffix(t *testing.T) {
	c := followerWith(t, 1, 3, 2, put(7, 1, 1, "a"), put(7, 2, 2, "b"), put(8, 1, 3, "c"), put(8, 2, 4, "d"))
	require.NoError(t, c.StepReplica(2, &wire.Accept{Ballot: 1, Leader: 2, PrevSlot: 2, PrevBallot: 0,
		Entries: []wire.Entry{putIn(1, 9, 1, 5, "e")}, LeaderCommit: 2}))

	require.Equal(t, []wire.CmdID{cmdID(7, 1), cmdID(7, 2), cmdID(9, 1)}, logIDs(c.Core))
	require.Equal(t, wire.Ballot(1), c.entries.at(3).Ballot)
	require.False(t, c.HasSlot(cmdID(8, 1)), "a deleted entry leaves the command index")
	require.False(t, c.HasSlot(cmdID(8, 2)))
	require.True(t, c.HasSlot(cmdID(9, 1)))
	require.False(t, c.keys.touchedAbove(key(4), c.CommitIndex()), "a deleted entry leaves the key index")
	acks := msgsOf[*wire.AcceptAck](c.out.takePeer())
	require.Len(t, acks, 1)
	require.Equal(t, wire.AcceptAck{Ballot: 1, Replica: 1, Success: true, MatchSlot: 3}, *acks[0])

	require.NoError(t, c.StepReplica(2, &wire.Commit{Ballot: 1, CommitIndex: 3}))
	require.Equal(t, kvs.Slot(3), c.AppliedIndex())
	v, ver := value(c.Core, 5)
	require.Equal(t, "e", v)
	require.Equal(t, kvs.Slot(3), ver)
	for _, k := range []int{3, 4} {
		_, ver := value(c.Core, k)
		require.Zero(t, ver, "the deleted write of key %d never executes", k)
	}
}

// TestAcceptTruncatesOnlyOnConflict: PROTOCOL.md 3.2. Only a conflicting
// suffix goes: an entry that matches (same slot, same ballot) is kept, and
// so is everything after it. An Accept re-sent or overtaken (here the
// leader's first Accept, arriving again after later ones) must not cut
// the log short: the leader counts those entries as held here, and a
// shortened log would let it commit what a majority no longer holds.
func TestAcceptTruncatesOnlyOnConflict(t *testing.T) {
	e1, e2, e3, e4 := put(7, 1, 1, "a"), put(7, 2, 2, "b"), put(8, 1, 3, "c"), put(8, 2, 4, "d")
	x3, x4 := putIn(1, 9, 1, 3, "x"), putIn(1, 9, 2, 4, "y")
	cases := []struct {
		name   string
		from   wire.ReplicaID
		accept wire.Accept
		want   []wire.Entry
		ack    wire.AcceptAck
	}{
		{"a re-delivered prefix", 0,
			wire.Accept{Ballot: 0, Leader: 0, Entries: []wire.Entry{e1, e2}},
			[]wire.Entry{e1, e2, e3, e4}, wire.AcceptAck{Ballot: 0, Replica: 1, Success: true, MatchSlot: 2}},
		{"more of the same ballot", 0,
			wire.Accept{Ballot: 0, Leader: 0, PrevSlot: 4, Entries: []wire.Entry{put(8, 3, 5, "e")}},
			[]wire.Entry{e1, e2, e3, e4, put(8, 3, 5, "e")}, wire.AcceptAck{Ballot: 0, Replica: 1, Success: true, MatchSlot: 5}},
		{"a conflict at the first new slot", 2,
			wire.Accept{Ballot: 1, Leader: 2, PrevSlot: 2, Entries: []wire.Entry{x3}},
			[]wire.Entry{e1, e2, x3}, wire.AcceptAck{Ballot: 1, Replica: 1, Success: true, MatchSlot: 3}},
		{"a conflict after a matching entry", 2,
			wire.Accept{Ballot: 1, Leader: 2, PrevSlot: 2, Entries: []wire.Entry{e3, x4}},
			[]wire.Entry{e1, e2, e3, x4}, wire.AcceptAck{Ballot: 1, Replica: 1, Success: true, MatchSlot: 4}},
		// The leader's slot 4 is of ballot 1, this replica's of ballot 0:
		// the logs may differ anywhere after the commit index, so the
		// follower hints at it and keeps everything.
		{"the previous entry does not match", 2,
			wire.Accept{Ballot: 1, Leader: 2, PrevSlot: 4, PrevBallot: 1, Entries: []wire.Entry{putIn(1, 9, 3, 5, "z")}},
			[]wire.Entry{e1, e2, e3, e4}, wire.AcceptAck{Ballot: 1, Replica: 1, MatchSlot: 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := followerWith(t, 1, 3, 2, e1, e2, e3, e4)
			require.NoError(t, c.StepReplica(tc.from, &tc.accept))
			require.Equal(t, len(tc.want), int(c.LastSlot()))
			for i, e := range tc.want {
				got := c.entries.at(kvs.Slot(i + 1))
				require.Equal(t, e.Cmd, got.Cmd, "slot %d", i+1)
				require.Equal(t, e.Ballot, got.Ballot, "slot %d", i+1)
			}
			acks := msgsOf[*wire.AcceptAck](c.out.takePeer())
			require.Len(t, acks, 1)
			require.Equal(t, tc.ack, *acks[0])
			require.Equal(t, kvs.Slot(2), c.CommitIndex())
		})
	}
}

// TestCommittedSlotIsNeverTruncated: PROTOCOL.md 3.2 and 6.2. A leader of
// the follower's ballot or a later one holds every committed entry, so an
// Accept from it that contradicts a committed slot is no correct leader's:
// it is rejected as invalid (ErrInvalid) before it changes anything, even
// the ballot. The first slot after the commit index can still be
// replaced. A deposed leader's Accept of an older ballot is no error: it
// is refused with the newer ballot, so that its sender steps down.
func TestCommittedSlotIsNeverTruncated(t *testing.T) {
	e1, e2, e3, e4 := put(7, 1, 1, "a"), put(7, 2, 2, "b"), put(8, 1, 3, "c"), put(8, 2, 4, "d")
	c := followerWith(t, 1, 3, 3, e1, e2, e3, e4)

	for name, a := range map[string]*wire.Accept{
		"replaces committed slot 3": {Ballot: 1, Leader: 2, PrevSlot: 2, Entries: []wire.Entry{putIn(1, 9, 1, 3, "x")}},
		"replaces committed slot 3 after a matching slot 2": {Ballot: 1, Leader: 2, PrevSlot: 1,
			Entries: []wire.Entry{e2, putIn(1, 9, 1, 3, "x")}},
		"of the same ballot, replaces committed slot 1": {Ballot: 0, Leader: 0, Entries: []wire.Entry{put(9, 1, 1, "x")}},
	} {
		requireInvalid(t, c.StepReplica(a.Leader, a))
		require.Equal(t, []wire.CmdID{cmdID(7, 1), cmdID(7, 2), cmdID(8, 1), cmdID(8, 2)}, logIDs(c.Core), name)
		require.Equal(t, wire.Ballot(0), c.Ballot(), name)
		require.Equal(t, wire.ReplicaID(0), c.Leader(), name)
		require.Equal(t, kvs.Slot(3), c.CommitIndex(), name)
		require.Empty(t, c.out.takePeer(), name)
	}
	v, _ := value(c.Core, 3)
	require.Equal(t, "c", v)

	require.NoError(t, c.StepReplica(2, &wire.Accept{Ballot: 1, Leader: 2, PrevSlot: 3, PrevBallot: 0,
		Entries: []wire.Entry{putIn(1, 9, 1, 4, "x")}, LeaderCommit: 3}))
	require.Equal(t, []wire.CmdID{cmdID(7, 1), cmdID(7, 2), cmdID(8, 1), cmdID(9, 1)}, logIDs(c.Core),
		"slot 4 was not committed")
	c.out.discard()

	// Leader 0 was deposed and does not know it yet.
	require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, Entries: []wire.Entry{put(6, 1, 1, "old")}}))
	require.Equal(t, []wire.CmdID{cmdID(7, 1), cmdID(7, 2), cmdID(8, 1), cmdID(9, 1)}, logIDs(c.Core))
	acks := msgsOf[*wire.AcceptAck](c.out.takePeer())
	require.Len(t, acks, 1)
	require.Equal(t, wire.Ballot(1), acks[0].Ballot, "the refusal names the newer ballot")
	require.False(t, acks[0].Success)
}
