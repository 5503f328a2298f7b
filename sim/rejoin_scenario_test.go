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

// TestScenarioRestartedReplicaDoesNotVoteEarly: PROTOCOL.md 6.10. Three
// replicas. A strong write is committed by replicas 0 and 1 while replica
// 2 lags (the leader's entries do not reach it). Replica 1 crashes and
// comes back empty, and the leader is cut off. Replica 1 must not vote
// before it has caught up with a leader: otherwise replica 2, whose log
// lacks the committed write, wins the election with its vote and the
// write is gone. Correct: no leader until the partition heals, then the
// write is still there. With the mutation (a restarted replica votes at
// once), the checker must see the lost write.
func TestScenarioRestartedReplicaDoesNotVoteEarly(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    replica.Mutation
	}{{"rejoin rule", replica.Mutation{}}, {"votes early", replica.Mutation{EarlyMember: true}}} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := sim.NewScript(sim.Options{Seed: 1, N: 3, Sessions: 2, Protocol: protocols[0], Mutation: tc.m,
				Faults: sim.Faults{MinDelay: 100 * time.Microsecond, MaxDelay: 300 * time.Microsecond}})
			require.NoError(t, err)
			require.NoError(t, s.Run(20*time.Millisecond))
			drops(t, s, acceptFrom(0, 2))
			s.Put(0, wire.Strong, 1)
			runUntil(t, s, "replica 1 applies the write", func() bool { _, ok := s.AppliedSlot(1, 0, 1); return ok }, time.Second)
			s.Crash(1)
			s.Restart(1)
			isolate0 := func(from, to int, m wire.Message) bool { return from == 0 || to == 0 }
			drops(t, s, acceptFrom(0, 2), isolate0)
			require.NoError(t, s.Run(5*time.Second))
			s.Drop(nil)
			require.NoError(t, s.Run(5*time.Second))
			readsTheWrite(t, s, tc.m == (replica.Mutation{}))
		})
	}
}

// TestScenarioRestartedMajorityWaitsForTheSilentMember: docs/DECISIONS.md
// 37. Three in-memory replicas founded as new ones commit a strong write
// on all three. Replicas 1 and 2 crash and come back empty while replica
// 0, which holds the write, is cut off. Restarted as they should be
// (-cluster existing), they found nothing: they wait, and once replica 0
// is back they catch up from it, and the write is read. Restarted with
// -cluster new, they are a majority of fresh "new" replicas that hear no
// member, found a second cluster, and the write is lost: the checker must
// see it. The flag is what tells a first start from a restart.
func TestScenarioRestartedMajorityWaitsForTheSilentMember(t *testing.T) {
	for _, claimNew := range []bool{false, true} {
		t.Run(map[bool]string{false: "existing", true: "claiming new"}[claimNew], func(t *testing.T) {
			s, err := sim.NewScript(sim.Options{Seed: 1, N: 3, Sessions: 2, Protocol: protocols[0],
				Faults: sim.Faults{MinDelay: 100 * time.Microsecond, MaxDelay: 300 * time.Microsecond}})
			require.NoError(t, err)
			require.NoError(t, s.Run(20*time.Millisecond))
			s.Put(0, wire.Strong, 1)
			for r := range 3 {
				runUntil(t, s, "every replica applies the write", func() bool { _, ok := s.AppliedSlot(r, 0, 1); return ok }, time.Second)
			}
			s.Crash(1)
			s.Crash(2)
			drops(t, s, func(from, to int, m wire.Message) bool { return from == 0 || to == 0 })
			for r := 1; r < 3; r++ {
				if claimNew {
					s.RestartClaimingNew(r)
				} else {
					s.Restart(r)
				}
			}
			require.NoError(t, s.Run(3*time.Second))
			require.Equal(t, claimNew, s.Replica(1).Member(), "a restarted replica is a member while the holder of the write is cut off")
			s.Drop(nil)
			require.NoError(t, s.Run(3*time.Second))
			readsTheWrite(t, s, !claimNew)
		})
	}
}

// readsTheWrite ends a scenario in which session 0 wrote key 1 strongly:
// session 1 reads it strongly, and the checker judges the run. A correct
// build passes and reads the write; a broken one (correct false) must be
// caught losing it.
func readsTheWrite(t *testing.T, s *sim.Script, correct bool) {
	t.Helper()
	s.Get(1, wire.Strong, 1)
	runUntil(t, s, "a strong read completes", func() bool { ok, _ := s.Done(1, 1); return ok }, 10*time.Second)
	rep := s.Check()
	if correct {
		require.True(t, rep.OK(), "%v", rep)
		_, wrote := s.Done(0, 1)
		_, read := s.Done(1, 1)
		require.Equal(t, wrote, read)
		return
	}
	caught := false
	for _, v := range rep.Violations {
		caught = caught || v.Rule == check.RuleDurability || v.Rule == check.RuleLogAgreement || v.Rule == check.RuleLinearizability
	}
	require.True(t, caught, "the lost write is caught: %v", rep)
}
