package replica

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// Helpers for the step tests (vote_test.go, truncation_test.go,
// commit_test.go, dedup_test.go, witness_test.go, parked_reads_test.go,
// conformance_test.go). They drive one core message by message, in the
// manner of etcd-raft's paper tests, on top of the recorder and testCore
// of recovery_test.go.

// newStepCore is newTestCoreWith with its options edited first (edit may
// be nil), for the tests that need a non-member or deferred execution.
func newStepCore(t *testing.T, id wire.ReplicaID, n int, edit func(*Options)) *testCore {
	t.Helper()
	tc := &testCore{out: &recorder{}}
	o := Options{ID: id, N: n, Policy: BasePolicy{}, Now: func() int64 { return tc.now }, StartAsMember: true,
		Rand: rand.New(rand.NewPCG(1, uint64(id))), Incarnation: 1}
	if edit != nil {
		edit(&o)
	}
	c, err := New(o)
	require.NoError(t, err)
	tc.Core = c
	tc.out.core = c
	return tc
}

// followerWith is replica id of n following leader 0 in ballot 0, holding
// ents at slots 1.. with the first commit of them committed and applied.
func followerWith(t *testing.T, id wire.ReplicaID, n int, commit kvs.Slot, ents ...wire.Entry) *testCore {
	t.Helper()
	c := newStepCore(t, id, n, nil)
	require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, Entries: ents, LeaderCommit: commit}))
	require.Equal(t, kvs.Slot(len(ents)), c.LastSlot())
	require.Equal(t, commit, c.AppliedIndex())
	c.out.discard()
	return c
}

// putIn is put (reads_test.go) written in ballot b.
func putIn(b wire.Ballot, client wire.ClientID, seq wire.Seq, k int, v string) wire.Entry {
	e := put(client, seq, k, v)
	e.Ballot = b
	return e
}

// noopIn is the no-op a leader of ballot b appends after its replay block.
func noopIn(b wire.Ballot) wire.Entry {
	return wire.Entry{Ballot: b, Command: kvs.Command{Op: kvs.OpNoop}, Level: wire.Strong}
}

func cmdID(client wire.ClientID, seq wire.Seq) wire.CmdID {
	return wire.CmdID{Client: client, Seq: seq}
}

func putCmd(k int, v string) kvs.Command {
	return kvs.Command{Op: kvs.OpPut, Key: key(k), Value: kvs.Value(v)}
}

// key is a test's key number i: fixed width, so that keys sort as their
// numbers do.
func key(i int) kvs.Key { return kvs.Key(fmt.Sprintf("k%03d", i)) }

func getCmd(k int) kvs.Command { return kvs.Command{Op: kvs.OpGet, Key: key(k)} }

// scanCmd reads key numbers k..k+count.
func scanCmd(k int, count int64) kvs.Command {
	return kvs.Command{Op: kvs.OpScan, Key: key(k), End: key(k + int(count) + 1), Limit: count + 1}
}

// msgsOf returns the messages of type T among ms, in order.
func msgsOf[T wire.Message](ms []wire.Message) []T {
	var out []T
	for _, m := range ms {
		if x, ok := m.(T); ok {
			out = append(out, x)
		}
	}
	return out
}

// takePeer returns and forgets the replica messages produced so far.
func (r *recorder) takePeer() []wire.Message {
	out := r.drain().toPeer
	r.toPeer = nil
	return out
}

// silence moves the clock past the longest election timeout: the leader
// this replica last heard counts as silent.
func (tc *testCore) silence() { tc.now += int64(tc.o.ElectionTimeoutMax) }

// preVote steps a PreVote from candidate and reports whether it was granted.
func (tc *testCore) preVote(t *testing.T, candidate wire.ReplicaID, b wire.Ballot, lastSlot kvs.Slot, lastBallot wire.Ballot) bool {
	t.Helper()
	require.NoError(t, tc.StepReplica(candidate, &wire.PreVote{Ballot: b, Candidate: candidate, LastSlot: lastSlot, LastBallot: lastBallot}))
	replies := msgsOf[*wire.PreVoteReply](tc.out.takePeer())
	require.Len(t, replies, 1)
	require.Equal(t, b, replies[0].PreBallot)
	return replies[0].Granted
}

