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
	ruleAndMutation(t, 3, "votes early", replica.Mutation{EarlyMember: true}, func(t *testing.T, s *sim.Script, broken bool) {
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
		readsTheWrite(t, s, !broken)
	})
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
	readsTheWriteAs(t, s, correct, 1)
}

// readsTheWriteAs is readsTheWrite with session 1's read its seq-th
// operation.
func readsTheWriteAs(t *testing.T, s *sim.Script, correct bool, seq wire.Seq) {
	t.Helper()
	s.Get(1, wire.Strong, 1)
	runUntil(t, s, "a strong read completes", func() bool { ok, _ := s.Done(1, seq); return ok }, 10*time.Second)
	rep := s.Check()
	if correct {
		require.True(t, rep.OK(), "%v", rep)
		_, wrote := s.Done(0, 1)
		_, read := s.Done(1, seq)
		require.Equal(t, wrote, read)
		return
	}
	caught := false
	for _, v := range rep.Violations {
		caught = caught || v.Rule == check.RuleDurability || v.Rule == check.RuleLogAgreement || v.Rule == check.RuleLinearizability
	}
	require.True(t, caught, "the lost write is caught: %v", rep)
}

// TestScenarioRejoinAfterAPreVoteMajority: docs/DECISIONS.md 50, third
// rule. Five replicas; replica 0 leads ballot 0. Cut off from the leader,
// replica 3 collects pre-votes for ballot 1 from replicas 1 and 4; replica
// 4 votes for it and crashes, while its RequestVote to replica 1 is held
// back. Replica 4 comes back empty and asks to join while replica 3 is
// cut off: replicas 0, 1 and 2, a majority of the others, answer as
// members of ballot 0, and replica 1 says it granted a pre-vote in ballot
// 1. A strong write is then issued, which replica 1 does not receive. The
// held-back RequestVote reaches replica 1 and the partition heals.
//
// With the rule, replica 4 waits for a leader of ballot 1 or later, so the
// write commits only once a later ballot elected a leader, which replica 1
// then no longer votes against: the write is read. Ignoring the pre-vote,
// replica 4 is made a member by replica 0 and the write commits with 0, 2
// and 4; replica 1's vote then tells replica 3 of replica 4's new life
// (docs/DECISIONS.md 51), so it no longer counts the lost vote and the
// write is still read. Ignoring both, replica 1's vote, with replica 4's
// lost one, elects replica 3 in ballot 1 without the write: the run must
// be caught.
func TestScenarioRejoinAfterAPreVoteMajority(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    replica.Mutation
	}{
		{"rule", replica.Mutation{}},
		{"ignores pre-votes", replica.Mutation{JoinIgnoresPreVotes: true}},
		{"ignores lives", replica.Mutation{ElectionIgnoresLives: true}},
		{"ignores both", replica.Mutation{JoinIgnoresPreVotes: true, ElectionIgnoresLives: true}},
	} {
		t.Run(tc.name, func(t *testing.T) { rejoinAfterAPreVoteMajority(t, scenarioCluster(t, 5, tc.m), tc.m) })
	}
}

// rejoinAfterAPreVoteMajority plays TestScenarioRejoinAfterAPreVoteMajority
// on a cluster built with m.
func rejoinAfterAPreVoteMajority(t *testing.T, s *sim.Script, m replica.Mutation) {
	require.Equal(t, 0, s.Leader())

	var held *wire.RequestVote
	holdVoteTo1 := func(from, to int, msg wire.Message) bool {
		v, ok := msg.(*wire.RequestVote)
		if ok && from == 3 && to == 1 {
			held = v
		}
		return ok && to == 1
	}
	drops(t, s, onlyCandidate(3), holdVoteTo1, between(0, 1, 3, 4))
	runUntil(t, s, "replica 4 votes in ballot 1", func() bool { return s.Replica(4).Ballot() == 1 }, 5*time.Second)
	require.NoError(t, s.Run(5*time.Millisecond))
	require.NotNil(t, held)
	require.Equal(t, wire.Ballot(0), s.Replica(1).Ballot(), "replica 1 only pre-voted")
	restart4AndWriteWithout1(t, s)
	require.Equal(t, m.JoinIgnoresPreVotes, s.Replica(4).Ballot() == 0, "replica 4 a member of ballot 0")

	require.Equal(t, replica.Candidate, s.Replica(3).Role(), "replica 3 still stands")
	require.Equal(t, wire.Ballot(1), s.Replica(3).Ballot())
	s.Drop(nil)
	s.Inject(3, 1, held)
	if m.JoinIgnoresPreVotes && m.ElectionIgnoresLives {
		caughtLosingTheWrite(t, s)
		return
	}
	require.NoError(t, s.Run(3*time.Second))
	readsTheWrite(t, s, true)
}

