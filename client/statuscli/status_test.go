package statuscli

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/wire"
)

// The MODE column says memory or durable; the FSYNCS and FSYNC columns: - - in memory, 0 - for a durable replica
// that has not synced yet, else the count and the mean.
func TestPrintFsyncColumns(t *testing.T) {
	answers := []Answer{
		{Alias: "replica0", Addr: "127.0.0.1:7070", Status: &wire.StatusReply{Leader: 0}},
		{Alias: "replica1", Addr: "127.0.0.2:7071", Status: &wire.StatusReply{Leader: 0, Durable: true}},
		{Alias: "replica2", Addr: "127.0.0.3:7072", Status: &wire.StatusReply{Leader: 0, Durable: true, Fsyncs: 12, FsyncMeanNs: 448_061}},
	}
	var out bytes.Buffer
	Print(&out, answers)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 4, out.String())
	header := strings.Fields(lines[0])
	cells := func(row int) (string, string) {
		f := strings.Fields(lines[row])
		require.Len(t, f, len(header), lines[row])
		i := slices.Index(header, "FSYNCS")
		return f[i], f[i+1]
	}
	mode := func(row int) string { return strings.Fields(lines[row])[slices.Index(header, "MODE")] }
	assert.Equal(t, []string{"memory", "durable", "durable"}, []string{mode(1), mode(2), mode(3)})
	n, mean := cells(1)
	assert.Equal(t, []string{"-", "-"}, []string{n, mean}, "in memory")
	n, mean = cells(2)
	assert.Equal(t, []string{"0", "-"}, []string{n, mean}, "durable, no fsync yet")
	n, mean = cells(3)
	assert.Equal(t, []string{"12", "448µs"}, []string{n, mean})
}

func TestMeanFsync(t *testing.T) {
	assert.Equal(t, "1.23ms", meanFsync(1234567*time.Nanosecond))
	assert.Equal(t, "448µs", meanFsync(448061*time.Nanosecond))
	assert.Equal(t, "850ns", meanFsync(850*time.Nanosecond))
}

// A negative timeout is refused before asking anyone, not taken for the
// configuration's replyTimeout, as zero is.
func TestQueryRefusesNegativeTimeout(t *testing.T) {
	_, err := Query(t.Context(), nil, -5*time.Second)
	assert.EqualError(t, err, "timeout -5s is negative")
}

// reply is a StatusReply of the given role (follower, candidate, leader)
// from a member, or from a learner.
func reply(role uint8, member bool) *wire.StatusReply {
	return &wire.StatusReply{Role: role, Member: member, Leader: wire.NoReplica}
}

// Without a leader among the replicas that answered, status says so, and
// what can be done: learners are named with the decision that explains
// them, and whether the members left can elect a leader.
func TestNoLeaderIsExplained(t *testing.T) {
	const follower, candidate, leader = 0, 1, 2

	// Two in-memory replicas restarted while the leader was among them.
	got := noLeader(ans(reply(follower, false), reply(follower, false), reply(follower, true)))
	require.Len(t, got, 3, "%q", got)
	assert.Equal(t, "no leader: none of the 3 replicas that answered leads", got[0])
	assert.Contains(t, got[1], "learners (replica0, replica1) started without state after the cluster was founded, or restarted without it")
	assert.Contains(t, got[1], "docs/DECISIONS.md 21")
	assert.Contains(t, got[2], "1 member answered, a majority needs 2, which the replicas down cannot make up: restart the whole cluster")

	got = noLeader(ans(reply(follower, true), nil, reply(follower, false)))
	require.Len(t, got, 3, "%q", got)
	assert.Contains(t, got[2], "1 member answered, a majority needs 2: bring back members that are down")

	got = noLeader(ans(reply(follower, true), reply(candidate, true), nil))
	require.Len(t, got, 2, "%q", got)
	assert.Equal(t, "no leader: none of the 2 replicas that answered leads", got[0])
	assert.Contains(t, got[1], "2 members answered, a majority: an election should end within electionTimeoutMs; ask again")

	assert.Nil(t, noLeader(ans(reply(follower, true), reply(leader, true), reply(follower, false))), "a leader")
	assert.Nil(t, noLeader(ans(nil, nil, nil)), "nobody answered: the majority line says so")
}

