package curpho_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	curpho "swiftpaxos/curp-ho"
	"swiftpaxos/sim"
	"swiftpaxos/wire"
)

// Directed scenarios for the fast-path conditions of PROTOCOL.md 5.8. Five
// replicas; replica 0 leads. A weak write of a session bound to replica 1
// reaches only the leader and replica 1, and the leader's Accepts are lost,
// so the write is kept by two replicas and committed nowhere. Then the
// leader, replica 1 and the writing client crash: the write can only be
// lost, which is allowed only if no completed operation relied on it
// (PROTOCOL.md 6.8).

const (
	writer = 1 // session 1 is bound to replica 1
	reader = 2 // session 2 is bound to replica 2
)

func scenario(t *testing.T, m curpho.Mutation) *sim.Script {
	t.Helper()
	s, err := sim.NewScript(sim.Options{
		Seed: 1, N: 5, Sessions: 3, Protocol: protocol(m),
		Faults: sim.Faults{MinDelay: 100 * time.Microsecond, MaxDelay: 300 * time.Microsecond},
	})
	require.NoError(t, err)
	require.NoError(t, s.Run(20*time.Millisecond))
	w := s.Endpoint(writer)
	s.Drop(func(from, to int, msg wire.Message) bool {
		switch msg.(type) {
		case *wire.CausalPropose:
			return from == w && to >= 2 && to < 5
		case *wire.Accept:
			return from == 0
		}
		return false
	})
	return s
}

// crashWriterSide crashes the leader, the writer's bound replica and the
// writer, heals the network and lets the survivors elect and recover.
func crashWriterSide(t *testing.T, s *sim.Script) {
	t.Helper()
	s.Crash(0)
	s.Crash(1)
	s.CrashSession(writer)
	s.Drop(nil)
	require.NoError(t, s.Run(5*time.Second))
}

// ReadDep (condition 3): another session's strong read of the key must not
// complete on the fast path with the write's value, because the witnesses
// do not hold the write. Without the check it does, and a later strong
// read returns the older value: the checker must report it.
func TestScenarioReadDep(t *testing.T) {
	for _, tc := range []struct {
		name    string
		m       curpho.Mutation
		violate bool
	}{{"correct", curpho.Mutation{}, false}, {"no ReadDep check", curpho.Mutation{NoReadDep: true}, true}} {
		t.Run(tc.name, func(t *testing.T) {
			s := scenario(t, tc.m)
			s.Put(writer, wire.Weak, 1)
			require.NoError(t, s.Run(20*time.Millisecond))
			ok, _ := s.Done(writer, 1)
			require.True(t, ok, "the bound replica acknowledges the weak write")
			s.Get(reader, wire.Strong, 1)
			require.NoError(t, s.Run(20*time.Millisecond))
			fast, v := s.Done(reader, 1)
			require.Equal(t, tc.violate, fast && v != "", "the read completes with the write's value only without the check")
			crashWriterSide(t, s)
			s.Get(reader, wire.Strong, 1)
			require.NoError(t, s.Run(2*time.Second))
			rep := s.Check()
			if tc.violate {
				require.NotEmpty(t, rep.Violations, "the lost write was observed")
				t.Logf("caught: %v", rep.Violations[0])
			} else {
				require.Empty(t, rep.Violations)
			}
		})
	}
}

// Causal deps (condition 2): the writer's strong write of another key must
// not complete on the fast path while the witnesses cannot vouch for the
// session's earlier weak write. Without the check it does; recovery cannot
// keep it without the weak write, and an acknowledged strong write is lost.
func TestScenarioCausalDeps(t *testing.T) {
	for _, tc := range []struct {
		name    string
		m       curpho.Mutation
		violate bool
	}{{"correct", curpho.Mutation{}, false}, {"no causal-deps check", curpho.Mutation{NoCausalDeps: true}, true}} {
		t.Run(tc.name, func(t *testing.T) {
			s := scenario(t, tc.m)
			s.Put(writer, wire.Weak, 1)
			require.NoError(t, s.Run(20*time.Millisecond))
			s.Put(writer, wire.Strong, 2)
			require.NoError(t, s.Run(20*time.Millisecond))
			done, _ := s.Done(writer, 2)
			require.Equal(t, tc.violate, done, "the strong write completes only without the check")
			crashWriterSide(t, s)
			s.Get(reader, wire.Strong, 2)
			require.NoError(t, s.Run(2*time.Second))
			rep := s.Check()
			if tc.violate {
				require.NotEmpty(t, rep.Violations, "an acknowledged strong write was lost")
				t.Logf("caught: %v", rep.Violations[0])
			} else {
				require.Empty(t, rep.Violations)
			}
		})
	}
}
