//go:build knownhole

package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swiftpaxos/replica"
	"swiftpaxos/sim"
	"swiftpaxos/wire"
)

// TestScenarioTwoRestartsInsideAPreVoteMajority reproduces the hole that
// docs/DECISIONS.md 50 records as open ("a second restart inside P"). It
// fails on the current build, which is why it needs the knownhole tag and
// is not part of the test command:
//
//	go test -tags knownhole ./sim -run TestScenarioTwoRestartsInsideAPreVoteMajority
//
// Five replicas; replica 0 leads ballot 0. Cut off from the leader,
// replica 3 pre-votes for ballot 1 and replica 1 grants it; its grant to
// replica 4 is held back. Replica 1 crashes, comes back empty and rejoins
// in ballot 0. Replica 4 then grants, so replica 3 counts a majority with
// the grant of replica 1's earlier life and stands in ballot 1; replica 4
// votes for it and crashes. Replica 4 comes back empty while replica 3 is
// cut off and rejoins in ballot 0 (no answer knows ballot 1), and a
// strong write commits with replicas 0, 2 and 4. Replica 1 adopts ballot
// 1 from replica 3's refusal of a pre-vote and grants replica 3's delayed
// RequestVote: replica 3 leads ballot 1 without the write. Once the hole
// is closed, the write is read and the test passes: move it then beside
// the other rejoin scenarios, without the tag.
func TestScenarioTwoRestartsInsideAPreVoteMajority(t *testing.T) {
	s, err := sim.NewScript(sim.Options{Seed: 1, N: 5, Sessions: 2, Protocol: protocols[0],
		Faults: sim.Faults{MinDelay: 100 * time.Microsecond, MaxDelay: 300 * time.Microsecond}})
	require.NoError(t, err)
	require.NoError(t, s.Run(20*time.Millisecond))
	var held *wire.RequestVote
	var preVoteTo4 *wire.PreVote
	granted1, hold4 := false, true
	watch := func(from, to int, m wire.Message) bool {
		switch x := m.(type) {
		case *wire.RequestVote:
			if from == 3 && to == 1 {
				held = x
			}
			return to == 1
		case *wire.PreVote:
			if from == 3 && to == 4 && hold4 {
				preVoteTo4 = x
				return true
			}
		case *wire.PreVoteReply:
			granted1 = granted1 || from == 1 && to == 3 && x.Granted
		}
		return false
	}
	drops(t, s, watch, onlyCandidate(3), between(0, 1, 3, 4))
	runUntil(t, s, "replica 1 grants replica 3's pre-vote", func() bool { return granted1 }, 5*time.Second)
	require.NoError(t, s.Run(2*time.Millisecond))
	s.Crash(1)
	s.Restart(1)
	drops(t, s, watch, onlyCandidate(3), between(0, 3, 4))
	runUntil(t, s, "replica 1 rejoins", func() bool { return s.Replica(1).Member() }, 5*time.Second)
	require.NotNil(t, preVoteTo4)
	hold4 = false
	s.Inject(3, 4, preVoteTo4)
	runUntil(t, s, "replica 4 votes in ballot 1", func() bool { return s.Replica(4).Ballot() == 1 }, 5*time.Second)
	require.NoError(t, s.Run(5*time.Millisecond))
	require.NotNil(t, held)
	restart4AndWriteWithout1(t, s)
	require.Equal(t, replica.Candidate, s.Replica(3).Role(), "replica 3 still stands")

	s.Drop(nil)
	s.Inject(1, 3, &wire.PreVote{Ballot: s.Replica(1).Ballot() + 1, Candidate: 1})
	require.NoError(t, s.Run(2*time.Millisecond))
	s.Inject(3, 1, held)
	require.NoError(t, s.Run(3*time.Second))
	readsTheWrite(t, s, true)
}
