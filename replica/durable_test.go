package replica

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/storage"
	"swiftpaxos/wire"
)

// Step tests of durable mode (durable.go, restore.go): what a Ready asks
// to persist, which messages wait for the sync, and a restart from what
// was persisted.

func durable(o *Options) { o.Durable = true }

// types lists the message types of envelopes, in order.
func types(es []Envelope) []string {
	var out []string
	for _, e := range es {
		out = append(out, typeName{e.Msg}.String())
	}
	return out
}

func TestMemoryModeHasNothingToPersist(t *testing.T) {
	c := newStepCore(t, 1, 3, nil)
	require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, Entries: []wire.Entry{put(1, 1, 1, "a")}}))
	rd := c.Ready()
	require.Nil(t, rd.Persist)
	require.Empty(t, rd.AfterSync)
	require.Equal(t, []string{"*wire.AcceptAck"}, types(rd.Messages))
}

// TestDurableFollowerHoldsBackItsAck: the entries of an Accept are in the
// batch, and the AcceptAck that acknowledges them waits for it.
func TestDurableFollowerHoldsBackItsAck(t *testing.T) {
	c := newStepCore(t, 1, 3, durable)
	require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, Entries: []wire.Entry{put(1, 1, 1, "a"), put(1, 2, 2, "b")}}))
	rd := c.Ready()
	require.NotNil(t, rd.Persist)
	require.Equal(t, &storage.HardState{Ballot: 0, Vote: wire.NoReplica, Member: true, Lives: []uint64{0, 1, 0}}, rd.Persist.Hard)
	require.Len(t, rd.Persist.Entries, 2)
	require.Equal(t, kvs.Slot(1), rd.Persist.Entries[0].Slot)
	require.Empty(t, rd.Messages)
	require.Equal(t, []string{"*wire.AcceptAck"}, types(rd.AfterSync))
	require.Equal(t, rd.Persist.Seq, rd.SyncSeq)

	// A heartbeat changes nothing: no batch, and its ack still waits for
	// the batch before it.
	require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, PrevSlot: 2}))
	rd2 := c.Ready()
	require.Nil(t, rd2.Persist)
	require.Equal(t, rd.SyncSeq, rd2.SyncSeq)
	require.Equal(t, []string{"*wire.AcceptAck"}, types(rd2.AfterSync))
}

// TestDurableOverwriteIsATruncation: a new ballot's leader replaces slot 2:
// the batch rewrites it and says the log ends there.
func TestDurableOverwriteIsATruncation(t *testing.T) {
	c := newStepCore(t, 1, 3, durable)
	require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, Entries: []wire.Entry{put(1, 1, 1, "a"), put(1, 2, 2, "b"), put(1, 3, 3, "c")}, LeaderCommit: 1}))
	c.Ready()
	require.NoError(t, c.StepReplica(2, &wire.Accept{Ballot: 1, Leader: 2, PrevSlot: 1, Entries: []wire.Entry{putIn(1, 2, 1, 1, "x")}}))
	rd := c.Ready()
	require.True(t, rd.Persist.Truncated)
	require.Equal(t, kvs.Slot(2), rd.Persist.LogEnd)
	require.Len(t, rd.Persist.Entries, 1)
	require.Equal(t, kvs.Slot(2), rd.Persist.Entries[0].Slot)
	require.Equal(t, wire.Ballot(1), rd.Persist.Hard.Ballot)
}

// TestDurableWitnessHoldsBackRecordAck: the record is in the batch and the
// RecordAck waits for it, unless the mutation acknowledges early.
func TestDurableWitnessHoldsBackRecordAck(t *testing.T) {
	for _, early := range []bool{false, true} {
		c := newStepCore(t, 1, 3, func(o *Options) { o.Durable, o.Mutation.EarlyRecordAck = true, early })
		c.StepClient(5, &wire.Propose{Cmd: cmdID(5, 1), Command: putCmd(1, "a")})
		rd := c.Ready()
		require.Len(t, rd.Persist.Records, 1)
		require.Equal(t, cmdID(5, 1), rd.Persist.Records[0].Record.Cmd)
		ack := []string{"*wire.RecordAck"}
		if early {
			require.Equal(t, ack, types(rd.Messages))
			require.Empty(t, rd.AfterSync)
		} else {
			require.Equal(t, ack, types(rd.AfterSync))
			require.Empty(t, rd.Messages)
		}
	}
}

