package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swiftpaxos/sim"
	"swiftpaxos/wire"
)

// TestScenarioClockBackFollowerFollowsItsLeader: docs/DECISIONS.md 53,
// why a follower ignores the Accepts of an ended life in ballot 0 only. In
// memory, with restarts whose clock is set back (Faults.ClockBack),
// replica 4 hears of a life of replica 1 whose number is above the one
// replica 1 holds later, when it becomes a member and then the leader of
// ballot 1 without hearing replica 4. Were a higher number taken for a
// later life in every ballot, replica 4 would ignore every Accept of the
// leader's live process, nothing would tell the leader to take a higher
// number, and with two replicas crashed (0 and 2: f = 2) no write would
// commit. As built replica 4 follows its leader and the write completes.
func TestScenarioClockBackFollowerFollowsItsLeader(t *testing.T) {
	forEachProtocol(t, func(t *testing.T, p sim.Protocol) {
		// Seed 3 numbers replica 1's lives so that replica 4 heard one
		// above the life that leads (clockBackScenario checks it).
		require.True(t, clockBackScenario(t, p, 3), "the seed no longer makes the case")
	})
}

// clockBackScenario reports false when the seed's numbers do not make the
// case (replica 1's last life not below what replica 4 heard).
func clockBackScenario(t *testing.T, p sim.Protocol, seed uint64) bool {
	s, err := sim.NewScript(sim.Options{Seed: seed, N: 5, Sessions: 5, Protocol: p,
		Faults: sim.Faults{ClockBack: true, MinDelay: 100 * time.Microsecond, MaxDelay: 300 * time.Microsecond}})
	require.NoError(t, err)
	runUntil(t, s, "replica 0 leads", func() bool { return s.Leader() == 0 }, time.Second)
	require.NoError(t, s.Run(50*time.Millisecond))

	var heardBy4, life uint64 // the highest life of 1 that 4 heard; 1's last Join
	var cut func(from, to int, m wire.Message) bool
	s.Drop(func(from, to int, m wire.Message) bool {
		if j, ok := m.(*wire.Join); ok && from == 1 {
			life = j.Incarnation
			if to == 4 && !cut(from, to, m) {
				heardBy4 = max(heardBy4, j.Incarnation)
			}
		}
		return cut(from, to, m)
	})
	// Two lives of replica 1 that reach replica 4 alone.
	cut = between(1, 0, 2, 3)
	for range 2 {
		s.Crash(1)
		s.Restart(1)
		require.NoError(t, s.Run(100*time.Millisecond))
		require.False(t, s.Replica(1).Member())
	}
	// A third that reaches everyone but replica 4, which is cut off.
	s.Crash(1)
	cut = between(4, 0, 1, 2, 3)
	s.Restart(1)
	runUntil(t, s, "replica 1 is a member", func() bool { return s.Replica(1).Member() }, 2*time.Second)
	require.NoError(t, s.Run(50*time.Millisecond))
	t.Logf("seed %d: replica 4 heard life %d of replica 1, which now has %d", seed, heardBy4, life)
	if life >= heardBy4 {
		return false
	}
	// Replica 1 leads ballot 1 while 4 is still cut off.
	s.Crash(0)
	co := onlyCandidate(1)
	cut = anyOf(between(4, 0, 1, 2, 3), co)
	runUntil(t, s, "replica 1 leads", func() bool { return s.Replica(1).IsLeader() }, 5*time.Second)
	cut = co
	s.Put(1, wire.Strong, 1)
	runUntil(t, s, "a write completes", func() bool { ok, _ := s.Done(1, 1); return ok }, 5*time.Second)
	require.NoError(t, s.Run(2*time.Second))
	t.Logf("after 2 s healed: leader last slot %d, replica 4 last slot %d, ballot 4 %d",
		s.Replica(1).LastSlot(), s.Replica(4).LastSlot(), s.Replica(4).Ballot())
	s.Crash(2) // second failure: 1, 3 and 4 remain
	s.Put(3, wire.Strong, 2)
	ok, err := s.RunUntil(func() bool { ok, _ := s.Done(3, 1); return ok }, 60*time.Second)
	require.NoError(t, err)
	t.Logf("write with 0 and 2 crashed completes: %v; replica 4 last slot %d, leader %d", ok, s.Replica(4).LastSlot(), s.Leader())
	require.True(t, ok, "a write with f replicas crashed never completes:%s", s.Describe())
	requireClean(t, s)
	return true
}
