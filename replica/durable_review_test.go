package replica

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/storage"
	"swiftpaxos/wire"
)

// Step tests of the founding and restart rules (founding.go, join.go,
// restore.go; docs/DECISIONS.md 26).

// TestFoundingLeaderDecidesNoRecord: while a majority's membership is
// not on disk, the initial leader appends nothing, also for the records a
// witness sends it (a WitnessSync) or its own stale records.
func TestFoundingLeaderDecidesNoRecord(t *testing.T) {
	c := newStepCore(t, 0, 3, durable)
	require.True(t, c.IsLeader())
	rec := wire.Record{Cmd: cmdID(5, 1), Command: putCmd(1, "a"), Level: wire.Strong, Accepted: true}
	require.NoError(t, c.StepReplica(1, &wire.WitnessSync{Records: []wire.Record{rec}}))
	c.now += int64(c.o.WitnessSyncAge) * 2
	c.Tick()
	c.Ready()
	require.Zero(t, c.LastSlot(), "a founding leader appended")
}

// TestRefoundingLeaderDoesNotLeadBallotZero: the initial leader, back with
// nothing on disk, among fresh replicas founds the cluster and leads;
// among members that report nothing appended (they vouched for nothing:
// docs/DECISIONS.md 53) it joins them but does not lead ballot 0 again.
func TestRefoundingLeaderDoesNotLeadBallotZero(t *testing.T) {
	for _, members := range []int{0, 1, 2} {
		c := newStepCore(t, 0, 3, func(o *Options) { o.Durable, o.StartAsMember = true, false })
		for p := wire.ReplicaID(1); p < 3; p++ {
			require.NoError(t, c.StepReplica(p, &wire.JoinReply{Replica: p, Leader: 0, Member: int(p) <= members, Incarnation: uint64(p) + 10}))
		}
		require.True(t, c.Member(), "%d members", members)
		require.Equal(t, members == 0, c.IsLeader(), "%d members", members)
	}
	// Started -cluster new, it is on its first start and served nothing:
	// it joins the members that founded without it, and leads ballot 0
	// (docs/DECISIONS.md 37).
	c := newStepCore(t, 0, 3, func(o *Options) { o.Durable, o.StartAsMember, o.ClusterNew = true, false, true })
	for p := wire.ReplicaID(1); p < 3; p++ {
		require.NoError(t, c.StepReplica(p, &wire.JoinReply{Replica: p, Leader: 0, Member: true, Incarnation: uint64(p) + 10}))
	}
	require.True(t, c.Member())
	require.True(t, c.IsLeader())
}

// TestRestoredReplicaWaitsBeforePreVoting: a replica restored from disk
// grants no pre-vote for the minimum election timeout, then does.
func TestRestoredReplicaWaitsBeforePreVoting(t *testing.T) {
	c := newStepCore(t, 1, 3, func(o *Options) {
		o.Durable, o.StartAsMember = true, false
		o.Restore = &storage.State{Hard: storage.HardState{Member: true, Vote: wire.NoReplica}}
	})
	require.True(t, c.Member())
	require.False(t, c.preVote(t, 2, 1, 0, 0), "granted at once after the restart")
	c.now += int64(c.o.ElectionTimeoutMin)
	require.True(t, c.preVote(t, 2, 1, 0, 0))
}

// TestRestoredMemberSaysItIsAMember: a replica restored from disk as a
// member votes and witnesses at once, and logs that it rejoined as a full
// member, the line the run's summary takes for its return as a witness; a
// restored learner does not, until it catches up.
func TestRestoredMemberSaysItIsAMember(t *testing.T) {
	for _, member := range []bool{true, false} {
		logs := &recordLog{}
		c := newStepCore(t, 1, 3, func(o *Options) {
			o.Durable, o.StartAsMember, o.Log = true, false, logs
			o.Restore = &storage.State{Hard: storage.HardState{Member: member, Vote: wire.NoReplica}}
		})
		require.Equal(t, member, c.Member())
		n := logs.count("rejoined as a full member")
		require.Equal(t, map[bool]int{true: 1, false: 0}[member], n, "member %v", member)
	}
}

