package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swiftpaxos/replica"
	"swiftpaxos/wire"
)

// TestScenarioStaleVoteOfALaterBallotsMember: docs/DECISIONS.md 51, the
// first case argued closed. Five replicas; replica 0 leads ballot 0 and a
// strong write commits. Cut off from replica 0, replica 1 stands in
// ballot 1 and replicas 2 and 3 vote for it; their replies are held in
// flight. Replica 2 restarts empty; replica 3 answers its Join as a member
// of ballot 1, so the new life waits for a leader of ballot 1 or later.
// Replica 3 learns that replica 0 no longer leads, stands in ballot 2 and
// wins with replicas 0 and 4, and makes replica 2's new life a member.
// Only then do the held votes reach replica 1, which has heard of no later
// life of replica 2 and leads ballot 1 on a stale vote. Harmlessly: every
// member is in ballot 2, replica 1's Accepts are refused, and the write is
// read.
func TestScenarioStaleVoteOfALaterBallotsMember(t *testing.T) {
	s := scenarioCluster(t, 5, replica.Mutation{})
	require.Equal(t, 0, s.Leader())
	s.Put(0, wire.Strong, 1)
	runUntil(t, s, "the write completes", func() bool { ok, _ := s.Done(0, 1); return ok }, time.Second)

	var votes []*wire.RequestVoteReply
	holdVotes := func(from, to int, m wire.Message) bool {
		v, ok := m.(*wire.RequestVoteReply)
		if ok && to == 1 && v.Granted {
			votes = append(votes, v)
		}
		return ok && to == 1
	}
	drops(t, s, holdVotes, onlyCandidate(1), between(0, 1, 2, 3), between(1, 4))
	runUntil(t, s, "replicas 2 and 3 vote for replica 1 in ballot 1", func() bool { return len(votes) == 2 }, 5*time.Second)
	require.Equal(t, replica.Candidate, s.Replica(1).Role())

	s.Crash(2)
	s.Restart(2)
	var newLife uint64
	joins := func(from, to int, m wire.Message) bool {
		if j, ok := m.(*wire.Join); ok && from == 2 {
			newLife = j.Incarnation
		}
		return false
	}
	drops(t, s, joins, between(1, 0, 2, 3, 4), onlyCandidate(3))
	runUntil(t, s, "replica 3 leads ballot 2", func() bool { return s.Replica(3).IsLeader() && s.Replica(3).Ballot() == 2 }, 10*time.Second)
	runUntil(t, s, "replica 2's new life is a member", func() bool { return s.Replica(2).Member() }, 10*time.Second)
	require.Equal(t, wire.Ballot(2), s.Replica(2).Ballot())
	for _, v := range votes {
		require.Less(t, v.Lives[2], newLife, "replica %d's vote names replica 2's earlier life", v.Replica)
	}

	only1Votes := func(from, to int, m wire.Message) bool {
		_, vote := m.(*wire.RequestVoteReply)
		return (from == 1 || to == 1) && !vote
	}
	drops(t, s, only1Votes)
	for _, v := range votes {
		s.Inject(int(v.Replica), 1, v)
	}
	runUntil(t, s, "replica 1 leads ballot 1 on a stale vote", func() bool { return s.Replica(1).IsLeader() }, time.Second)
	require.Equal(t, wire.Ballot(1), s.Replica(1).Ballot())

	s.Drop(nil)
	runUntil(t, s, "replica 1 learns of ballot 2", func() bool { return s.Replica(1).Ballot() >= 2 }, 3*time.Second)
	require.NoError(t, s.Run(time.Second))
	readsTheWrite(t, s, true)
}
