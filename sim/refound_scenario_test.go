package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swiftpaxos/replica"
	"swiftpaxos/sim"
	"swiftpaxos/wire"
)

// TestScenarioWipedLeaderDoesNotRefound: docs/DECISIONS.md 53. Three
// durable replicas; replica 0 founds the cluster and leads ballot 0. Its
// Accepts with entries are lost, so a strong write completes on the fast
// path with the witnesses' records alone: the followers' logs stay empty.
// Replica 0 then loses its disk. The members report nothing appended;
// counted as fresh, they would let it found anew as a member, stand
// alone (the others' pre-votes are lost for two seconds) and lead ballot
// 1 with only one of the two records, and the write is lost: caught. As
// built, a majority of members that may have served make it wait as a
// learner; once the others may stand, they elect a leader that replays
// the write, and it is read.
func TestScenarioWipedLeaderDoesNotRefound(t *testing.T) {
	ruleAndMutationOf(t, sim.Options{N: 3, Durable: true}, "refounds", replica.Mutation{RefoundAmongServingMembers: true}, func(t *testing.T, s *sim.Script, broken bool) {
		require.Equal(t, 0, s.Leader())
		drops(t, s, acceptFrom(0))
		s.Put(0, wire.Strong, 1)
		runUntil(t, s, "the write completes", func() bool { ok, _ := s.Done(0, 1); return ok }, time.Second)
		require.Equal(t, "fast", s.Path(0, 1))
		require.Zero(t, s.Replica(1).LastSlot(), "replica 1 appended nothing")
		require.Zero(t, s.Replica(2).LastSlot(), "replica 2 appended nothing")

		s.Crash(0)
		s.RestartWiped(0)
		drops(t, s, onlyCandidate(0))
		require.NoError(t, s.Run(2*time.Second))
		require.Equal(t, broken, s.Replica(0).Member(), "replica 0 is a member")
		require.Equal(t, broken, s.Replica(0).IsLeader(), "replica 0 leads")
		s.Drop(nil)
		if !broken {
			runUntil(t, s, "replica 0 is a member again", func() bool { return s.Replica(0).Member() }, 5*time.Second)
			readsTheWrite(t, s, true)
			return
		}
		caughtLosingTheWrite(t, s)
	})
}
