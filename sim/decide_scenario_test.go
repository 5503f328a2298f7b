package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	curpho "swiftpaxos/curp-ho"
	"swiftpaxos/curp-ho/horeplica"
	curpht "swiftpaxos/curp-ht"
	"swiftpaxos/curp-ht/htreplica"
	"swiftpaxos/sim"
	"swiftpaxos/wire"
)

// Witness records leave only through the leader's decision, committed in
// the log (PROTOCOL.md 3.4 rule 6).

// between drops every message between replica a and the replicas bs.
func between(a int, bs ...int) func(from, to int, m wire.Message) bool {
	return func(from, to int, m wire.Message) bool {
		for _, b := range bs {
			if from == a && to == b || from == b && to == a {
				return true
			}
		}
		return false
	}
}

// TestScenarioSilentClientRecordSurvivesPartition: a strong write completes
// on the fast path while the leader's Accepts are lost; then the leader and
// the writing client crash, and the two survivors cannot reach each other
// for 30 s, longer than any client-silence timeout. No witness may drop
// the write's record meanwhile: once the partition heals, recovery must
// replay it, and a strong read must return it.
func TestScenarioSilentClientRecordSurvivesPartition(t *testing.T) {
	forEachProtocol(t, func(t *testing.T, p sim.Protocol) {
		s := newScript(t, p, 3, 2)
		drops(t, s, acceptFrom(0))
		s.Put(0, wire.Strong, 4)
		runUntil(t, s, "the strong write completes", func() bool { ok, _ := s.Done(0, 1); return ok }, time.Second)
		require.Equal(t, "fast", s.Path(0, 1))
		s.Crash(0)
		s.CrashSession(0)
		drops(t, s, between(1, 2))
		require.NoError(t, s.Run(30*time.Second))
		s.Drop(nil)
		runUntil(t, s, "a leader is elected", func() bool { return s.Leader() > 0 }, 5*time.Second)
		s.Get(1, wire.Strong, 4)
		runUntil(t, s, "the strong read completes", func() bool { ok, _ := s.Done(1, 1); return ok }, 5*time.Second)
		_, wrote := s.Done(0, 1)
		_, read := s.Done(1, 1)
		require.Equal(t, wrote, read, "the acknowledged write survived")
		require.NoError(t, s.Run(time.Second))
		requireClean(t, s)
	})
}

// requireNoRecords checks that every live replica has dropped every record
// and that its witness indexes agree.
func requireNoRecords(t *testing.T, s *sim.Script, live ...int) {
	t.Helper()
	for _, r := range live {
		require.NoError(t, s.Replica(r).CheckWitness(), "replica %d", r)
		require.Zero(t, s.Replica(r).RecordCount(), "replica %d: %s", r, s.Describe())
	}
}

// crashWriter crashes session 0 once its requests are out, heals the
// network, waits d and requires every record to be decided.
func crashWriter(t *testing.T, s *sim.Script, d time.Duration) {
	t.Helper()
	require.NoError(t, s.Run(5*time.Millisecond))
	s.CrashSession(0)
	s.Drop(nil)
	require.NoError(t, s.Run(d))
	requireNoRecords(t, s, 0, 1, 2)
}

