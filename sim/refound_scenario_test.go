package sim_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swiftpaxos/replica"
	"swiftpaxos/sim"
	"swiftpaxos/wire"
)

// TestScenarioWipedFoundersLoseNothing: docs/DECISIONS.md 53. A new
// durable cluster; replica 0 founds it and leads ballot 0, and its Accepts
// with entries are lost, so no follower appends anything. A strong write
// is issued. Then f replicas, replica 0 among them, lose their disks. The
// members that kept theirs report ballot 0 and an empty log, so the wiped
// replicas found the cluster anew as members with no witness records; cut
// off from the other members, replica 0 leads ballot 1 with their votes.
// With five replicas the fifth starts late, after the write, on its first
// start, and cannot hear replica 0's first life: it never became a
// member, and it votes with the wiped ones.
//
// With the witnesses acknowledging strong requests on an empty log (the
// mutation), the write completes on the fast path with the leader's reply
// and the witnesses' records alone, and ballot 1 recovers none of them:
// the loss is caught. As built, a witness with no entry on disk refuses,
// the write completes only once ballot 1 orders it, and it is read.
func TestScenarioWipedFoundersLoseNothing(t *testing.T) {
	for _, tc := range []struct {
		n     int
		wiped []int
		late  int   // the replica that starts after the write, or -1
		cut   []int // the members with records that replica 0 cannot reach
	}{
		{n: 3, wiped: []int{0}, late: -1, cut: []int{2}},
		{n: 5, wiped: []int{0, 1}, late: 4, cut: []int{2, 3}},
	} {
		for _, broken := range []bool{false, true} {
			name := fmt.Sprintf("n=%d/%s", tc.n, map[bool]string{false: "rule", true: "oks on an empty log"}[broken])
			t.Run(name, func(t *testing.T) {
				forEachProtocol(t, func(t *testing.T, p sim.Protocol) {
					s := newDurableScript(t, tc.n, p, replica.Mutation{WitnessOksOnEmptyLog: broken})
					if tc.late >= 0 {
						require.NoError(t, s.HoldBack(tc.late))
					}
					runUntil(t, s, "replica 0 leads", func() bool { return s.Leader() == 0 }, time.Second)

					drops(t, s, acceptFrom(0))
					s.Put(0, wire.Strong, 1)
					if broken {
						runUntil(t, s, "the write completes", func() bool { ok, _ := s.Done(0, 1); return ok }, time.Second)
						require.Equal(t, "fast", s.Path(0, 1))
					} else {
						require.NoError(t, s.Run(time.Second))
						done, _ := s.Done(0, 1)
						require.False(t, done, "the write completed with no entry at any follower")
					}
					for r := 1; r < tc.n; r++ {
						require.Zero(t, s.Replica(r).LastSlot(), "replica %d appended", r)
					}

					if tc.late >= 0 {
						s.Restart(tc.late)
						drops(t, s, acceptFrom(0), between(0, tc.late))
						require.NoError(t, s.Run(200*time.Millisecond))
						require.False(t, s.Replica(tc.late).Member(), "the late replica is a member")
					}
					for _, r := range tc.wiped {
						s.Crash(r)
					}
					for _, r := range tc.wiped {
						s.RestartWiped(r)
					}
					drops(t, s, onlyCandidate(0))
					runUntil(t, s, "the wiped replicas found anew", func() bool {
						for r := range tc.n {
							if !s.Replica(r).Member() {
								return false
							}
						}
						return true
					}, 2*time.Second)
					var cut []func(from, to int, m wire.Message) bool
					for _, r := range tc.cut {
						for o := range tc.n {
							if !slices.Contains(tc.cut, o) {
								cut = append(cut, between(r, o))
							}
						}
					}
					drops(t, s, append(cut, onlyCandidate(0))...)
					runUntil(t, s, "replica 0 leads", func() bool { return s.Replica(0).IsLeader() }, 5*time.Second)
					require.Equal(t, wire.Ballot(1), s.Replica(0).Ballot())
					s.Drop(nil)
					if broken {
						caughtLosingTheWrite(t, s)
						return
					}
					runUntil(t, s, "the write completes", func() bool { ok, _ := s.Done(0, 1); return ok }, 5*time.Second)
					readsTheWrite(t, s, true)
				})
			})
		}
	}
}

