package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swiftpaxos/sim"
	"swiftpaxos/wire"
)

// Weak reads across a view change (PROTOCOL.md 6.5). Three replicas; the
// writer is session 2, bound to replica 2. Its strong write completes on
// the fast path while the leader's Accepts are lost, so it exists only as
// witness records; replica 0 crashes and replica 1, elected, replays it in
// its replay block. A weak read of the written key, carrying the session's
// older read ballot, must not be served from state before the end of that
// block: the write is the session's own and completed (read-your-writes).

const writer = 2

func readScript(t *testing.T, p sim.Protocol) *sim.Script {
	t.Helper()
	s, err := sim.NewScript(sim.Options{
		Seed: 1, N: 3, Sessions: 3, Protocol: p,
		Faults: sim.Faults{MinDelay: 100 * time.Microsecond, MaxDelay: 300 * time.Microsecond},
		// Nothing re-sends the read elsewhere: only replica 2 answers it.
		RetryAfter: 20 * time.Second, ReadWait: 20 * time.Second,
	})
	require.NoError(t, err)
	require.NoError(t, s.Run(20*time.Millisecond))
	return s
}

func drops(t *testing.T, s *sim.Script, fs ...func(from, to int, m wire.Message) bool) {
	t.Helper()
	s.Drop(anyOf(fs...))
}

// acceptFrom drops replica r's Accepts to the given replicas (all if none)
// that carry entries; heartbeats still pass, so that nobody starts an
// election.
func acceptFrom(r int, to ...int) func(from, to int, m wire.Message) bool {
	return func(from, dst int, m wire.Message) bool {
		if a, ok := m.(*wire.Accept); !ok || from != r || len(a.Entries) == 0 {
			return false
		}
		if len(to) == 0 {
			return true
		}
		for _, x := range to {
			if x == dst {
				return true
			}
		}
		return false
	}
}

func newViewTo(to ...int) func(from, dst int, m wire.Message) bool {
	return func(from, dst int, m wire.Message) bool {
		if _, ok := m.(*wire.NewView); !ok {
			return false
		}
		for _, x := range to {
			if x == dst {
				return true
			}
		}
		return false
	}
}

// replica1TakesOver waits until replica 1 leads and replica 2 follows it,
// then has the writer learn the new ballot through a strong read (the
// leader answers at once), so that it drops its tentative fast-path cache
// entry: a weak read's answer then decides what it returns.
func replica1TakesOver(t *testing.T, s *sim.Script) {
	t.Helper()
	runUntil(t, s, "replica 1 leads and replica 2 follows", func() bool {
		return s.Leader() == 1 && s.Replica(2).Ballot() == s.Replica(1).Ballot()
	}, 5*time.Second)
	s.Get(writer, wire.Strong, 9)
	require.NoError(t, s.Run(20*time.Millisecond))
}

// fastWriteThenCrash runs the writer's strong write of key 5 to completion
// with the leader's Accepts lost, then crashes the leader.
func fastWriteThenCrash(t *testing.T, s *sim.Script, seq wire.Seq) {
	t.Helper()
	s.Put(writer, wire.Strong, 5)
	runUntil(t, s, "the strong write completes", func() bool { ok, _ := s.Done(writer, seq); return ok }, time.Second)
	require.Equal(t, "fast", s.Path(writer, seq))
	s.Crash(0)
}

// TestScenarioWeakReadWaitsForUnknownViewStart: the NewView of replica 1's
// view is lost on its way to replica 2 and to the writer, and replica 2
// has not received the replay block yet when the read arrives. Replica 2
// knows ballot 1 (it voted) but not its view start: it must hold the read
// until it learns the view start (here from the no-op in the log) and has
// applied the block, not answer from its old view start.
func TestScenarioWeakReadWaitsForUnknownViewStart(t *testing.T) {
	forEachProtocol(t, func(t *testing.T, p sim.Protocol) {
		s := readScript(t, p)
		w := s.Endpoint(writer)
		drops(t, s, acceptFrom(0))
		fastWriteThenCrash(t, s, 1)
		drops(t, s, onlyCandidate(1), newViewTo(2, w), acceptFrom(1, 2))
		replica1TakesOver(t, s)
		s.Get(writer, wire.Weak, 5)
		require.NoError(t, s.Run(50*time.Millisecond))
		drops(t, s, onlyCandidate(1), newViewTo(2, w))
		runUntil(t, s, "the weak read completes", func() bool { ok, _ := s.Done(writer, 3); return ok }, 5*time.Second)
		_, wrote := s.Done(writer, 1)
		_, read := s.Done(writer, 3)
		require.Equal(t, wrote, read, "the weak read returns the session's own completed write")
		require.NoError(t, s.Run(time.Second))
		requireClean(t, s)
	})
}