// caughtLosingTheWrite ends a scenario whose build lost session 0's strong
// write of key 1: a replica refuses the new leader's Accept that replaces
// a committed slot, or the checker sees the loss.
func caughtLosingTheWrite(t *testing.T, s *sim.Script) {
	t.Helper()
	err := s.Run(3 * time.Second)
	if err == nil {
		s.Get(1, wire.Strong, 1)
		_, err = s.RunUntil(func() bool { ok, _ := s.Done(1, 1); return ok }, 10*time.Second)
	}
	if err != nil {
		require.ErrorContains(t, err, "replaces committed slot")
		return
	}
	readsTheWrite(t, s, false)
}

// ruleAndMutation runs a scenario on a new cluster of n replicas twice:
// as built, which must keep the write, and with m, which breaks the rule
// under test and must be caught (broken true).
func ruleAndMutation(t *testing.T, n int, name string, m replica.Mutation, run func(t *testing.T, s *sim.Script, broken bool)) {
	ruleAndMutationOf(t, sim.Options{N: n}, name, m, run)
}

// ruleAndMutationOf is ruleAndMutation on clusters of o's replicas and
// durability.
func ruleAndMutationOf(t *testing.T, o sim.Options, name string, m replica.Mutation, run func(t *testing.T, s *sim.Script, broken bool)) {
	for _, tc := range []struct {
		name string
		m    replica.Mutation
	}{{"rule", replica.Mutation{}}, {name, m}} {
		t.Run(tc.name, func(t *testing.T) {
			o.Mutation = tc.m
			run(t, scenarioClusterOf(t, o), tc.m != (replica.Mutation{}))
		})
	}
}

// scenarioCluster is a new cluster of n replicas built with m, with two
// sessions and short message delays, once it has settled.
func scenarioCluster(t *testing.T, n int, m replica.Mutation) *sim.Script {
	t.Helper()
	return scenarioClusterOf(t, sim.Options{N: n, Mutation: m})
}

// scenarioClusterOf is scenarioCluster with o's replicas, mutation and
// durability.
func scenarioClusterOf(t *testing.T, o sim.Options) *sim.Script {
	t.Helper()
	s, err := sim.NewScript(sim.Options{Seed: 1, N: o.N, Sessions: 2, Protocol: protocols[0], Mutation: o.Mutation, Durable: o.Durable,
		Faults: sim.Faults{MinDelay: 100 * time.Microsecond, MaxDelay: 300 * time.Microsecond}})
	require.NoError(t, err)
	require.NoError(t, s.Run(20*time.Millisecond))
	return s
}

// restart4AndWriteWithout1 is the second half of the pre-vote scenarios
// (five replicas): replica 4 crashes, comes back empty (a durable one
// with its disk lost) and rejoins while
// replica 3 is cut off from everybody, then session 0's strong write of
// key 1 completes without replica 1 (no Accept with entries, no client
// message reaches it). Replica 0 is the only candidate meanwhile.
func restart4AndWriteWithout1(t *testing.T, s *sim.Script) {
	t.Helper()
	s.Crash(4)
	s.RestartWiped(4)
	sessionsTo := func(r int) func(from, to int, m wire.Message) bool {
		return func(from, to int, m wire.Message) bool { return from >= 5 && to == r || from == r && to >= 5 }
	}
	drops(t, s, between(3, 0, 1, 2, 4), sessionsTo(3), onlyCandidate(0))
	runUntil(t, s, "replica 4 rejoins", func() bool { return s.Replica(4).Member() }, 10*time.Second)
	drops(t, s, between(3, 0, 1, 2, 4), sessionsTo(3), onlyCandidate(0), acceptFrom(0, 1), sessionsTo(1))
	s.Put(0, wire.Strong, 1)
	runUntil(t, s, "the write completes", func() bool { ok, _ := s.Done(0, 1); return ok }, 10*time.Second)
}

// voteWatch watches replica 3's election in the scenarios of two restarts
// inside a pre-vote majority: it holds back every RequestVote to replica
// 1, keeping replica 3's last one (held), and, while hold4, replica 3's
// PreVote to replica 4 (preVoteTo4); it notes the grants of replicas 1 and
// 4.
type voteWatch struct {
	held               *wire.RequestVote
	preVoteTo4         *wire.PreVote
	granted1, granted4 bool
	hold4              bool
}

// drop is the watch as a drop filter.
func (w *voteWatch) drop(from, to int, m wire.Message) bool {
	switch x := m.(type) {
	case *wire.RequestVote:
		if from == 3 && to == 1 {
			w.held = x
		}
		return to == 1
	case *wire.PreVote:
		if from == 3 && to == 4 && w.hold4 {
			w.preVoteTo4 = x
			return true
		}
	case *wire.PreVoteReply:
		w.granted1 = w.granted1 || from == 1 && to == 3 && x.Granted
		w.granted4 = w.granted4 || from == 4 && to == 3 && x.Granted
	}
	return false
}

