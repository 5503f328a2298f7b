package curpht_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swiftpaxos/check"
	"swiftpaxos/replica"
	"swiftpaxos/sim"
	"swiftpaxos/wire"
)

// TestScenarioVoteRule: PROTOCOL.md 6.2. Five replicas. A weak write
// (acknowledged once committed, and never kept by witnesses in CURP-HT)
// reaches only replicas 1 and 2 besides the leader, which commits, applies
// and acknowledges it; nobody else learns that it committed. The leader
// crashes and replica 3, whose log lacks the write, stands for election.
// Under the up-to-date-log rule replicas 1 and 2 refuse their votes and the
// write survives; under the reference's rule (comparing commit indices
// only, all zero here) replica 3 wins and the acknowledged write is gone:
// the checker must report the new log as disagreeing with the slot the old
// leader applied.
func TestScenarioVoteRule(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    replica.Mutation
	}{{"up-to-date log", replica.Mutation{}}, {"commit index only", replica.Mutation{VoteByCommitIndex: true}}} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := sim.NewScript(sim.Options{
				Seed: 1, N: 5, Sessions: 2, Protocol: protocol, Mutation: tc.m,
				Faults: sim.Faults{MinDelay: 100 * time.Microsecond, MaxDelay: 300 * time.Microsecond},
			})
			require.NoError(t, err)
			require.NoError(t, s.Run(20*time.Millisecond))
			// The leader's entries reach only replicas 1 and 2, and no
			// commit index leaves it.
			s.Drop(func(from, to int, m wire.Message) bool {
				switch m := m.(type) {
				case *wire.Accept:
					return from == 0 && (len(m.Entries) == 0 || to >= 3)
				case *wire.Commit:
					return from == 0
				}
				return false
			})
			s.Put(0, wire.Weak, 4)
			ok, err := s.RunUntil(func() bool { ok, _ := s.Done(0, 1); return ok }, time.Second)
			require.NoError(t, err)
			require.True(t, ok, "the weak write is acknowledged")
			s.Crash(0)
			s.Drop(func(from, to int, m wire.Message) bool {
				switch m.(type) {
				case *wire.RequestVote, *wire.PreVote:
					return from != 3
				}
				return false
			})
			require.NoError(t, s.Run(3*time.Second))
			s.Drop(nil)
			require.NoError(t, s.Run(3*time.Second))
			s.Get(1, wire.Strong, 4)
			require.NoError(t, s.Run(2*time.Second))
			rep := s.Check()
			if tc.m == (replica.Mutation{}) {
				require.True(t, rep.OK(), "%v", rep)
				_, wrote := s.Done(0, 1)
				_, read := s.Done(1, 1)
				require.Equal(t, wrote, read)
				return
			}
			rules := map[check.Rule]bool{}
			for _, v := range rep.Violations {
				rules[v.Rule] = true
			}
			require.True(t, rules[check.RuleLogAgreement], "the new log replaces the slot the old leader applied: %v", rep)
		})
	}
}
