package replica

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// Commit advancement, PROTOCOL.md 3.2: at the leader, "the largest s such
// that a majority (itself included) has matchIndex >= s and log[s].Ballot
// equals the current ballot"; at a follower, "commitIndex = max(commitIndex,
// min(LeaderCommit, last new slot))".

// leaderWith is replica 0 of n, leader of ballot 0, with one strong PUT per
// key appended (slots 1..len(keys)) and sent, nothing acknowledged yet.
func leaderWith(t *testing.T, n int, keys ...int) *testCore {
	t.Helper()
	c := newStepCore(t, 0, n, nil)
	require.True(t, c.IsLeader())
	for i, k := range keys {
		c.StepClient(7, &wire.Propose{Cmd: cmdID(7, wire.Seq(i+1)), Command: putCmd(k, fmt.Sprint("v", i+1))})
	}
	require.Equal(t, kvs.Slot(len(keys)), c.LastSlot())
	c.Ready()
	c.out.discard()
	return c
}

// TestLeaderCommitsAtMajority: PROTOCOL.md 3.2. An entry commits once a
// majority holds it, the leader included, and not one acknowledgement
// earlier; the leader then applies it and sends its SyncReplies (3.3).
func TestLeaderCommitsAtMajority(t *testing.T) {
	for _, n := range []int{3, 5, 7} {
		t.Run(fmt.Sprint("n=", n), func(t *testing.T) {
			c := leaderWith(t, n, 1, 2, 3)
			majority := n/2 + 1
			for p := 1; p < n; p++ {
				c.ack(t, wire.ReplicaID(p), 3)
				want := kvs.Slot(0)
				if p+1 >= majority {
					want = 3
				}
				require.Equal(t, want, c.CommitIndex(), "%d of %d hold slots 1-3", p+1, n)
				require.Equal(t, want, c.AppliedIndex())
				if p+1 == majority {
					require.Len(t, msgsOf[*wire.SyncReply](c.out.take()), 3)
				}
			}
		})
	}
}

// TestLeaderCommitIndexIsMajorityMatch: PROTOCOL.md 3.2. The commit index
// is the largest slot a majority holds: neither the largest
// acknowledgement nor the smallest. A failed acknowledgement counts for
// nothing, whatever its MatchSlot (it is only a hint where to resend from),
// and the new commit index reaches every follower.
func TestLeaderCommitIndexIsMajorityMatch(t *testing.T) {
	c := leaderWith(t, 5, 1, 2, 3)
	require.NoError(t, c.StepReplica(1, &wire.AcceptAck{Ballot: 0, Replica: 1, MatchSlot: 3}))
	require.Zero(t, c.CommitIndex(), "a failed acknowledgement")
	for _, step := range []struct {
		from  wire.ReplicaID
		match kvs.Slot
		want  kvs.Slot
	}{
		{1, 1, 0}, // held: 3 (leader), 1
		{2, 3, 1}, // 3, 3, 1
		{3, 2, 2}, // 3, 3, 2, 1
		{4, 3, 3}, // 3, 3, 3, 2, 1
	} {
		c.ack(t, step.from, step.match)
		require.Equal(t, step.want, c.CommitIndex(), "after replica %d acknowledged slot %d", step.from, step.match)
	}
	told := make(map[wire.ReplicaID]kvs.Slot)
	for _, e := range c.Ready().Messages {
		switch m := e.Msg.(type) {
		case *wire.Accept:
			told[e.To] = max(told[e.To], m.LeaderCommit)
		case *wire.Commit:
			told[e.To] = max(told[e.To], m.CommitIndex)
		}
	}
	require.Equal(t, map[wire.ReplicaID]kvs.Slot{1: 3, 2: 3, 3: 3, 4: 3}, told)
}

// TestLearnerCopyDoesNotCount: PROTOCOL.md 6.10. A replica that restarted
// without its state does not vote, so a commit counted with its copy might
// be held by no future election majority: its acknowledgements (Learner
// set) do not count.
func TestLearnerCopyDoesNotCount(t *testing.T) {
	c := leaderWith(t, 3, 1, 2)
	require.NoError(t, c.StepReplica(1, &wire.AcceptAck{Ballot: 0, Replica: 1, Success: true, MatchSlot: 2, Learner: true}))
	require.Zero(t, c.CommitIndex())
	c.ack(t, 2, 2)
	require.Equal(t, kvs.Slot(2), c.CommitIndex())
}

