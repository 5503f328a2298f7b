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

// Lease reads (docs/DECISIONS.md 55). Three replicas with leases; session
// 0 reads at the leader alone, session 1 writes.

// leaseScript starts the three replicas, seed 1 with every clock at the
// simulation's rate unless the options say otherwise.
func leaseScript(t *testing.T, p sim.Protocol, m replica.Mutation, opts ...func(*sim.Options)) *sim.Script {
	t.Helper()
	o := sim.Options{
		Seed: 1, N: 3, Sessions: 2, Protocol: p, LeaderReads: 50, LeaseReads: true, Mutation: m,
		Faults: sim.Faults{MinDelay: 100 * time.Microsecond, MaxDelay: 300 * time.Microsecond},
	}
	for _, f := range opts {
		f(&o)
	}
	s, err := sim.NewScript(o)
	require.NoError(t, err)
	// Past every replica's start-up promise, with the leader's lease
	// renewed by its heartbeats since.
	require.NoError(t, s.Run(700*time.Millisecond))
	return s
}

func done(s *sim.Script, session int, seq wire.Seq) func() bool {
	return func() bool { ok, _ := s.Done(session, seq); return ok }
}

// acksTo0 drops the followers' AcceptAcks to replica 0: no leadership
// round of it is confirmed any more.
func acksTo0(from, to int, m wire.Message) bool {
	_, ack := m.(*wire.AcceptAck)
	return ack && to == 0
}

// TestScenarioLeaseAnswersWithoutARound: while its lease holds, the leader
// answers a leader read although no follower confirms a round begun after
// the read arrived; without leases the same read waits for one.
func TestScenarioLeaseAnswersWithoutARound(t *testing.T) {
	forEachProtocol(t, func(t *testing.T, p sim.Protocol) {
		s := leaseScript(t, p, replica.Mutation{})
		s.Put(readWriter, wire.Strong, 5)
		runUntil(t, s, "the write completes", done(s, readWriter, 1), time.Second)
		s.Drop(acksTo0)
		s.Get(leaderReader, wire.Strong, 5)
		runUntil(t, s, "the read completes under the lease", done(s, leaderReader, 1), 50*time.Millisecond)
		_, written := s.Done(readWriter, 1)
		_, read := s.Done(leaderReader, 1)
		require.Equal(t, written, read)
		s.Drop(nil)
		requireClean(t, s)

		// The same without leases: the read is held.
		s, err := sim.NewScript(sim.Options{
			Seed: 1, N: 3, Sessions: 2, Protocol: p, LeaderReads: 50,
			Faults: sim.Faults{MinDelay: 100 * time.Microsecond, MaxDelay: 300 * time.Microsecond},
		})
		require.NoError(t, err)
		require.NoError(t, s.Run(700*time.Millisecond))
		s.Put(readWriter, wire.Strong, 5)
		runUntil(t, s, "the write completes", done(s, readWriter, 1), time.Second)
		s.Drop(acksTo0)
		s.Get(leaderReader, wire.Strong, 5)
		require.NoError(t, s.Run(50*time.Millisecond))
		ok, _ := s.Done(leaderReader, 1)
		require.False(t, ok, "without a lease the read waits for its round")
	})
}

// deposedLeaseRead: replica 0 leads with a fresh lease and is cut off from
// the other replicas, not from its clients; the followers see their
// connections from it break (PeerDown, as a server reports it), which
// would let them elect replica 1 within three to seven heartbeat periods,
// sooner than the lease ends. The writer's strong write of the key
// completes through replica 1, which replica 0 never hears of; the reader
// then reads the key at replica 0. It returns the time from the cut to
// the election, on replica 0's clock, with the values written and read.
func deposedLeaseRead(t *testing.T, p sim.Protocol, m replica.Mutation, opts ...func(*sim.Options)) (s *sim.Script, elected time.Duration, written, read string) {
	t.Helper()
	s = leaseScript(t, p, m, opts...)
	s.Put(readWriter, wire.Strong, 5)
	runUntil(t, s, "the first write completes", done(s, readWriter, 1), time.Second)
	s.Get(leaderReader, wire.Strong, 5)
	runUntil(t, s, "the first read completes", done(s, leaderReader, 1), time.Second)
	// The cut comes right after a heartbeat's round renewed the lease:
	// it then lasts at least 374 ms after the cut.
	r0 := s.Replica(0)
	renewed := r0.LeaseEnds()
	runUntil(t, s, "the lease is renewed", func() bool { return r0.LeaseEnds() > renewed }, time.Second)
	require.Greater(t, r0.LeaseEnds()-r0.Now(), int64(374*time.Millisecond))

	cut0 := func(from, to int, _ wire.Message) bool {
		return from == 0 && to < 3 && to != 0 || to == 0 && from < 3 && from != 0
	}
	toZero := func(from, to int, _ wire.Message) bool { return from == s.Endpoint(readWriter) && to == 0 }
	drops(t, s, cut0, toZero, onlyCandidate(1), newViewTo(s.Endpoint(leaderReader)))
	cut := s.Replica(0).Now()
	s.Replica(1).PeerDown(0)
	s.Replica(2).PeerDown(0)
	runUntil(t, s, "replica 1 leads and replica 2 follows", func() bool {
		return s.Leader() == 1 && s.Replica(2).Ballot() == s.Replica(1).Ballot()
	}, 5*time.Second)
	elected = time.Duration(s.Replica(0).Now() - cut)
	require.True(t, s.Replica(0).IsLeader(), "replica 0 still believes it leads")
	s.Put(readWriter, wire.Strong, 5)
	runUntil(t, s, "the second write completes", done(s, readWriter, 2), time.Second)
	require.NoError(t, s.Run(time.Millisecond))
	s.Get(leaderReader, wire.Strong, 5)
	runUntil(t, s, "the second read completes", done(s, leaderReader, 2), 5*time.Second)
	_, written = s.Done(readWriter, 2)
	_, read = s.Done(leaderReader, 2)
	return s, elected, written, read
}

