package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swiftpaxos/client"
	"swiftpaxos/sim"
	"swiftpaxos/wire"
)

// TestScenarioHostCrashAckDoesNotCount: docs/DECISIONS.md 58, the shape of
// seed 1312 of the leader-reads configuration (DECISIONS 47) with a host
// crash, which no session hears of. Three replicas; replica 0 leads.
// Session 0's strong write of key 1 reaches witnesses 1 and 2 but not the
// leader; both acknowledge. Replica 2's host crashes and comes back empty,
// and replica 0 makes the new life a member; the session has not noticed
// that its connection to it died, and nothing it sends reaches the new
// life. The session's re-send then reaches the leader, whose Accepts with
// entries are lost: the leader answers Ok, naming replica 2's new life.
//
// With the rule the session counts replica 1's acknowledgement alone and
// waits; the leader crashes, the session notices replica 2's restart, and
// the write commits through the next leader. Counting replica 2's earlier acknowledgement completes the
// write on the fast path with one record left, which the new leader's
// recovery does not replay: the run must be caught.
func TestScenarioHostCrashAckDoesNotCount(t *testing.T) {
	forEachProtocol(t, func(t *testing.T, p sim.Protocol) {
		for _, tc := range []struct {
			name string
			m    client.Mutation
		}{{"rule", client.Mutation{}}, {"acks of ended lives", client.Mutation{AcksOfEndedLives: true}}} {
			t.Run(tc.name, func(t *testing.T) { hostCrashAck(t, p, tc.m) })
		}
	})
}

// hostCrashAck plays TestScenarioHostCrashAckDoesNotCount with sessions
// built with m, broken if it counts acknowledgements of ended lives.
func hostCrashAck(t *testing.T, p sim.Protocol, m client.Mutation) {
	broken := m.AcksOfEndedLives
	s, err := sim.NewScript(sim.Options{Seed: 1, N: 3, Sessions: 2, Protocol: p, ClientMutation: m,
		Faults: sim.Faults{MinDelay: 100 * time.Microsecond, MaxDelay: 300 * time.Microsecond}})
	require.NoError(t, err)
	require.NoError(t, s.Run(20*time.Millisecond))
	require.Equal(t, 0, s.Leader())
	w := s.Endpoint(0)
	toLeader := func(from, to int, msg wire.Message) bool { return from == w && to == 0 }

	drops(t, s, toLeader)
	s.Put(0, wire.Strong, 1)
	require.NoError(t, s.Run(5*time.Millisecond))
	require.Equal(t, 1, s.Replica(2).RecordCount(), "witness 2 recorded the write")
	s.CrashHost(2)
	s.Restart(2)
	runUntil(t, s, "replica 2's new life is a member", func() bool { return s.Replica(2).Member() }, 5*time.Second)
	require.Zero(t, s.Replica(2).RecordCount(), "the new life has no record")

	drops(t, s, acceptFrom(0))
	done := func() bool { ok, _ := s.Done(0, 1); return ok }
	if broken {
		runUntil(t, s, "the write completes", done, 5*time.Second)
		require.Equal(t, "fast", s.Path(0, 1))
	} else {
		ok, err := s.RunUntil(done, 3*time.Second)
		require.NoError(t, err)
		require.False(t, ok, "no fast path on an acknowledgement of an ended life")
	}
	require.Equal(t, 1, s.Replica(0).RecordCount(), "the leader has the write")
	require.Zero(t, s.Replica(2).RecordCount(), "nothing reached the new life")

	s.Crash(0)
	s.Drop(nil)
	s.NoticeHost(2)
	runUntil(t, s, "a new leader", func() bool { return s.Leader() > 0 }, 5*time.Second)
	if !broken {
		runUntil(t, s, "the write completes through the new leader", done, 10*time.Second)
	}
	readsTheWrite(t, s, !broken)
}
