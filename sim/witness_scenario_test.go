package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swiftpaxos/sim"
	"swiftpaxos/wire"
)

// TestScenarioLeaderReplacesOwnWitnessRecord: PROTOCOL.md 3.4 rule 6, first
// half. Five replicas. A strong write reaches only replica 1 (ballot 0
// record). The leader crashes and replica 1 wins the election; the record
// is kept by one witness only, so recovery does not replay it, and the
// client's re-send makes replica 1, now leader, append the command it
// already holds as a record. It must replace that record, not add a second
// one: otherwise the stale copy stays on the key after the command applies
// and, once replica 1 is a follower again, it refuses every later strong
// write of the key, which then never takes the fast path.
func TestScenarioLeaderReplacesOwnWitnessRecord(t *testing.T) {
	forEachProtocol(t, func(t *testing.T, p sim.Protocol) {
		s := newScript(t, p, 5, 2)
		w := s.Endpoint(0)
		onlyToR1 := func(from, to int, m wire.Message) bool {
			_, prop := m.(*wire.Propose)
			return prop && from == w && to != 1
		}
		s.Drop(onlyToR1)
		s.Put(0, wire.Strong, 7)
		require.NoError(t, s.Run(10*time.Millisecond))
		require.Equal(t, 1, s.Replica(1).RecordCount(), "replica 1 holds the write")

		// Replica 1 wins; its Accepts are held back until it has appended
		// the re-sent write, so that the view start is not committed (and
		// the old record not purged) before.
		s.Crash(0)
		noAcceptFromR1 := func(from, to int, m wire.Message) bool {
			_, acc := m.(*wire.Accept)
			return acc && from == 1
		}
		s.Drop(anyOf(onlyToR1, onlyCandidate(1), noAcceptFromR1))
		runUntil(t, s, "replica 1 leads and appended the write", func() bool {
			r := s.Replica(1)
			_, inLog := r.SlotOf(wire.CmdID{Client: s.ClientID(0), Seq: 1})
			return r.IsLeader() && inLog
		}, 5*time.Second)
		s.Drop(anyOf(onlyToR1, onlyCandidate(1)))
		runUntil(t, s, "the write completes", func() bool { ok, _ := s.Done(0, 1); return ok }, 5*time.Second)

		// Replica 2 takes over: replica 1's Accepts are lost until the
		// others elect replica 2.
		s.Drop(anyOf(onlyCandidate(2), noAcceptFromR1))
		runUntil(t, s, "replica 2 leads", func() bool { return s.Leader() == 2 }, 5*time.Second)
		s.Drop(nil)
		require.NoError(t, s.Run(200*time.Millisecond))

		s.Put(1, wire.Strong, 7)
		runUntil(t, s, "the second write completes", func() bool { ok, _ := s.Done(1, 1); return ok }, 5*time.Second)
		require.Equal(t, "fast", s.Path(1, 1), "every witness is free to accept a strong write of key 7")
		require.NoError(t, s.Run(time.Second))
		for r := 1; r < 5; r++ {
			require.NoError(t, s.Replica(r).CheckWitness(), "replica %d", r)
			require.Zero(t, s.Replica(r).RecordCount(), "replica %d holds no record once everything applied", r)
		}
		requireClean(t, s)
	})
}

// TestScenarioReplayFollowsArrivalOrder: PROTOCOL.md 6.5, last paragraph.
// Two sessions' strong writes of different keys complete on the fast path,
// one after the other, while the leader's Accepts are lost; the leader
// crashes and the new one replays both. The witnesses received them in
// real-time order and agree, so the replay keeps that order, whatever the
// sessions' client ids say (the tie-break).
func TestScenarioReplayFollowsArrivalOrder(t *testing.T) {
	forEachProtocol(t, func(t *testing.T, p sim.Protocol) {
		s := newScript(t, p, 3, 2)
		// first is the session with the larger client id: ordering by
		// (ClientId, Seq) would put its write second.
		first, second := 0, 1
		if s.ClientID(0) < s.ClientID(1) {
			first, second = 1, 0
		}
		drops(t, s, acceptFrom(0))
		s.Put(first, wire.Strong, 1)
		runUntil(t, s, "the first write completes", func() bool { ok, _ := s.Done(first, 1); return ok }, time.Second)
		s.Put(second, wire.Strong, 2)
		runUntil(t, s, "the second write completes", func() bool { ok, _ := s.Done(second, 1); return ok }, time.Second)
		require.Equal(t, "fast", s.Path(first, 1))
		require.Equal(t, "fast", s.Path(second, 1))
		s.Crash(0)
		drops(t, s, onlyCandidate(1))
		runUntil(t, s, "both writes are applied at replica 1", func() bool {
			_, a := s.AppliedSlot(1, first, 1)
			_, b := s.AppliedSlot(1, second, 1)
			return a && b
		}, 5*time.Second)
		a, _ := s.AppliedSlot(1, first, 1)
		b, _ := s.AppliedSlot(1, second, 1)
		require.Less(t, a, b, "the replay keeps the writes in the order the witnesses received them")
		s.Drop(nil)
		requireClean(t, s)
	})
}

// TestScenarioForgedVoteDoesNotStopElections: issue 12. A RequestVote of
// the last ballot, claiming to come from replica 2, reaches the other
// replicas (no pre-vote preceded it). Nobody moves to that ballot; when the
// leader then crashes, the survivors elect a new leader and a client's
// writes complete.
func TestScenarioForgedVoteDoesNotStopElections(t *testing.T) {
	forEachProtocol(t, func(t *testing.T, p sim.Protocol) {
		s := newScript(t, p, 3, 2)
		for to := range 2 {
			s.Inject(2, to, &wire.RequestVote{Ballot: math.MaxUint32, Candidate: 2, LastSlot: 1 << 40, LastBallot: math.MaxUint32})
		}
		require.NoError(t, s.Run(10*time.Millisecond))
		for r := range 3 {
			require.Zero(t, s.Replica(r).Ballot(), "replica %d", r)
		}
		s.Crash(0)
		runUntil(t, s, "a new leader is elected", func() bool { return s.Leader() > 0 }, 5*time.Second)
		s.Put(1, wire.Strong, 1)
		runUntil(t, s, "a write completes", func() bool { ok, _ := s.Done(1, 1); return ok }, 5*time.Second)
		require.Less(t, s.Replica(s.Leader()).Ballot(), wire.Ballot(10))
		requireClean(t, s)
	})
}
