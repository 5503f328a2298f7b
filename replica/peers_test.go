package replica

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// follower1 is replica 1 of three, in ballot 0 under leader 0, with slots
// 1 and 2 committed and applied.
func follower1(t *testing.T) *testCore {
	t.Helper()
	c := newTestCoreWith(t, 1, 3, BasePolicy{})
	require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0,
		Entries: []wire.Entry{put(7, 1, 1, "a"), put(7, 2, 2, "b")}, LeaderCommit: 2}))
	require.Equal(t, kvs.Slot(2), c.AppliedIndex())
	return c
}

func requireInvalid(t *testing.T, err error) {
	t.Helper()
	require.True(t, errors.Is(err, ErrInvalid), "want ErrInvalid, got %v", err)
}

// TestForgedAcceptCannotTruncateCommitted: issue 12. An Accept of a higher
// ballot whose entry conflicts with committed slot 1 (the forged 40-byte
// frame that made a replica panic) is rejected before it changes anything:
// no panic, the committed slot, the ballot and the applied state stay.
func TestForgedAcceptCannotTruncateCommitted(t *testing.T) {
	c := follower1(t)
	forged := &wire.Accept{Ballot: 5, Leader: 2, Entries: []wire.Entry{{Ballot: 5, Cmd: wire.CmdID{Client: 66, Seq: 1},
		Command: kvs.Command{Op: kvs.OpPut, Key: key(1), Value: kvs.Value("forged")}, Level: wire.Strong}}, LeaderCommit: 1}
	requireInvalid(t, c.StepReplica(2, forged))
	require.Equal(t, wire.Ballot(0), c.Ballot())
	require.Equal(t, kvs.Value("a"), c.entries.at(1).Command.Value)
	require.Equal(t, kvs.Value("a"), c.store.Get(key(1)).Value)
}

// TestAcceptFromAnotherLeaderOfTheBallot: an Accept of the current ballot
// from a replica that is not the ballot's leader (one ballot has one
// leader) is rejected; so is an Accept whose Leader field names another
// replica than the connection's sender.
func TestAcceptFromAnotherLeaderOfTheBallot(t *testing.T) {
	c := follower1(t)
	e := put(66, 1, 9, "forged")
	requireInvalid(t, c.StepReplica(2, &wire.Accept{Ballot: 0, Leader: 2, PrevSlot: 2, Entries: []wire.Entry{e}, LeaderCommit: 3}))
	requireInvalid(t, c.StepReplica(2, &wire.Accept{Ballot: 0, Leader: 0, PrevSlot: 2, Entries: []wire.Entry{e}, LeaderCommit: 3}))
	require.Equal(t, kvs.Slot(2), c.LastSlot())
	require.False(t, c.store.Get(key(9)).Found)
}

// TestMalformedEntriesRejected: entries no leader writes are rejected whole.
func TestMalformedEntriesRejected(t *testing.T) {
	for name, e := range map[string]wire.Entry{
		"command without id":           {Command: kvs.Command{Op: kvs.OpPut, Key: key(1), Value: kvs.Value("v")}, Level: wire.Strong},
		"ballot above the Accept's":    {Ballot: 9, Cmd: wire.CmdID{Client: 1, Seq: 1}, Command: kvs.Command{Op: kvs.OpGet, Key: key(1)}, Level: wire.Strong},
		"invalid command":              {Cmd: wire.CmdID{Client: 1, Seq: 1}, Command: kvs.Command{Op: kvs.OpScan, Limit: -1}, Level: wire.Strong},
		"SCAN ending before its start": {Cmd: wire.CmdID{Client: 1, Seq: 1}, Command: kvs.Command{Op: kvs.OpScan, Key: key(2), End: key(1), Limit: 1}, Level: wire.Strong},
		"key over the limit":           {Cmd: wire.CmdID{Client: 1, Seq: 1}, Command: kvs.Command{Op: kvs.OpGet, Key: kvs.Key(make([]byte, kvs.DefaultLimits.MaxKey+1))}, Level: wire.Strong},
		"weak CAS": {Cmd: wire.CmdID{Client: 1, Seq: 1}, Level: wire.Weak,
			Command: kvs.Command{Op: kvs.OpCAS, Key: key(1), Expect: kvs.ExpectAbsent, Value: kvs.Value("v")}},
		"weak INCR": {Cmd: wire.CmdID{Client: 1, Seq: 1}, Level: wire.Weak, Command: kvs.Command{Op: kvs.OpIncr, Key: key(1), Delta: 1}},
	} {
		t.Run(name, func(t *testing.T) {
			c := follower1(t)
			requireInvalid(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, PrevSlot: 2, Entries: []wire.Entry{e}}))
			require.Equal(t, kvs.Slot(2), c.LastSlot())
		})
	}
	c := follower1(t)
	requireInvalid(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, PrevSlot: math.MaxUint64, Entries: []wire.Entry{put(1, 1, 1, "v")}}))
}

