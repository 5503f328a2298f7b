package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swiftpaxos/check"
	"swiftpaxos/replica"
	"swiftpaxos/sim"
	"swiftpaxos/wire"
)

// Leader reads (docs/DECISIONS.md 46) from a deposed leader. Three
// replicas; session 0 reads at the leader alone, session 1 writes. Replica
// 0 leads and answers a first read; it is then cut off from the other
// replicas, not from its clients, and replica 1 is elected; the writer's
// strong write of the key completes there, and never reaches replica 0. The reader never hears of the
// new view and reads the key at replica 0 again, whose state still holds
// the old value, all of it committed. Replica 0 must not answer: no
// follower confirms its leadership round. The read completes through
// replica 1, after the reader's retry, with the new value. A leader that
// answers without the round (Mutation.UnconfirmedLeaderRead) returns the
// overwritten value, and the checker says so.

const (
	leaderReader = 0
	readWriter   = 1
)

func deposedLeaderRead(t *testing.T, p sim.Protocol, m replica.Mutation) (*sim.Script, string, string) {
	t.Helper()
	s, err := sim.NewScript(sim.Options{
		Seed: 1, N: 3, Sessions: 2, Protocol: p, LeaderReads: 50, Mutation: m,
		Faults: sim.Faults{MinDelay: 100 * time.Microsecond, MaxDelay: 300 * time.Microsecond},
	})
	require.NoError(t, err)
	require.NoError(t, s.Run(20*time.Millisecond))
	done := func(session int, seq wire.Seq) func() bool {
		return func() bool { ok, _ := s.Done(session, seq); return ok }
	}
	s.Put(readWriter, wire.Strong, 5)
	runUntil(t, s, "the first write completes", done(readWriter, 1), time.Second)
	require.NoError(t, s.Run(20*time.Millisecond))
	s.Get(leaderReader, wire.Strong, 5)
	runUntil(t, s, "the first read completes", done(leaderReader, 1), time.Second)
	_, first := s.Done(readWriter, 1)
	_, got := s.Done(leaderReader, 1)
	require.Equal(t, first, got)
	require.Equal(t, "slow", s.Path(leaderReader, 1), "a leader read completes with the leader's SyncReply")

	cut0 := func(from, to int, _ wire.Message) bool {
		return from == 0 && to < 3 && to != 0 || to == 0 && from < 3 && from != 0
	}
	// The second write never reaches replica 0, which would otherwise
	// hold it as a write above its commit index and log the read.
	toZero := func(from, to int, _ wire.Message) bool { return from == s.Endpoint(readWriter) && to == 0 }
	drops(t, s, cut0, toZero, onlyCandidate(1), newViewTo(s.Endpoint(leaderReader)))
	runUntil(t, s, "replica 1 leads and replica 2 follows", func() bool {
		return s.Leader() == 1 && s.Replica(2).Ballot() == s.Replica(1).Ballot()
	}, 5*time.Second)
	require.True(t, s.Replica(0).IsLeader(), "replica 0 still believes it leads")
	s.Put(readWriter, wire.Strong, 5)
	runUntil(t, s, "the second write completes", done(readWriter, 2), time.Second)
	require.NoError(t, s.Run(time.Millisecond)) // so that the read begins after the write returned
	s.Get(leaderReader, wire.Strong, 5)
	runUntil(t, s, "the second read completes", done(leaderReader, 2), 5*time.Second)
	_, second := s.Done(readWriter, 2)
	_, read := s.Done(leaderReader, 2)
	return s, second, read
}

func TestScenarioDeposedLeaderHoldsLeaderRead(t *testing.T) {
	forEachProtocol(t, func(t *testing.T, p sim.Protocol) {
		s, written, read := deposedLeaderRead(t, p, replica.Mutation{})
		require.Equal(t, written, read, "the read returns the write that completed before it began")
		s.Drop(nil)
		requireClean(t, s)
	})
}

func TestScenarioUnconfirmedLeaderReadIsCaught(t *testing.T) {
	forEachProtocol(t, func(t *testing.T, p sim.Protocol) {
		s, written, read := deposedLeaderRead(t, p, replica.Mutation{UnconfirmedLeaderRead: true})
		require.NotEqual(t, written, read, "the deposed leader answers from its stale state")
		requireViolation(t, s, check.RuleLinearizability)
	})
}