// grant4 lets replica 3's held-back PreVote reach replica 4 and waits for
// its grant: replica 4 then votes in ballot 1, and replica 3 stands in it,
// only in a broken build.
func (w *voteWatch) grant4(t *testing.T, s *sim.Script, broken bool) {
	t.Helper()
	require.NotNil(t, w.preVoteTo4)
	w.hold4 = false
	s.Inject(3, 4, w.preVoteTo4)
	runUntil(t, s, "replica 4 grants replica 3's pre-vote", func() bool { return w.granted4 }, 5*time.Second)
	require.NoError(t, s.Run(5*time.Millisecond))
	require.Equal(t, broken, s.Replica(4).Ballot() == 1, "replica 4 votes in ballot 1")
	require.Equal(t, broken, w.held != nil, "replica 3 stands in ballot 1")
}

// TestScenarioTwoRestartsInsideAPreVoteMajority: docs/DECISIONS.md 51.
// Five replicas; replica 0 leads ballot 0. Cut off from the leader,
// replica 3 pre-votes for ballot 1 and replica 1 grants it; its PreVote to
// replica 4 is held back. Replica 1 crashes, comes back empty and rejoins
// in ballot 0; the replicas that answer it hear of its new life. Replica 4
// then grants too. The scenario runs twice: replica 3 answers the Join, or
// it does not and replica 4, which does, tells it in its grant.
//
// With the rule, replica 3 no longer counts the grant of replica 1's
// earlier life, stands in no election, and the write that follows is
// read. Without it, replica 3 counts a majority with that grant and
// stands in ballot 1; replica 4 votes for it, crashes, and comes back
// empty while replica 3 is cut off, so that it rejoins in ballot 0 (no
// answer knows ballot 1) and a strong write commits with replicas 0, 2
// and 4. Replica 1 adopts ballot 1 from replica 3's refusal of a pre-vote
// and grants replica 3's delayed RequestVote: replica 3 leads ballot 1
// without the write, which must be caught.
func TestScenarioTwoRestartsInsideAPreVoteMajority(t *testing.T) {
	t.Run("3 hears the Join", func(t *testing.T) { twoRestartsInsideAPreVoteMajority(t, false) })
	t.Run("4 tells 3", func(t *testing.T) { twoRestartsInsideAPreVoteMajority(t, true) })
}

// twoRestartsInsideAPreVoteMajority plays
// TestScenarioTwoRestartsInsideAPreVoteMajority; with joinSkips3, replica
// 1's new life and replica 3 do not exchange Join and JoinReply.
func twoRestartsInsideAPreVoteMajority(t *testing.T, joinSkips3 bool) {
	ruleAndMutation(t, 5, "ignores lives", replica.Mutation{ElectionIgnoresLives: true}, func(t *testing.T, s *sim.Script, broken bool) {
		w := &voteWatch{hold4: true}
		watch := w.drop
		drops(t, s, watch, onlyCandidate(3), between(0, 1, 3, 4))
		runUntil(t, s, "replica 1 grants replica 3's pre-vote", func() bool { return w.granted1 }, 5*time.Second)
		require.NoError(t, s.Run(2*time.Millisecond))
		s.Crash(1)
		s.Restart(1)
		joins := func(int, int, wire.Message) bool { return false }
		if joinSkips3 {
			joins = joinsBetween(1, 3)
		}
		drops(t, s, watch, onlyCandidate(3), between(0, 3, 4), joins)
		runUntil(t, s, "replica 1 rejoins", func() bool { return s.Replica(1).Member() }, 5*time.Second)
		drops(t, s, watch, onlyCandidate(3), between(0, 3, 4))
		w.grant4(t, s, broken)
		restart4AndWriteWithout1(t, s)
		s.Drop(nil)
		if !broken {
			require.NoError(t, s.Run(3*time.Second))
			readsTheWrite(t, s, true)
			return
		}
		require.Equal(t, replica.Candidate, s.Replica(3).Role(), "replica 3 still stands")
		s.Inject(1, 3, &wire.PreVote{Ballot: s.Replica(1).Ballot() + 1, Candidate: 1})
		require.NoError(t, s.Run(2*time.Millisecond))
		s.Inject(3, 1, w.held)
		caughtLosingTheWrite(t, s)
	})
}

// joinsBetween drops the Joins and JoinReplies between replicas a and b.
func joinsBetween(a, b int) func(from, to int, m wire.Message) bool {
	return func(from, to int, m wire.Message) bool {
		switch m.(type) {
		case *wire.Join, *wire.JoinReply:
			return from == a && to == b || from == b && to == a
		}
		return false
	}
}
