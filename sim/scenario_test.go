package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swiftpaxos/check"
	curpho "swiftpaxos/curp-ho"
	"swiftpaxos/curp-ho/horeplica"
	curpht "swiftpaxos/curp-ht"
	"swiftpaxos/curp-ht/htreplica"
	"swiftpaxos/sim"
	"swiftpaxos/wire"
)

// Directed failover scenarios that both protocols must pass. Each one builds
// an interleaving that random runs reach rarely, on the real cores and
// codec, and ends with the checker.

var protocols = []sim.Protocol{
	{Name: curpht.Name, Replica: htreplica.NewPolicy, Client: curpht.NewClientPolicy},
	{Name: curpho.Name, Replica: horeplica.NewPolicy, Client: curpho.NewClientPolicy},
}

func forEachProtocol(t *testing.T, f func(t *testing.T, p sim.Protocol)) {
	for _, p := range protocols {
		t.Run(p.Name, func(t *testing.T) { f(t, p) })
	}
}

func newScript(t *testing.T, p sim.Protocol, n, sessions int) *sim.Script {
	t.Helper()
	s, err := sim.NewScript(sim.Options{
		Seed: 1, N: n, Sessions: sessions, Protocol: p,
		Faults: sim.Faults{MinDelay: 100 * time.Microsecond, MaxDelay: 300 * time.Microsecond},
	})
	require.NoError(t, err)
	require.NoError(t, s.Run(20*time.Millisecond))
	return s
}

// runUntil runs the script until cond holds, failing the test after max.
func runUntil(t *testing.T, s *sim.Script, what string, cond func() bool, max time.Duration) {
	t.Helper()
	ok, err := s.RunUntil(cond, max)
	require.NoError(t, err)
	require.True(t, ok, "%s within %v:%s", what, max, s.Describe())
}

// onlyCandidate drops every PreVote and RequestVote except those of
// replica r, so that r wins the next election.
func onlyCandidate(r int) func(from, to int, m wire.Message) bool {
	return func(from, to int, m wire.Message) bool {
		switch m.(type) {
		case *wire.RequestVote, *wire.PreVote:
			return from != r
		}
		return false
	}
}

func anyOf(fs ...func(from, to int, m wire.Message) bool) func(from, to int, m wire.Message) bool {
	return func(from, to int, m wire.Message) bool {
		for _, f := range fs {
			if f(from, to, m) {
				return true
			}
		}
		return false
	}
}

// requireClean lets the cluster apply what it ordered, then requires the
// checker to pass.
func requireClean(t *testing.T, s *sim.Script) {
	t.Helper()
	require.NoError(t, s.Run(time.Second))
	rep := s.Check()
	require.True(t, rep.OK(), "checker: %v", rep)
}

// requireViolation heals the network, lets the cluster apply what it
// ordered, then requires the checker to report a violation of rule.
func requireViolation(t *testing.T, s *sim.Script, rule check.Rule) {
	t.Helper()
	s.Drop(nil)
	require.NoError(t, s.Run(time.Second))
	rep := s.Check()
	require.False(t, rep.OK())
	for _, v := range rep.Violations {
		if v.Rule == rule {
			return
		}
	}
	require.Fail(t, "no violation of "+string(rule), "violations: %v", rep.Violations)
}

// TestUndecidedIsAFailure: PROTOCOL.md 2.6 item 9. A run whose checker
// could not decide something fails like a run with a violation.
func TestUndecidedIsAFailure(t *testing.T) {
	require.Empty(t, sim.Failure(&sim.Result{}, nil))
	undecided := &sim.Result{Report: check.Report{Unknown: []check.Unknown{{Rule: check.RuleLinearizability, Message: "no verdict"}}}}
	require.Contains(t, sim.Failure(undecided, nil), "no verdict")
	violated := &sim.Result{Report: check.Report{Violations: []check.Violation{{Rule: check.RuleDurability, Message: "lost"}}}}
	require.Contains(t, sim.Failure(violated, nil), "lost")
}