// recordLog is a Logger that keeps the messages logged at level Info.
type recordLog struct {
	nopLogger
	info []string
}

func (l *recordLog) Info(msg string, _ ...any) { l.info = append(l.info, msg) }

// count is how many times msg was logged.
func (l *recordLog) count(msg string) int {
	n := 0
	for _, m := range l.info {
		if m == msg {
			n++
		}
	}
	return n
}

// TestDurableWitnessVouchesOnlyWithALoggedEntry: a durable witness refuses
// every strong request while no entry of its log is on disk, also once
// one is in memory, and takes them once it is synced; with the mutation
// it takes them at once (docs/DECISIONS.md 53).
func TestDurableWitnessVouchesOnlyWithALoggedEntry(t *testing.T) {
	for _, mutated := range []bool{false, true} {
		c := newStepCore(t, 1, 3, func(o *Options) { o.Durable, o.Mutation.WitnessOksOnEmptyLog = true, mutated })
		ok := func(seq wire.Seq, k int) bool {
			t.Helper()
			c.StepClient(5, &wire.Propose{Cmd: cmdID(5, seq), Command: putCmd(k, "a")})
			var acks []*wire.RecordAck
			for _, e := range c.Ready().AfterSync {
				if a, isAck := e.Msg.(*wire.RecordAck); isAck {
					acks = append(acks, a)
				}
			}
			require.Len(t, acks, 1)
			return acks[0].Ok
		}
		require.Equal(t, mutated, ok(1, 1), "mutated %v: with an empty log", mutated)
		require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, Entries: []wire.Entry{put(7, 1, 9, "x")}}))
		rd := c.Ready()
		require.Equal(t, mutated, ok(2, 2), "mutated %v: with an entry not on disk", mutated)
		c.Synced(rd.Persist.Seq)
		require.True(t, ok(3, 3), "mutated %v: with an entry on disk", mutated)
	}
}

// TestFollowerIgnoresAnEndedLifesAccept: once a follower has heard of a
// later life of the leader (its Join), it takes no entry from an Accept
// of ballot 0 of the earlier one, and still takes those of the new life,
// of an Accept that names no life, and of a later ballot, where a higher
// number need not be a later life; with the mutation it takes the earlier
// life's (docs/DECISIONS.md 53).
func TestFollowerIgnoresAnEndedLifesAccept(t *testing.T) {
	for _, mutated := range []bool{false, true} {
		c := newStepCore(t, 1, 3, func(o *Options) { o.Durable, o.Mutation.AcceptsFromEndedLives = true, mutated })
		require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, Life: 10, Entries: []wire.Entry{put(7, 1, 1, "a")}}))
		require.Equal(t, kvs.Slot(1), c.LastSlot())
		require.NoError(t, c.StepReplica(0, &wire.Join{Replica: 0, Incarnation: 20}))
		require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, Life: 10, PrevSlot: 1, Entries: []wire.Entry{put(7, 2, 2, "b")}}))
		require.Equal(t, map[bool]kvs.Slot{false: 1, true: 2}[mutated], c.LastSlot(), "mutated %v: the ended life's entry", mutated)
		last := c.LastSlot()
		require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, Life: 20, PrevSlot: last, Entries: []wire.Entry{put(7, 3, 3, "c")}}))
		require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, PrevSlot: last + 1, Entries: []wire.Entry{put(7, 4, 4, "d")}}))
		require.Equal(t, last+2, c.LastSlot(), "mutated %v: the new life's entry and one that names no life", mutated)
		require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 1, Leader: 0, Life: 10, PrevSlot: last + 2, PrevBallot: 0, Entries: []wire.Entry{putIn(1, 7, 5, 5, "e")}}))
		require.Equal(t, last+3, c.LastSlot(), "mutated %v: a later ballot's entry", mutated)
	}
}