// founding is the StatusReply of a replica waiting to found the cluster,
// started with -cluster new or not, that hears fresh replicas.
func founding(isNew bool, fresh uint64) *wire.StatusReply {
	return &wire.StatusReply{Leader: wire.NoReplica, Joining: wire.JoinFounding, ClusterNew: isNew, Fresh: fresh}
}

// A cluster not founded yet is described as such, never as replicas that
// lost their state: with how many replicas are up, how many were started
// with -cluster new, and what founds it.
func TestNotFoundedIsExplained(t *testing.T) {
	assert.Equal(t, "founding", RoleName(founding(true, 1)))

	got := noLeader(ans(founding(true, 1), nil, nil))
	require.Len(t, got, 2, "%q", got)
	assert.Equal(t, "  waiting for a majority to found the cluster: 1 of 3 up (replica0), 1 started with -cluster new (replica0), a majority needs 2", got[1])

	got = noLeader(ans(founding(false, 2), founding(false, 2), nil))
	require.Len(t, got, 2, "%q", got)
	assert.Equal(t, "  waiting for every replica to found the cluster: 2 of 3 up (replica0, replica1); start the others (a replica that was never a member may be started with -cluster new: a majority of those founds it; a replica restarted without its state must not be: docs/DECISIONS.md 37)", got[1])
	for _, l := range got {
		assert.NotContains(t, l, "restart the whole cluster", "a first start is no restart")
		assert.NotContains(t, l, "learners")
	}

	// Two replicas up that do not hear each other.
	got = noLeader(ans(founding(true, 1), founding(true, 1), nil))
	require.Len(t, got, 3, "%q", got)
	assert.Contains(t, got[1], "2 of 3 up (replica0, replica1), 2 started with -cluster new")
	assert.Equal(t, "  the replicas hear from at most 1 of the 2 that answered here: check the network between them", got[2])

	// A replica started late into a founded cluster is a learner, and a
	// leader among the others means no explanation at all.
	assert.Nil(t, noLeader(ans(reply(2, true), reply(0, true), reply(0, false))))
}

// ans makes the answers of replica0, replica1, ...: a nil status is a
// replica that is down.
func ans(states ...*wire.StatusReply) []Answer {
	out := make([]Answer, len(states))
	for i, st := range states {
		out[i] = Answer{Alias: fmt.Sprintf("replica%d", i), Status: st}
		if st == nil {
			out[i].Err = errors.New("connection refused")
		}
	}
	return out
}

// The LEASE column: "-" without leases or off the leader, "none" for a
// leader without a lease, else how long it holds.
func TestLeaseText(t *testing.T) {
	const follower, leader = 0, 2
	st := func(role uint8, leases bool, ms uint64) *wire.StatusReply {
		return &wire.StatusReply{Role: role, Member: true, Leases: leases, LeaseMs: ms}
	}
	assert.Equal(t, "-", leaseText(st(leader, false, 0)), "leases off")
	assert.Equal(t, "-", leaseText(st(follower, true, 0)), "a follower")
	assert.Equal(t, "none", leaseText(st(leader, true, 0)))
	assert.Equal(t, "372ms", leaseText(st(leader, true, 372)))
}

// ROLE marks a leader that is quiet or still founding, and a line after
// the table says what that means; a leader that is neither is plain.
func TestPrintMarksQuietAndFoundingLeaders(t *testing.T) {
	const leader = 2
	st := func(quiet, founding bool) *wire.StatusReply {
		return &wire.StatusReply{Role: leader, Member: true, Leader: wire.NoReplica, Quiet: quiet, Founding: founding}
	}
	var out bytes.Buffer
	Print(&out, ans(st(false, false), st(true, false), st(false, true)))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 6, out.String())
	role := func(row int) string { return strings.Fields(lines[row])[1] } // no ADDRESS in ans
	assert.Equal(t, []string{"leader", "leader(quiet)", "leader(founding)"}, []string{role(1), role(2), role(3)})
	assert.True(t, strings.HasPrefix(lines[4], "replica1 leads but is quiet: "), lines[4])
	assert.True(t, strings.HasPrefix(lines[5], "replica2 leads a new cluster but appends nothing until a majority"), lines[5])
}
