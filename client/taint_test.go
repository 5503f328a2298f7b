package client_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/client"
	curpho "swiftpaxos/curp-ho"
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// proposed reports whether the session sent a Propose for seq.
func (r *recorder) proposed(seq wire.Seq) bool {
	r.drain()
	for _, s := range r.sent {
		if p, ok := s.m.(*wire.Propose); ok && p.Cmd.Seq == seq {
			return true
		}
	}
	return false
}

// TestTaintedSessionFreedByCommittedView: PROTOCOL.md 5.7. A CURP-HO strong
// read that completes on the fast path with another session's weak write
// (ONE(w)) taints its session: its writes wait until the read is known
// applied. A new leader that re-commits the read need not answer it, since
// the session declared it complete (docs/DECISIONS.md 34); the committed
// view of a later ballot frees the session at once, not a retry period
// later.
func TestTaintedSessionFreedByCommittedView(t *testing.T) {
	r := newRecorderWith(t, curpho.NewClientPolicy())
	core := r.core
	read := core.Invoke(client.Op{Level: wire.Strong, Command: kvs.Command{Op: kvs.OpGet, Key: "1"}})
	id := core.CmdID(read)
	dep := wire.ReadDep{Kind: wire.DepOne, Cmd: wire.CmdID{Client: 9, Seq: 4}}
	core.Step(0, &wire.LeaderReply{Replica: 0, Cmd: id, Ok: true, Result: kvs.Result{Value: kvs.Value("w"), Found: true, Version: 3}, ReadDep: dep})
	for _, w := range []wire.ReplicaID{1, 2} {
		core.Step(w, &wire.RecordAck{Replica: w, Cmd: id, Ok: true, ReadDep: dep})
	}
	require.Len(t, r.completed(), 1, "the read completes on the fast path")
	require.Equal(t, client.PathFast, r.done[0].Path)

	write := core.Invoke(client.Op{Level: wire.Strong, Command: kvs.Command{Op: kvs.OpPut, Key: "2", Value: kvs.Value("x")}})
	require.False(t, r.proposed(write), "the tainted session defers its write")
	core.Step(1, &wire.NewView{Ballot: 1, Leader: 1, ViewStart: 10})
	require.False(t, r.proposed(write), "a view whose start is not committed yet does not free it")
	core.Step(1, &wire.NewView{Ballot: 1, Leader: 1, ViewStart: 10, Committed: true})
	require.True(t, r.proposed(write), "the committed view of a later ballot frees it")
}