// TestScenarioLeaseOutlivesNoPromise: the followers keep their promise, so
// replica 1 is elected only once replica 0's lease has ended, and the
// read, held for a round nobody confirms, completes through replica 1
// with the new value.
func TestScenarioLeaseOutlivesNoPromise(t *testing.T) {
	forEachProtocol(t, func(t *testing.T, p sim.Protocol) {
		s, elected, written, read := deposedLeaseRead(t, p, replica.Mutation{})
		// The followers promised at their last acknowledgement, a round
		// trip before the cut.
		require.GreaterOrEqual(t, elected, 499*time.Millisecond, "elected within the promise")
		require.Equal(t, written, read, "the read returns the write that completed before it began")
		s.Drop(nil)
		requireClean(t, s)
	})
}

// TestScenarioLeaseWithoutPromiseIsCaught: followers that grant votes
// within their promise (Mutation.LeaseWithoutPromise) elect replica 1
// while replica 0's lease holds, and replica 0 answers the read from its
// stale state; the checker says so.
func TestScenarioLeaseWithoutPromiseIsCaught(t *testing.T) {
	forEachProtocol(t, func(t *testing.T, p sim.Protocol) {
		s, elected, written, read := deposedLeaseRead(t, p, replica.Mutation{LeaseWithoutPromise: true})
		require.Less(t, elected, 374*time.Millisecond, "elected while the lease held")
		require.NotEqual(t, written, read, "the deposed leader answers from its stale state")
		requireViolation(t, s, check.RuleLinearizability)
	})
}

// clocks runs the replicas' clocks at the given rates (per mille of the
// simulation's), under the given seed.
func clocks(seed uint64, rates ...int64) func(*sim.Options) {
	return func(o *sim.Options) { o.Seed, o.ClockRates = seed, rates }
}

// TestScenarioLeaseAtTheClockMargin: the lease lasts three quarters of
// the promise, so it holds while no clock runs a third faster than
// another's, and no further. The deposed leader's clock is slow and its
// followers' fast, so its lease outlasts their promise by the most. Just
// inside the margin (858 and 1143 per mille, 1.332 apart) the lease ends
// before replica 1 can be elected, and the read returns the new write;
// no seed of 1 to 1000 does otherwise. Just beyond it (860 and 1160,
// 1.349 apart), seed 53 draws the candidacy held back by the promise
// early enough (standAfterPromise's zero to four heartbeat periods) that
// replica 1 leads, and the new write completes, while replica 0's lease
// still holds: it answers from its stale state, and the checker says so.
func TestScenarioLeaseAtTheClockMargin(t *testing.T) {
	forEachProtocol(t, func(t *testing.T, p sim.Protocol) {
		s, _, written, read := deposedLeaseRead(t, p, replica.Mutation{}, clocks(53, 858, 1143, 1143))
		require.Equal(t, written, read, "inside the margin")
		s.Drop(nil)
		requireClean(t, s)

		s, _, written, read = deposedLeaseRead(t, p, replica.Mutation{}, clocks(53, 860, 1160, 1160))
		require.NotEqual(t, written, read, "beyond the margin the deposed leader answers from its stale state")
		requireViolation(t, s, check.RuleLinearizability)
	})
}

// Clock settings that the simulation refuses: leases with a skew beyond
// their margin (ClockRates alone may go beyond it), rates not one per
// replica or out of range, and rates with a skew.
func TestClockOptionsRefused(t *testing.T) {
	for _, c := range []struct {
		f    func(*sim.Options)
		want string
	}{
		{func(o *sim.Options) { o.ClockSkew = 143 }, "clock skew 143 per mille: leases hold up to 142"},
		{func(o *sim.Options) { o.ClockRates = []int64{1000, 1000} }, "clock rates [1000 1000]: one per replica"},
		{func(o *sim.Options) { o.ClockRates = []int64{1000, 0, 1000} }, "clock rates [1000 0 1000]: one per replica, each 1 to 2000"},
		{func(o *sim.Options) { o.ClockRates = []int64{1000, 2001, 1000} }, "clock rates [1000 2001 1000]: one per replica, each 1 to 2000"},
		{func(o *sim.Options) { o.ClockRates, o.ClockSkew = []int64{1000, 1000, 1000}, 10 }, "clock rates and clock skew: one or the other"},
	} {
		o := sim.Options{Seed: 1, N: 3, Sessions: 2, Protocol: protocols[0], LeaseReads: true}
		c.f(&o)
		_, err := sim.NewScript(o)
		require.ErrorContains(t, err, c.want)
	}
	_, err := sim.NewScript(sim.Options{Seed: 1, N: 3, Sessions: 2, Protocol: protocols[0], LeaseReads: true, ClockRates: []int64{700, 1300, 1300}})
	require.NoError(t, err, "given rates may go beyond the margin")
}