// TestScenarioBrokenChainIsRefused (CURP-HO): a client's weak write w1
// reaches no replica, then its weak write w2 (which depends on w1) and a
// strong write s (behind w2 at the barrier) reach every replica, and the
// client crashes. The leader can never order w2 or s; it must refuse them
// for good, through the log, so that the witnesses drop their records: s's
// accepted strong record would otherwise block the fast path of its key
// forever, and w2's would make strong reads of its key slow.
func TestScenarioBrokenChainIsRefused(t *testing.T) {
	p := sim.Protocol{Name: curpho.Name, Replica: horeplica.NewPolicy, Client: curpho.NewClientPolicy}
	s := newScript(t, p, 3, 2)
	w := s.Endpoint(0)
	s.Drop(func(from, to int, m wire.Message) bool {
		cp, ok := m.(*wire.CausalPropose)
		return ok && from == w && cp.Cmd.Seq == 1
	})
	s.Put(0, wire.Weak, 1)
	s.Put(0, wire.Weak, 2)
	s.Put(0, wire.Strong, 3)
	crashWriter(t, s, 30*time.Second)
	for seq := wire.Seq(2); seq <= 3; seq++ {
		_, committed, refused := s.Replica(s.Leader()).Outcome(wire.CmdID{Client: s.ClientID(0), Seq: seq})
		require.True(t, committed && refused, "operation %d is refused", seq)
		for r := range 3 {
			_, applied := s.AppliedSlot(r, 0, seq)
			require.False(t, applied, "replica %d executed refused operation %d", r, seq)
		}
	}
	s.Put(1, wire.Strong, 3)
	s.Get(1, wire.Strong, 2)
	runUntil(t, s, "both complete", func() bool {
		a, _ := s.Done(1, 1)
		b, _ := s.Done(1, 2)
		return a && b
	}, 5*time.Second)
	require.Equal(t, "fast", s.Path(1, 1), "no record blocks key 3")
	require.Equal(t, "fast", s.Path(1, 2), "no record makes the read of key 2 slow")
	_, v := s.Done(1, 2)
	require.Empty(t, v, "the refused write never executed")
	requireClean(t, s)
}

// TestScenarioCrashedClientStrongRecordIsDecided (CURP-HT): a crashed
// client's strong write reached the witnesses but not the leader. The
// witnesses flush it and the leader appends it (its client did issue it),
// so the records leave and the key takes the fast path again.
func TestScenarioCrashedClientStrongRecordIsDecided(t *testing.T) {
	p := sim.Protocol{Name: curpht.Name, Replica: htreplica.NewPolicy, Client: curpht.NewClientPolicy}
	s := newScript(t, p, 3, 2)
	w := s.Endpoint(0)
	s.Drop(func(from, to int, m wire.Message) bool {
		_, ok := m.(*wire.Propose)
		return ok && from == w && to == 0
	})
	s.Put(0, wire.Strong, 3)
	crashWriter(t, s, 5*time.Second)
	s.Put(1, wire.Strong, 3)
	runUntil(t, s, "the write completes", func() bool { ok, _ := s.Done(1, 1); return ok }, 5*time.Second)
	require.Equal(t, "fast", s.Path(1, 1))
	requireClean(t, s)
}

// TestScenarioSessionRebindsWhenBoundReplicaDies (CURP-HO): a session's
// weak writes reach only its bound replica (every other copy is lost, as
// on connections that keep breaking), and its strong write waits at the
// leader's barrier behind them. The bound replica crashes. The session must
// learn it (a dead process's connections break), re-bind to a live replica
// and re-send its write set there, so that the chain reaches the leader and
// the strong write completes: no session may stall while a majority is up.
func TestScenarioSessionRebindsWhenBoundReplicaDies(t *testing.T) {
	p := sim.Protocol{Name: curpho.Name, Replica: horeplica.NewPolicy, Client: curpho.NewClientPolicy}
	s := newScript(t, p, 5, 2)
	w := s.Endpoint(1) // bound to replica 1
	s.Drop(func(from, to int, m wire.Message) bool {
		cp, ok := m.(*wire.CausalPropose)
		return ok && from == w && wire.ReplicaID(to) != cp.Bound
	})
	s.Put(1, wire.Weak, 1)
	s.Put(1, wire.Strong, 2)
	runUntil(t, s, "the weak write is acknowledged", func() bool { ok, _ := s.Done(1, 1); return ok }, time.Second)
	s.Crash(1)
	runUntil(t, s, "the strong write completes", func() bool { ok, _ := s.Done(1, 2); return ok }, 10*time.Second)
	requireClean(t, s)
}