// TestScenarioParkedWeakReadReevaluated: the read reaches replica 2 while
// it is still in ballot 0 and behind the read's frontier, so it is parked
// with a minimum slot of ballot 0's numbering. Replica 2 then joins ballot
// 1 and receives the new log, whose replay block lies past that minimum: the
// parked read must be judged again against the view start, not released
// as soon as the old minimum is applied.
func TestScenarioParkedWeakReadReevaluated(t *testing.T) {
	forEachProtocol(t, func(t *testing.T, p sim.Protocol) {
		s := readScript(t, p)
		// Replica 2 hears nothing from the leader: it lags.
		drops(t, s, acceptFrom(0, 2))
		s.Put(0, wire.Strong, 1)
		runUntil(t, s, "a first write completes", func() bool { ok, _ := s.Done(0, 1); return ok }, time.Second)
		require.NoError(t, s.Run(20*time.Millisecond))
		// The writer reads it strongly: its frontier passes replica 2.
		s.Get(writer, wire.Strong, 1)
		runUntil(t, s, "the strong read completes", func() bool { ok, _ := s.Done(writer, 1); return ok }, time.Second)
		drops(t, s, acceptFrom(0))
		fastWriteThenCrash(t, s, 2)
		s.Get(writer, wire.Weak, 5)
		require.NoError(t, s.Run(20*time.Millisecond))
		require.Zero(t, s.Replica(2).AppliedIndex(), "replica 2 parks the read")
		// The writer misses the NewView, which would make it send the read
		// elsewhere: replica 2 alone answers it. Replica 2 gets no entries
		// until the writer has learned the new ballot.
		drops(t, s, onlyCandidate(1), newViewTo(s.Endpoint(writer)), acceptFrom(1, 2))
		replica1TakesOver(t, s)
		drops(t, s, onlyCandidate(1), newViewTo(s.Endpoint(writer)))
		runUntil(t, s, "the weak read completes", func() bool { ok, _ := s.Done(writer, 3); return ok }, 5*time.Second)
		_, wrote := s.Done(writer, 2)
		_, read := s.Done(writer, 3)
		require.Equal(t, wrote, read, "the weak read returns the session's own completed write")
		require.NoError(t, s.Run(time.Second))
		requireClean(t, s)
	})
}

// TestScenarioOlderBallotReadAnswerRetried: the writer's strong write
// completes on the fast path while its bound replica 0, the leader, loses
// its Accepts; replica 0 is then cut off from the other replicas (not from
// clients) and still believes it leads ballot 0, while replica 1 is
// elected and replays the write. The writer learns the new ballot from a
// strong read (its NewView is lost) and drops its tentative entry; its weak
// read goes to replica 0, which answers from ballot 0 state without the
// write. An answer from an older ballot than the session knows must be
// asked again elsewhere, not returned (read-your-writes).
func TestScenarioOlderBallotReadAnswerRetried(t *testing.T) {
	forEachProtocol(t, func(t *testing.T, p sim.Protocol) {
		s, err := sim.NewScript(sim.Options{
			Seed: 1, N: 5, Sessions: 5, Protocol: p,
			Faults:     sim.Faults{MinDelay: 100 * time.Microsecond, MaxDelay: 300 * time.Microsecond},
			RetryAfter: 20 * time.Second, ReadWait: 20 * time.Second,
		})
		require.NoError(t, err)
		require.NoError(t, s.Run(20*time.Millisecond))
		const writer = 0
		cut0 := func(from, to int, m wire.Message) bool {
			return from == 0 && to < 5 || to == 0 && from < 5
		}
		drops(t, s, acceptFrom(0))
		s.Put(writer, wire.Strong, 5)
		runUntil(t, s, "the strong write completes", func() bool { ok, _ := s.Done(writer, 1); return ok }, time.Second)
		require.Equal(t, "fast", s.Path(writer, 1))
		drops(t, s, cut0, onlyCandidate(1), newViewTo(s.Endpoint(writer)))
		runUntil(t, s, "replica 1 leads", func() bool { return s.Replica(1).IsLeader() }, 5*time.Second)
		require.NoError(t, s.Run(50*time.Millisecond))
		s.Get(writer, wire.Strong, 9)
		require.NoError(t, s.Run(20*time.Millisecond))
		s.Get(writer, wire.Weak, 5)
		runUntil(t, s, "the weak read completes", func() bool { ok, _ := s.Done(writer, 3); return ok }, 5*time.Second)
		_, wrote := s.Done(writer, 1)
		_, read := s.Done(writer, 3)
		require.Equal(t, wrote, read, "the weak read returns the session's own completed write")
		s.Drop(nil)
		requireClean(t, s)
	})
}

// TestScenarioTentativeFrontierDoesNotStall: while the leader's Accepts
// are lost, another session's strong reads and the writer's fast-path
// strong write take slots the new leader will never have; the writer then
// reads its write back weakly, from its cache, at that tentative slot. The
// leader crashes and the new log is shorter. In a quiet cluster a later
// weak read must still complete: a tentative slot must not stay in the
// session's read frontier once the session knows a new ballot.
func TestScenarioTentativeFrontierDoesNotStall(t *testing.T) {
	forEachProtocol(t, func(t *testing.T, p sim.Protocol) {
		s := newScript(t, p, 3, 3)
		drops(t, s, acceptFrom(0))
		for i := range 5 {
			seq := wire.Seq(i + 1)
			s.Get(1, wire.Strong, 10+i)
			runUntil(t, s, "a strong read completes", func() bool { ok, _ := s.Done(1, seq); return ok }, time.Second)
		}
		s.Put(2, wire.Strong, 5)
		runUntil(t, s, "the write completes", func() bool { ok, _ := s.Done(2, 1); return ok }, time.Second)
		require.Equal(t, "fast", s.Path(2, 1))
		s.Get(2, wire.Weak, 5)
		runUntil(t, s, "the weak read completes", func() bool { ok, _ := s.Done(2, 2); return ok }, time.Second)
		s.Crash(0)
		s.Drop(onlyCandidate(1))
		runUntil(t, s, "replica 1 leads", func() bool { return s.Leader() == 1 }, 5*time.Second)
		require.NoError(t, s.Run(time.Second))
		s.Drop(nil)
		s.Get(2, wire.Weak, 6)
		runUntil(t, s, "a weak read after the failover completes", func() bool { ok, _ := s.Done(2, 3); return ok }, 20*time.Second)
		requireClean(t, s)
	})
}