// vote steps a RequestVote from candidate and reports whether it was
// granted.
func (tc *testCore) vote(t *testing.T, candidate wire.ReplicaID, b wire.Ballot, lastSlot kvs.Slot, lastBallot wire.Ballot) bool {
	t.Helper()
	require.NoError(t, tc.StepReplica(candidate, &wire.RequestVote{Ballot: b, Candidate: candidate, LastSlot: lastSlot, LastBallot: lastBallot}))
	replies := msgsOf[*wire.RequestVoteReply](tc.out.takePeer())
	require.Len(t, replies, 1)
	return replies[0].Granted
}

// win makes a follower whose leader fell silent the leader of the next
// ballot: its pre-vote and its vote are granted by voters, which must make
// a majority with it. The new leader is recovering (PROTOCOL.md 6.3).
func (tc *testCore) win(t *testing.T, voters ...wire.ReplicaID) {
	t.Helper()
	b := tc.Ballot() + 1
	tc.silence()
	tc.Tick()
	require.Len(t, msgsOf[*wire.PreVote](tc.out.takePeer()), tc.o.N-1, "a pre-vote to every peer")
	for _, v := range voters {
		require.NoError(t, tc.StepReplica(v, &wire.PreVoteReply{Ballot: tc.Ballot(), PreBallot: b, Replica: v, Granted: true,
			Lives: lifeOf(tc.o.N, v)}))
	}
	require.Equal(t, Candidate, tc.role)
	for _, v := range voters {
		require.NoError(t, tc.StepReplica(v, &wire.RequestVoteReply{Ballot: b, Replica: v, Granted: true, Lives: lifeOf(tc.o.N, v)}))
	}
	require.True(t, tc.IsLeader())
	require.Equal(t, b, tc.Ballot())
	tc.out.discard()
}

// finishRecovery answers a recovering leader's Collect from peers, with no
// witness records, so that it appends its no-op and starts its view.
func (tc *testCore) finishRecovery(t *testing.T, peers ...wire.ReplicaID) {
	t.Helper()
	for _, p := range peers {
		require.NoError(t, tc.StepReplica(p, &wire.CollectReply{Ballot: tc.Ballot(), Replica: p}))
	}
	require.Nil(t, tc.rec, "recovery finished")
}

// ack steps a successful AcceptAck of the core's ballot from p.
func (tc *testCore) ack(t *testing.T, p wire.ReplicaID, match kvs.Slot) {
	t.Helper()
	require.NoError(t, tc.StepReplica(p, &wire.AcceptAck{Ballot: tc.Ballot(), Replica: p, Success: true, MatchSlot: match}))
}

// logIDs lists the command ids of the log's slots first..last.
func logIDs(c *Core) []wire.CmdID {
	var out []wire.CmdID
	for s := c.entries.first(); s <= c.LastSlot(); s++ {
		out = append(out, c.entries.at(s).Cmd)
	}
	return out
}

// value is the store's value of k and the slot that wrote it.
func value(c *Core, k int) (string, kvs.Slot) {
	e := c.store.Get(key(k))
	return string(e.Value), e.Version
}

// countExecutions makes the core count, per command id, how often it
// executes a command (Options.Executed).
func countExecutions(c *Core) map[wire.CmdID]int {
	n := make(map[wire.CmdID]int)
	c.o.Executed = func(e *wire.Entry, _ kvs.Result) { n[e.Cmd]++ }
	return n
}

// lifeOf is the lives a granting reply of replica p carries when p has
// heard of no other replica: its own first life only.
func lifeOf(n int, p wire.ReplicaID) wire.Lives {
	ls := make(wire.Lives, n)
	ls[p] = 1
	return ls
}
