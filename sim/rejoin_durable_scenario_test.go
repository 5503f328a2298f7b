package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swiftpaxos/replica"
	"swiftpaxos/sim"
	"swiftpaxos/wire"
)

// TestScenarioDurableReplicaRemembersANewLife: docs/DECISIONS.md 52. Five
// durable replicas; replica 0 leads ballot 0, and replicas 2 and 3 do not
// talk. Cut off from the leader, replica 3 pre-votes for ballot 1 and
// replica 1 grants it; its PreVote to replica 4 is held back. Replica 1
// crashes, its data directory lost, and rejoins in ballot 0; replica 3
// hears nothing of it, replica 4 answers its Join. Replica 4 then restarts
// from its disk and grants the held-back pre-vote.
//
// As built, replica 4's disk kept replica 1's new life, its grant tells
// replica 3, which no longer counts the earlier life's grant and stands in
// no election: the write that follows is read. With
// Mutation.RestoreForgetsLives, replica 4 forgot it: replica 3 stands in
// ballot 1 and replica 4 votes for it; replica 4 then loses its disk too
// and rejoins in ballot 0, and a strong write commits with replicas 0, 2
// and 4. Replica 1 restarts from its disk, forgetting replica 4's new life,
// adopts ballot 1 from replica 3's refusal of a pre-vote and grants the
// held-back RequestVote: replica 3 counts the vote of replica 4's earlier
// life and leads ballot 1 without the write, which must be caught.
func TestScenarioDurableReplicaRemembersANewLife(t *testing.T) {
	ruleAndMutationOf(t, sim.Options{N: 5, Durable: true}, "forgets lives", replica.Mutation{RestoreForgetsLives: true}, func(t *testing.T, s *sim.Script, broken bool) {
		require.Equal(t, 0, s.Leader())
		w := &voteWatch{hold4: true}
		watch := w.drop
		apart := between(2, 3)
		drops(t, s, watch, apart, onlyCandidate(3), between(0, 1, 3, 4))
		runUntil(t, s, "replica 1 grants replica 3's pre-vote", func() bool { return w.granted1 }, 5*time.Second)
		require.NoError(t, s.Run(5*time.Millisecond))
		s.Crash(1)
		s.RestartWiped(1)
		drops(t, s, watch, apart, onlyCandidate(3), between(0, 3, 4), joinsBetween(1, 3))
		runUntil(t, s, "replica 1 rejoins", func() bool { return s.Replica(1).Member() }, 5*time.Second)
		require.Equal(t, wire.Ballot(0), s.Replica(1).Ballot())

		s.Crash(4)
		s.Restart(4)
		require.True(t, s.Replica(4).Member(), "replica 4 restarted from its disk")
		drops(t, s, watch, apart, onlyCandidate(3), between(0, 3, 4))
		require.NoError(t, s.Run(600*time.Millisecond), "past the time a replica restarted from disk grants no pre-vote")
		w.grant4(t, s, broken)

		restart4AndWriteWithout1(t, s)
		if !broken {
			s.Drop(nil)
			require.NoError(t, s.Run(3*time.Second))
			readsTheWrite(t, s, true)
			return
		}
		require.Equal(t, replica.Candidate, s.Replica(3).Role(), "replica 3 still stands")
		s.Crash(1)
		s.Restart(1)
		drops(t, s, between(3, 0, 2, 4), between(1, 0, 2, 4))
		s.Inject(1, 3, &wire.PreVote{Ballot: s.Replica(1).Ballot() + 1, Candidate: 1})
		require.NoError(t, s.Run(2*time.Millisecond))
		require.Equal(t, wire.Ballot(1), s.Replica(1).Ballot(), "replica 1 adopted ballot 1")
		s.Inject(3, 1, w.held)
		runUntil(t, s, "replica 3 leads ballot 1", func() bool { return s.Replica(3).IsLeader() }, time.Second)
		s.Drop(nil)
		caughtLosingTheWrite(t, s)
	})
}