// TestScenarioRecoveryKeepsRefusedGap (CURP-HO): w1 reaches no replica, w2
// (after w1) reaches every replica, w3 (after w2) reaches replicas 1 and 2
// but not the leader, and the client crashes. The witnesses' flushes to the
// leader are lost, so the leader refuses w2 (its own record, aged and
// silent) but never sees w3. The leader then crashes: the new leader's
// recovery must not replay w3 over its refused predecessor, or w3 would
// become visible without its causal past (C3).
func TestScenarioRecoveryKeepsRefusedGap(t *testing.T) {
	p := sim.Protocol{Name: curpho.Name, Replica: horeplica.NewPolicy, Client: curpho.NewClientPolicy}
	s := newScript(t, p, 3, 2)
	c := s.Endpoint(1)
	s.Drop(func(from, to int, m wire.Message) bool {
		if _, ws := m.(*wire.WitnessSync); ws && to == 0 {
			return true
		}
		cp, ok := m.(*wire.CausalPropose)
		return ok && from == c && (cp.Cmd.Seq == 1 || cp.Cmd.Seq == 3 && to == 0)
	})
	s.Put(1, wire.Weak, 1)
	s.Put(1, wire.Weak, 2)
	require.NoError(t, s.Run(5*time.Millisecond))
	s.Put(1, wire.Weak, 3)
	require.NoError(t, s.Run(5*time.Millisecond))
	s.CrashSession(1)
	id := func(seq wire.Seq) wire.CmdID { return wire.CmdID{Client: s.ClientID(1), Seq: seq} }
	runUntil(t, s, "the leader commits its refusal of w2", func() bool {
		_, committed, refused := s.Replica(0).Outcome(id(2))
		return committed && refused
	}, 30*time.Second)
	slot, _, _ := s.Replica(0).Outcome(id(3))
	require.Zero(t, slot, "the leader never saw w3")
	s.Crash(0)
	s.Drop(onlyCandidate(1))
	runUntil(t, s, "replica 1 leads", func() bool { return s.Leader() == 1 }, 5*time.Second)
	s.Drop(nil)
	require.NoError(t, s.Run(25*time.Second))
	for r := 1; r <= 2; r++ {
		_, applied := s.AppliedSlot(r, 1, 3)
		require.False(t, applied, "replica %d executed w3 after its refused predecessor", r)
	}
	requireNoRecords(t, s, 1, 2)
	requireClean(t, s)
}

// TestScenarioLiveSessionIsNotRefused (CURP-HO): a live session's weak
// write w1 reaches only its bound replica 1, which cannot reach the leader
// for 25 s, longer than the refusal age; w2, after w1, reaches everyone.
// The session keeps talking to the leader (it re-sends its write set), so
// the leader waits for w1 instead of refusing w2: once replica 1 is back,
// w1 arrives and both writes, and a later one, are durable.
func TestScenarioLiveSessionIsNotRefused(t *testing.T) {
	p := sim.Protocol{Name: curpho.Name, Replica: horeplica.NewPolicy, Client: curpho.NewClientPolicy}
	s := newScript(t, p, 3, 2)
	c := s.Endpoint(1)
	w1Lost := func(from, to int, m wire.Message) bool {
		cp, ok := m.(*wire.CausalPropose)
		return ok && from == c && to != 1 && cp.Cmd.Seq == 1
	}
	drops(t, s, w1Lost, between(0, 1), onlyCandidate(0))
	s.Put(1, wire.Weak, 1)
	s.Put(1, wire.Weak, 2)
	require.NoError(t, s.Run(25*time.Second))
	s.Drop(nil)
	require.NoError(t, s.Run(3*time.Second))
	s.Put(1, wire.Weak, 3)
	runUntil(t, s, "w3 completes", func() bool { ok, _ := s.Done(1, 3); return ok }, 5*time.Second)
	require.NoError(t, s.Run(time.Second))
	for k := wire.Seq(1); k <= 3; k++ {
		s.Get(0, wire.Strong, int(k))
		runUntil(t, s, "the strong read completes", func() bool { ok, _ := s.Done(0, k); return ok }, 5*time.Second)
		_, wrote := s.Done(1, k)
		_, read := s.Done(0, k)
		require.Equal(t, wrote, read, "weak write %d is durable", k)
	}
	requireClean(t, s)
}
