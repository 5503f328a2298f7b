package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swiftpaxos/sim"
	"swiftpaxos/wire"
)

// TestScenarioStaleFreshAnswerMakesNoFounder: docs/DECISIONS.md 37. Every
// replica's first start is honest (all new, or all existing), and so is
// the restart (existing). Replicas 0 and 1 found the cluster; replica 2,
// started with them, was answered "fresh" by 0 before 0 founded, but that
// answer is held on a slow link. A strong write commits on 0 and 1 and
// completes; replica 2 lacks it. Replica 1 crashes and restarts empty,
// and replica 0 is cut off. The held answer then reaches replica 2, which
// founds on it (harmless: it acknowledged nothing), having heard replica
// 1's new incarnation fresh. Replica 1 must not become a member on replica
// 2's word: only replicas started -cluster new are founders that a member
// vouches for. Otherwise 1 and 2 elect a leader that lacks the write. The
// variants reach the founders list through decision 21's path, the
// majority path, and a late answer recorded after founding.
func TestScenarioStaleFreshAnswerMakesNoFounder(t *testing.T) {
	for _, tc := range []struct {
		name       string
		clusterNew bool
		lateAnswer bool
	}{{"all existing", false, false}, {"new, fresh path", true, false}, {"new, late answer", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := sim.NewScript(sim.Options{Seed: 1, N: 3, Sessions: 2, Protocol: protocols[0], StartExisting: !tc.clusterNew,
				Faults: sim.Faults{MinDelay: 100 * time.Microsecond, MaxDelay: 300 * time.Microsecond}})
			require.NoError(t, err)
			var held0, held1 *wire.JoinReply
			injecting, restarted, release1, healed := false, false, false, false
			s.Drop(func(from, to int, m wire.Message) bool {
				if injecting || healed {
					return false
				}
				if _, join := m.(*wire.Join); from == 0 && to == 2 && !join {
					// The slow link: 0's first fresh answer to 2 is held,
					// the rest but 0's own Joins is lost with the
					// connection.
					if r, ok := m.(*wire.JoinReply); ok && held0 == nil && !r.Member && r.LastSlot == 0 {
						cp := *r
						held0 = &cp
					}
					return true
				}
				if restarted && (from == 0 || to == 0) {
					return true
				}
				if r, ok := m.(*wire.JoinReply); ok && from == 1 && to == 2 {
					if !restarted {
						return true // 2 hears nothing from 1's first life
					}
					if tc.lateAnswer && !release1 {
						if held1 == nil && !r.Member {
							cp := *r
							held1 = &cp
						}
						return true
					}
				}
				return false
			})
			require.NoError(t, s.Run(150*time.Millisecond))
			require.NotNil(t, held0, "0's fresh answer to 2 is held")
			require.True(t, s.Replica(0).Member() && s.Replica(1).Member(), "0 and 1 founded: %s", s.Describe())
			require.False(t, s.Replica(2).Member(), "2 waits")

			s.Put(0, wire.Strong, 1)
			runUntil(t, s, "the write completes", func() bool { ok, _ := s.Done(0, 1); return ok }, time.Second)
			runUntil(t, s, "replica 1 applies the write", func() bool { _, ok := s.AppliedSlot(1, 0, 1); return ok }, time.Second)
			_, app2 := s.AppliedSlot(2, 0, 1)
			require.False(t, app2, "replica 2 lacks the write")

			s.Crash(1)
			restarted = true
			s.Restart(1) // honest: -cluster existing
			require.NoError(t, s.Run(150*time.Millisecond))
			require.False(t, s.Replica(1).Member())
			require.False(t, s.Replica(2).Member())

			inject := func(from int, m *wire.JoinReply) {
				injecting = true
				s.Inject(from, 2, m)
				injecting = false
				_, err := s.RunUntil(func() bool { return false }, 2*time.Millisecond)
				require.NoError(t, err)
			}
			inject(0, held0) // the old answer finally arrives
			require.True(t, s.Replica(2).Member(), "replica 2 founded on a stale answer")
			if tc.lateAnswer {
				require.NotNil(t, held1)
				inject(1, held1) // 1's answer to 2's last Join before founding
				release1 = true
			}
			require.NoError(t, s.Run(time.Second))
			if s.Replica(1).Member() {
				t.Logf("replica 1 is a member again with last slot %d (it restarted empty)", s.Replica(1).LastSlot())
				runUntil(t, s, "1 and 2 elect a leader", func() bool { l := s.Leader(); return l == 1 || l == 2 }, 5*time.Second)
				t.Logf("leader %d ballot %d", s.Leader(), s.Replica(s.Leader()).Ballot())
			} else {
				t.Logf("replica 1 waits as a learner while 0 is cut off")
			}
			s.Get(1, wire.Strong, 1)
			_, _ = s.RunUntil(func() bool { ok, _ := s.Done(1, 1); return ok }, 2*time.Second)
			restarted, healed = false, true
			runUntil(t, s, "a strong read completes", func() bool { ok, _ := s.Done(1, 1); return ok }, 10*time.Second)
			_, wrote := s.Done(0, 1)
			_, read := s.Done(1, 1)
			t.Logf("wrote %q, read %q", wrote, read)
			err = s.Run(3 * time.Second)
			t.Logf("after healing: %v", err)
			rep := s.Check()
			require.True(t, rep.OK(), "%v", rep)
		})
	}
}