// TestScenarioEndedLifeAcceptAfterRefound: docs/DECISIONS.md 53. Three
// durable replicas; replica 0 founds the cluster and leads ballot 0. Its
// Accepts with entries and session 0's Proposes to the witnesses are held
// back. Y (session 1) is appended at slot 1 and X (session 0) at slot 2;
// session 0 holds the leader's reply for X. Replica 0 loses its disk; the
// followers answer its Join with ballot 0 and empty logs, and it founds
// the cluster anew. Only then do the held Accept of Y (sent by replica 0's
// first life) and the Proposes of X arrive. Replica 1 is then elected with
// replica 0's vote while replica 2 is slow, and collects the records of
// itself and replica 0.
//
// Taking Y (the mutation), the followers hold an entry on disk and vouch
// for X, session 0 completes X on the fast path with the first life's
// reply, and one record of X is too few for replica 1 to replay it: the
// loss is caught. As built, the followers know replica 0's new life and
// ignore the Accept of the ended one, refuse X with their logs empty, and
// X completes only once ballot 1 orders it, and is read.
func TestScenarioEndedLifeAcceptAfterRefound(t *testing.T) {
	for _, broken := range []bool{false, true} {
		t.Run(map[bool]string{false: "rule", true: "accepts from ended lives"}[broken], func(t *testing.T) {
			forEachProtocol(t, func(t *testing.T, p sim.Protocol) { endedLifeAcceptAfterRefound(t, p, broken) })
		})
	}
}

func endedLifeAcceptAfterRefound(t *testing.T, p sim.Protocol, broken bool) {
	s := newDurableScript(t, 3, p, replica.Mutation{AcceptsFromEndedLives: broken})
	runUntil(t, s, "replica 0 leads", func() bool { return s.Leader() == 0 }, time.Second)
	require.NoError(t, s.Run(50*time.Millisecond))

	type held struct {
		from, to int
		m        wire.Message
	}
	var hold []held
	holding, noVotes := true, false
	s.Drop(func(from, to int, m wire.Message) bool {
		switch m := m.(type) {
		case *wire.Accept:
			if holding && from == 0 && len(m.Entries) > 0 {
				hold = append(hold, held{from, to, m})
				return true
			}
		case *wire.Propose:
			if holding && from == s.Endpoint(0) && to != 0 {
				hold = append(hold, held{from, to, m})
				return true
			}
		case *wire.PreVote, *wire.RequestVote:
			return noVotes
		}
		return false
	})
	s.Put(1, wire.Strong, 2) // Y
	require.NoError(t, s.Run(10*time.Millisecond))
	s.Put(0, wire.Strong, 1) // X
	require.NoError(t, s.Run(10*time.Millisecond))
	require.Equal(t, 2, int(s.Replica(0).LastSlot()))

	noVotes = true
	s.Crash(0)
	s.RestartWiped(0)
	runUntil(t, s, "replica 0 founds anew", func() bool { return s.Replica(0).Member() }, time.Second)

	holding = false
	var y *wire.Accept
	for _, h := range hold {
		if a, ok := h.m.(*wire.Accept); ok && a.PrevSlot == 0 && len(a.Entries) == 1 {
			y = a
			break
		}
	}
	require.NotNil(t, y, "an Accept of Y alone")
	s.Inject(0, 1, y)
	s.Inject(0, 2, y)
	require.NoError(t, s.Run(10*time.Millisecond))
	for r := 1; r < 3; r++ {
		require.Equal(t, broken, s.Replica(r).LastSlot() > 0, "replica %d took Y", r)
	}
	for _, h := range hold {
		if _, ok := h.m.(*wire.Propose); ok {
			s.Inject(h.from, h.to, h.m)
		}
	}
	require.NoError(t, s.Run(20*time.Millisecond))
	done, _ := s.Done(0, 1)
	require.Equal(t, broken, done, "X completed before ballot 1")

	drops(t, s, between(2, 0, 1), onlyCandidate(1))
	runUntil(t, s, "replica 1 leads", func() bool { return s.Replica(1).IsLeader() }, 5*time.Second)
	require.NoError(t, s.Run(100*time.Millisecond))
	s.Drop(nil)
	runUntil(t, s, "X completes", func() bool { ok, _ := s.Done(0, 1); return ok }, 10*time.Second)
	if broken {
		require.Equal(t, "fast", s.Path(0, 1))
	}
	readsTheWriteAs(t, s, !broken, 2)
}

// newDurableScript is a new durable cluster of n replicas of protocol p
// built with m, with two sessions and short message delays, not yet run:
// a scenario may hold a replica back before the first Run.
func newDurableScript(t *testing.T, n int, p sim.Protocol, m replica.Mutation) *sim.Script {
	t.Helper()
	s, err := sim.NewScript(sim.Options{Seed: 1, N: n, Sessions: 2, Protocol: p, Durable: true, Mutation: m,
		Faults: sim.Faults{MinDelay: 100 * time.Microsecond, MaxDelay: 300 * time.Microsecond}})
	require.NoError(t, err)
	return s
}