// TestForgedWeakCASRefused: a CAS or an INCR is strong only (PROTOCOL.md
// 1.2), so a log entry holding a weak one is a forgery: validEntry refuses
// it, and an Accept carrying it changes nothing, while the same entries
// at the strong level, and a weak PUT or DELETE, are log entries.
func TestForgedWeakCASRefused(t *testing.T) {
	id := wire.CmdID{Client: 66, Seq: 1}
	cas := kvs.Command{Op: kvs.OpCAS, Key: key(1), Expect: kvs.ExpectValue, ExpectValue: kvs.Value("a"), Value: kvs.Value("forged")}
	incr := kvs.Command{Op: kvs.OpIncr, Key: key(1), Delta: 5}
	for _, cmd := range []kvs.Command{cas, incr} {
		require.False(t, validEntry(&wire.Entry{Cmd: id, Command: cmd, Level: wire.Weak}, kvs.DefaultLimits, false), "weak %v", cmd)
		require.True(t, validEntry(&wire.Entry{Cmd: id, Command: cmd, Level: wire.Strong}, kvs.DefaultLimits, false), "strong %v", cmd)
	}
	for _, cmd := range []kvs.Command{putCmd(1, "v"), {Op: kvs.OpDelete, Key: key(1)}} {
		require.True(t, validEntry(&wire.Entry{Cmd: id, Command: cmd, Level: wire.Weak}, kvs.DefaultLimits, false), "weak %v", cmd)
	}

	c := follower1(t)
	forged := wire.Entry{Cmd: id, Command: cas, Level: wire.Weak}
	requireInvalid(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, PrevSlot: 2, Entries: []wire.Entry{forged}, LeaderCommit: 3}))
	require.Equal(t, kvs.Slot(2), c.LastSlot())
	require.Equal(t, kvs.Value("a"), c.store.Get(key(1)).Value, "the CAS never executed")
}

// TestForgedRequestVoteCannotMoveTheBallot: issue 12. A RequestVote of
// ballot 2^32-1 from a replica this one granted no pre-vote to changes
// nothing (it used to move the whole cluster to the last ballot, after
// which no election could ever succeed); a later real election still
// works.
func TestForgedRequestVoteCannotMoveTheBallot(t *testing.T) {
	c := follower1(t)
	require.NoError(t, c.StepReplica(2, &wire.RequestVote{Ballot: math.MaxUint32, Candidate: 2, LastSlot: 1 << 40, LastBallot: math.MaxUint32}))
	require.Equal(t, wire.Ballot(0), c.Ballot())
	require.False(t, c.out.lastPeer().(*wire.RequestVoteReply).Granted)

	// The leader falls silent: replica 2 pre-votes, then stands.
	c.now = int64(c.o.ElectionTimeoutMax)
	require.NoError(t, c.StepReplica(2, &wire.PreVote{Ballot: 1, Candidate: 2, LastSlot: 2}))
	require.True(t, c.out.lastPeer().(*wire.PreVoteReply).Granted)
	require.NoError(t, c.StepReplica(2, &wire.RequestVote{Ballot: 1, Candidate: 2, LastSlot: 2}))
	require.True(t, c.out.lastPeer().(*wire.RequestVoteReply).Granted)
	require.Equal(t, wire.Ballot(1), c.Ballot())
}

// TestPreVote: PROTOCOL.md 6.2 with the pre-vote of docs/DECISIONS.md 20. A
// replica that hears its leader refuses pre-votes; one whose leader is
// silent grants them to a candidate whose log is up to date, and to no
// other; a pre-vote changes no ballot.
func TestPreVote(t *testing.T) {
	c := follower1(t)
	pre := func(lastSlot kvs.Slot) bool {
		require.NoError(t, c.StepReplica(2, &wire.PreVote{Ballot: 1, Candidate: 2, LastSlot: lastSlot}))
		return c.out.lastPeer().(*wire.PreVoteReply).Granted
	}
	require.False(t, pre(2), "the leader was heard just now")
	c.now = int64(c.o.ElectionTimeoutMax)
	require.False(t, pre(1), "the candidate's log is behind")
	require.True(t, pre(2))
	require.Equal(t, wire.Ballot(0), c.Ballot(), "a pre-vote changes no ballot")
}

// TestIsolatedReplicaKeepsItsBallot: a replica whose pre-votes go
// unanswered never raises its ballot, however often its timer fires, so
// it cannot disturb the cluster when it comes back.
func TestIsolatedReplicaKeepsItsBallot(t *testing.T) {
	c := follower1(t)
	for range 10 {
		c.now += int64(c.o.ElectionTimeoutMax)
		c.Tick()
	}
	require.Equal(t, wire.Ballot(0), c.Ballot())
	sent := 0
	for _, m := range c.out.peer() {
		if _, ok := m.(*wire.PreVote); ok {
			sent++
		}
	}
	require.GreaterOrEqual(t, sent, 10, "it kept asking")
}

// TestMessageClaimingAnotherSender: messages that name a replica other
// than the connection's sender are rejected.
func TestMessageClaimingAnotherSender(t *testing.T) {
	c := follower1(t)
	for _, m := range []wire.Message{
		&wire.AcceptAck{Ballot: 0, Replica: 0, Success: true, MatchSlot: 2},
		&wire.RequestVote{Ballot: 1, Candidate: 0},
		&wire.RequestVoteReply{Ballot: 0, Replica: 0},
		&wire.PreVote{Ballot: 1, Candidate: 0},
		&wire.PreVoteReply{Ballot: 0, PreBallot: 1, Replica: 0},
		&wire.CollectReply{Ballot: 0, Replica: 0},
		&wire.NewView{Ballot: 0, Leader: 0, ViewStart: 1},
	} {
		requireInvalid(t, c.StepReplica(2, m))
	}
	requireInvalid(t, c.StepReplica(1, &wire.Commit{}))
	requireInvalid(t, c.StepReplica(3, &wire.Commit{}))
	requireInvalid(t, c.StepReplica(2, &wire.Propose{}))
}
