package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/replica"
	"swiftpaxos/sim"
	"swiftpaxos/wire"
)

// cannotHear cuts replica 0 off one way: it sends to the other replicas,
// which hear its heartbeats, but nothing of theirs reaches it.
func cannotHear(from, to int, _ wire.Message) bool {
	return to == 0 && (from == 1 || from == 2)
}

// cutLeaderOneWay starts three replicas, lets a strong write complete
// and cuts the leader, replica 0, off one way.
func cutLeaderOneWay(t *testing.T, p sim.Protocol, m replica.Mutation) *sim.Script {
	t.Helper()
	s, err := sim.NewScript(sim.Options{
		Seed: 1, N: 3, Sessions: 1, Protocol: p, Mutation: m,
		Faults: sim.Faults{MinDelay: 100 * time.Microsecond, MaxDelay: 300 * time.Microsecond},
	})
	require.NoError(t, err)
	s.Put(0, wire.Strong, 5)
	runUntil(t, s, "the first write completes", done(s, 0, 1), time.Second)
	s.Drop(cannotHear)
	return s
}

// leaderThatCannotHear cuts the leader off one way and issues a second
// strong write; it reports whether that write completed within 10 s of
// the cut, and when.
func leaderThatCannotHear(t *testing.T, p sim.Protocol, m replica.Mutation) (s *sim.Script, ok bool, after time.Duration) {
	t.Helper()
	s = cutLeaderOneWay(t, p, m)
	cut := s.Replica(1).Now()
	s.Put(0, wire.Strong, 5)
	ok, err := s.RunUntil(done(s, 0, 2), 10*time.Second)
	require.NoError(t, err)
	return s, ok, time.Duration(s.Replica(1).Now() - cut)
}

// TestScenarioLeaderThatCannotHear: a leader whose links from the others
// are broken one way falls quiet after ElectionTimeoutMax (check-quorum,
// docs/DECISIONS.md 56); its heartbeats stop, the others elect a leader
// among themselves, and the write completes through it, while replica 0,
// hearing nothing, still believes it leads the older ballot. Without the
// rule (Mutation.NoCheckQuorum) the followers, hearing their leader,
// never elect another, and nothing completes in 10 s.
func TestScenarioLeaderThatCannotHear(t *testing.T) {
	forEachProtocol(t, func(t *testing.T, p sim.Protocol) {
		s, ok, after := leaderThatCannotHear(t, p, replica.Mutation{})
		require.True(t, ok, "the write completes:%s", s.Describe())
		t.Logf("the write completed %v after the cut", after)
		require.Greater(t, after, 1500*time.Millisecond, "not before replica 0 fell quiet (ElectionTimeoutMax)")
		require.NotEqual(t, 0, s.Leader())
		require.True(t, s.Replica(0).IsLeader(), "replica 0 heard of no other leader")
		s.Drop(nil)
		requireClean(t, s)

		s, ok, _ = leaderThatCannotHear(t, p, replica.Mutation{NoCheckQuorum: true})
		require.False(t, ok, "without check-quorum the cluster stalls")
		require.True(t, s.Replica(0).IsLeader())
	})
}

// TestScenarioQuietLeaderAfterTheHeal: the cut heals after replica 0 fell
// quiet but before the others' timers ran out. A quiet leader sends
// nothing, so the followers speak first, with a pre-vote once their
// timers run out, and an election follows, as after any partition of
// the leader; the write proposed while it was quiet (which may complete
// on CURP's fast path, from the witnesses' records) reaches no
// follower's log then, is applied everywhere once a leader leads, and
// the checker passes.
func TestScenarioQuietLeaderAfterTheHeal(t *testing.T) {
	forEachProtocol(t, func(t *testing.T, p sim.Protocol) {
		s := cutLeaderOneWay(t, p, replica.Mutation{})
		require.NoError(t, s.Run(1600*time.Millisecond))
		require.True(t, s.Replica(0).Quiet())
		last := []kvs.Slot{s.Replica(1).LastSlot(), s.Replica(2).LastSlot()}
		s.Put(0, wire.Strong, 5)
		require.NoError(t, s.Run(100*time.Millisecond))
		require.Equal(t, last, []kvs.Slot{s.Replica(1).LastSlot(), s.Replica(2).LastSlot()}, "quiet: the followers get no Accept")
		s.Drop(nil)
		for r := range 3 {
			runUntil(t, s, "every replica applies it", func() bool { _, ok := s.AppliedSlot(r, 0, 2); return ok }, 3*time.Second)
		}
		require.Positive(t, s.Replica(s.Leader()).Ballot(), "an election followed")
		requireClean(t, s)
	})
}
