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
// With five replicas the fifth starts late, after the write, with
// -cluster new, and cannot hear replica 0's first life: it never became a
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
					s, err := sim.NewScript(sim.Options{Seed: 1, N: tc.n, Sessions: 2, Protocol: p, Durable: true,
						Mutation: replica.Mutation{WitnessOksOnEmptyLog: broken},
						Faults:   sim.Faults{MinDelay: 100 * time.Microsecond, MaxDelay: 300 * time.Microsecond}})
					require.NoError(t, err)
					if tc.late >= 0 {
						s.Crash(tc.late)
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
						s.RestartClaimingNew(tc.late)
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