// TestLearnerCopyCountsOnceItIsAMember: the copy a learner acknowledged
// counts from the moment the same follower acknowledges as a member, even
// when the log has not grown since: the commit must not wait for a later
// entry, which may never come (every client re-sending the same commands).
func TestLearnerCopyCountsOnceItIsAMember(t *testing.T) {
	c := leaderWith(t, 3, 1, 2)
	require.NoError(t, c.StepReplica(1, &wire.AcceptAck{Ballot: 0, Replica: 1, Success: true, MatchSlot: 2, Learner: true}))
	require.Zero(t, c.CommitIndex())
	require.NoError(t, c.StepReplica(1, &wire.AcceptAck{Ballot: 0, Replica: 1, Success: true, MatchSlot: 2}))
	require.Equal(t, kvs.Slot(2), c.CommitIndex())
}

// TestOnlyCurrentBallotCommitsByCounting: PROTOCOL.md 3.2, "entries of
// older ballots become committed only indirectly" (Raft's figure 8). A new
// leader of ballot 1 holds slot 3 of ballot 0, uncommitted; a majority
// holding slot 3 does not commit it, because a leader of a later ballot
// elected without this majority's votes could still replace it. Once the
// leader's own no-op at slot 4 is held by a majority, slots 3 and 4 commit
// together.
func TestOnlyCurrentBallotCommitsByCounting(t *testing.T) {
	c := followerWith(t, 1, 3, 2, put(7, 1, 1, "a"), put(7, 2, 2, "b"), put(7, 3, 3, "c"))
	c.win(t, 2)
	require.Equal(t, kvs.Slot(3), c.LastSlot())

	c.ack(t, 2, 3)
	require.Equal(t, kvs.Slot(2), c.CommitIndex(), "slot 3 is of ballot 0: a majority holding it is not enough")
	_, ver := value(c.Core, 3)
	require.Zero(t, ver, "and it is not applied")

	c.finishRecovery(t, 2)
	require.Equal(t, kvs.Slot(4), c.LastSlot())
	require.Equal(t, wire.Ballot(1), c.entries.at(4).Ballot, "the view's no-op")
	c.ack(t, 2, 4)
	require.Equal(t, kvs.Slot(4), c.CommitIndex(), "slot 4 of ballot 1 commits, and slot 3 with it")
	v, ver := value(c.Core, 3)
	require.Equal(t, "c", v)
	require.Equal(t, kvs.Slot(3), ver)
}

// TestFollowerCommitBoundedByMatch: PROTOCOL.md 3.2. A follower commits up
// to the leader's commit index only as far as its log is known to equal
// the leader's (the last slot of the Accept that matched). Its own slot 3,
// left by the deposed leader, differs from the new leader's slot 3: a
// heartbeat that matches slot 2, or a Commit, naming commit index 3 must
// not make it apply that stale entry.
func TestFollowerCommitBoundedByMatch(t *testing.T) {
	c := followerWith(t, 1, 3, 2, put(7, 1, 1, "a"), put(7, 2, 2, "b"), put(8, 1, 3, "stale"))

	require.NoError(t, c.StepReplica(2, &wire.Accept{Ballot: 1, Leader: 2, PrevSlot: 2, PrevBallot: 0, LeaderCommit: 3}))
	require.Equal(t, kvs.Slot(2), c.CommitIndex(), "the heartbeat shows slots 1-2 equal, not slot 3")
	require.NoError(t, c.StepReplica(2, &wire.Commit{Ballot: 1, CommitIndex: 3}))
	require.Equal(t, kvs.Slot(2), c.CommitIndex(), "nor does a Commit")
	_, ver := value(c.Core, 3)
	require.Zero(t, ver, "the stale entry never executes")

	require.NoError(t, c.StepReplica(2, &wire.Accept{Ballot: 1, Leader: 2, PrevSlot: 2, PrevBallot: 0,
		Entries: []wire.Entry{putIn(1, 9, 1, 3, "new")}, LeaderCommit: 3}))
	require.Equal(t, kvs.Slot(3), c.CommitIndex())
	v, ver := value(c.Core, 3)
	require.Equal(t, "new", v)
	require.Equal(t, kvs.Slot(3), ver)

	require.NoError(t, c.StepReplica(2, &wire.Accept{Ballot: 1, Leader: 2, PrevSlot: 3, PrevBallot: 1, LeaderCommit: 9}))
	require.Equal(t, kvs.Slot(3), c.CommitIndex(), "never past the end of the log")
	require.NoError(t, c.StepReplica(2, &wire.Commit{Ballot: 0, CommitIndex: 9}))
	require.Equal(t, kvs.Slot(3), c.CommitIndex(), "a Commit of another ballot is ignored")
}