// TestDurableLeaderCountsItselfWhenSynced: with n = 3 the leader and one
// follower commit an entry, but the leader's copy counts only once Synced
// says it is on disk; the LeaderReply waits too, the Accept does not.
func TestDurableLeaderCountsItselfWhenSynced(t *testing.T) {
	c := newStepCore(t, 0, 3, durable)
	founded(t, c)
	c.StepClient(5, &wire.Propose{Cmd: cmdID(5, 1), Command: putCmd(1, "a")})
	rd := c.Ready()
	require.Equal(t, []string{"*wire.Accept", "*wire.Accept"}, types(rd.Messages))
	require.Equal(t, []string{"*wire.LeaderReply"}, types(rd.AfterSync))
	seq := rd.SyncSeq
	require.NoError(t, c.StepReplica(1, &wire.AcceptAck{Ballot: 0, Replica: 1, Success: true, MatchSlot: 2}))
	require.Equal(t, kvs.Slot(1), c.CommitIndex(), "one follower alone is not a majority")
	c.Synced(seq)
	require.Equal(t, kvs.Slot(2), c.CommitIndex())
}

// founded takes a new durable cluster's leader through its founding wait
// (founding.go): requests wait until a majority, itself included, have
// their membership on disk.
func founded(t *testing.T, c *testCore) {
	t.Helper()
	c.StepClient(5, &wire.Propose{Cmd: cmdID(5, 9), Command: putCmd(7, "early")})
	rd := c.Ready()
	lives := make([]uint64, c.o.N)
	lives[c.o.ID] = c.incarnation
	require.Equal(t, &storage.HardState{Vote: wire.NoReplica, Member: true, Lives: lives}, rd.Persist.Hard)
	require.Empty(t, rd.AfterSync, "no LeaderReply: the request waits")
	require.Equal(t, kvs.Slot(0), c.LastSlot())
	c.Synced(rd.SyncSeq)
	require.Equal(t, kvs.Slot(0), c.LastSlot(), "the leader alone is no majority")
	require.NoError(t, c.StepReplica(2, &wire.AcceptAck{Ballot: 0, Replica: 2, Learner: true}))
	require.Equal(t, kvs.Slot(0), c.LastSlot(), "a learner's ack says nothing of its membership")
	require.NoError(t, c.StepReplica(1, &wire.AcceptAck{Ballot: 0, Replica: 1, Success: true}))
	require.Equal(t, kvs.Slot(1), c.LastSlot(), "the waiting request is appended")
	rd = c.Ready()
	c.Synced(rd.SyncSeq)
	require.NoError(t, c.StepReplica(1, &wire.AcceptAck{Ballot: 0, Replica: 1, Success: true, MatchSlot: 1}))
	require.Equal(t, kvs.Slot(1), c.CommitIndex())
	c.Ready()
}

// TestDurableRestart: a follower's batches, applied to a disk, bring back
// a replica with the same ballot, vote, log and records, a member at once
// and a follower with no leader; the snapshot's slots are applied.
func TestDurableRestart(t *testing.T) {
	disk := storage.NewMem()
	c := newStepCore(t, 1, 3, func(o *Options) { o.Durable, o.SnapshotEvery, o.LogRetain = true, 2, 1 })
	persist := func() {
		rd := c.Ready()
		if rd.Persist != nil {
			disk.Apply(rd.Persist)
		}
	}
	require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, Entries: []wire.Entry{put(1, 1, 1, "a"), put(1, 2, 2, "b"), put(1, 3, 3, "c")}, LeaderCommit: 2}))
	persist()
	c.StepClient(5, &wire.Propose{Cmd: cmdID(5, 1), Command: putCmd(9, "w")})
	persist()
	require.NoError(t, c.StepReplica(2, &wire.PreVote{Ballot: 1, Candidate: 2, LastSlot: 3}))
	persist()
	st, err := disk.State()
	require.NoError(t, err)
	require.Equal(t, kvs.Slot(2), st.Snapshot.LastSlot)

	r := newStepCore(t, 1, 3, func(o *Options) { o.Durable, o.Restore, o.StartAsMember, o.Incarnation = true, st, false, 2 })
	require.True(t, r.Member())
	require.Equal(t, Follower, r.Role())
	require.Equal(t, wire.NoReplica, r.Leader())
	require.Equal(t, c.Ballot(), r.Ballot())
	require.Equal(t, kvs.Slot(3), r.LastSlot())
	require.Equal(t, kvs.Slot(2), r.AppliedIndex())
	require.Equal(t, c.Records(), r.Records())
	v := r.store.Get(key(2)).Value
	require.Equal(t, kvs.Value("b"), v)
	rd := r.Ready()
	require.NotNil(t, rd.Persist)
	require.Equal(t, &storage.Batch{Seq: 1, Hard: &storage.HardState{Ballot: st.Hard.Ballot, Vote: st.Hard.Vote, Member: true, Lives: []uint64{0, 2, 0}}},
		rd.Persist, "what was restored is on disk already, but for the new life")
}
