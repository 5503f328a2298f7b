package client_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/client"
	curpho "swiftpaxos/curp-ho"
	curpht "swiftpaxos/curp-ht"
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// recorder is a session core with a fake network and clock.
type recorder struct {
	core *client.Core
	now  int64
	sent []sentMsg
	done []client.Result
}

type sentMsg struct {
	to wire.ReplicaID
	m  wire.Message
}

func newRecorder(t *testing.T) *recorder { return newRecorderWith(t, curpht.NewClientPolicy()) }

func newRecorderWith(t *testing.T, policy client.Policy) *recorder {
	t.Helper()
	r := &recorder{}
	core, err := client.NewCore(client.Options{
		ID: 5, N: 3, Leader: 0, Nearest: 2, Policy: policy,
		Now:        func() int64 { return r.now },
		RetryAfter: 100,
	})
	require.NoError(t, err)
	r.core = core
	return r
}

// drain moves what the core produced into the recorder.
func (r *recorder) drain() {
	rd := r.core.Ready()
	for _, e := range rd.Messages {
		r.sent = append(r.sent, sentMsg{e.To, e.Msg})
	}
	r.done = append(r.done, rd.Completed...)
}

// completed returns the operations completed so far.
func (r *recorder) completed() []client.Result {
	r.drain()
	return r.done
}

// lastRead returns the last WeakRead sent and where it went.
func (r *recorder) lastRead(t *testing.T) (wire.ReplicaID, *wire.WeakRead) {
	t.Helper()
	r.drain()
	for i := len(r.sent) - 1; i >= 0; i-- {
		if m, ok := r.sent[i].m.(*wire.WeakRead); ok {
			return r.sent[i].to, m
		}
	}
	t.Fatal("no weak read sent")
	return 0, nil
}

// TestStaleWeakReadReplyIgnored: a weak read goes to replica 2, times out,
// and after two "retry" answers reaches replica 2 again. The late answer to
// the first attempt, computed for the old frontier and ballot, must not be
// taken for the current one (PROTOCOL.md 6.5, third consequence); the
// answer to the current attempt completes the read.
func TestStaleWeakReadReplyIgnored(t *testing.T) {
	r := newRecorder(t)
	seq := r.core.Invoke(client.Op{Level: wire.Weak, Command: kvs.Command{Op: kvs.OpGet, Key: "1"}})
	to, first := r.lastRead(t)
	require.Equal(t, wire.ReplicaID(2), to)
	r.now += 100
	r.core.Tick()
	for range 2 {
		to, m := r.lastRead(t)
		require.NotEqual(t, wire.ReplicaID(2), to)
		r.core.Step(to, &wire.WeakReadReply{Replica: to, Cmd: m.Cmd, Attempt: m.Attempt, Retry: true})
	}
	to, current := r.lastRead(t)
	require.Equal(t, wire.ReplicaID(2), to, "the read is back at replica 2")
	require.NotEqual(t, first.Attempt, current.Attempt)

	r.core.Step(2, &wire.WeakReadReply{Replica: 2, Cmd: first.Cmd, Attempt: first.Attempt, Result: kvs.Result{Value: kvs.Value("old"), Found: true, Version: 1}})
	require.Empty(t, r.completed(), "the answer to the first attempt is stale")
	r.core.Step(2, &wire.WeakReadReply{Replica: 2, Cmd: current.Cmd, Attempt: current.Attempt, Result: kvs.Result{Value: kvs.Value("new"), Found: true, Version: 7}})
	require.Len(t, r.completed(), 1)
	require.Equal(t, seq, r.done[0].Seq)
	require.Equal(t, kvs.Value("new"), r.done[0].Value)
}

// TestWeakReadRetriesOnceRoundTheReplicas: while no replica has joined
// the view (an election, a cluster of learners), each answers a weak read
// with Retry. The read goes once round the replicas, then waits for
// RetryAfter (or a NewView) instead of asking again as fast as they
// answer; the next round starts after it.
func TestWeakReadRetriesOnceRoundTheReplicas(t *testing.T) {
	r := newRecorder(t)
	r.core.Invoke(client.Op{Level: wire.Weak, Command: kvs.Command{Op: kvs.OpGet, Key: "1"}})
	reads := func() int {
		r.drain()
		n := 0
		for _, m := range r.sent {
			if _, ok := m.m.(*wire.WeakRead); ok {
				n++
			}
		}
		return n
	}
	retryAll := func() {
		for range 10 {
			to, m := r.lastRead(t)
			r.core.Step(to, &wire.WeakReadReply{Replica: to, Cmd: m.Cmd, Attempt: m.Attempt, Retry: true})
		}
	}
	retryAll()
	require.Equal(t, 3, reads(), "the first send and two more: each replica once")
	r.now += 100
	r.core.Tick()
	require.Equal(t, 4, reads(), "RetryAfter starts the next round")
	retryAll()
	require.Equal(t, 6, reads())
	r.core.Step(1, &wire.NewView{Ballot: 1, Leader: 1, ViewStart: 1})
	require.Equal(t, 7, reads(), "a NewView sends it again at once")
}

// TestParkedReadOfOldBallotAsksAgain: a weak read's answer waits while the
// key's newest value is ambiguous (an own weak write pending, an earlier
// strong write settled beside it). When the session learns a new ballot it
// drops the old view's alternatives, which releases the parked answer; that
// answer came from the old ballot's state, which may lack what the new view
// replayed, so the read must ask again rather than complete with it.
func TestParkedReadOfOldBallotAsksAgain(t *testing.T) {
	r := newRecorderWith(t, curpho.NewClientPolicy())
	core := r.core
	strong := core.Invoke(client.Op{Level: wire.Strong, Command: kvs.Command{Op: kvs.OpPut, Key: "5", Value: kvs.Value("s")}})
	core.Invoke(client.Op{Level: wire.Weak, Command: kvs.Command{Op: kvs.OpPut, Key: "5", Value: kvs.Value("w")}})
	core.Step(0, &wire.SyncReply{Replica: 0, Cmd: wire.CmdID{Client: 5, Seq: strong}, Slot: 9})
	read := core.Invoke(client.Op{Level: wire.Weak, Command: kvs.Command{Op: kvs.OpGet, Key: "5"}})
	to, m := r.lastRead(t)
	done := len(r.completed())
	core.Step(to, &wire.WeakReadReply{Replica: to, Cmd: m.Cmd, Attempt: m.Attempt, Result: kvs.Result{Value: kvs.Value("old"), Found: true, Version: 3}})
	require.Len(t, r.completed(), done, "the answer waits for key 5 to settle")

	core.Step(1, &wire.SyncReply{Replica: 1, Ballot: 1, Cmd: wire.CmdID{Client: 5, Seq: 99}})
	for _, res := range r.completed()[done:] {
		require.NotEqual(t, read, res.Seq, "a parked answer of ballot 0 completed the read in ballot 1")
	}
	_, again := r.lastRead(t)
	require.Greater(t, again.Attempt, m.Attempt, "the read is asked again")
}
