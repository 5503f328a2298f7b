package replica

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

func put(client wire.ClientID, seq wire.Seq, ki int, v string) wire.Entry {
	k := key(ki)
	return wire.Entry{Cmd: wire.CmdID{Client: client, Seq: seq}, Command: kvs.Command{Op: kvs.OpPut, Key: k, Value: kvs.Value(v)}, Level: wire.Strong}
}

func answers(msgs []wire.Message) []*wire.WeakReadReply {
	var out []*wire.WeakReadReply
	for _, m := range msgs {
		if r, ok := m.(*wire.WeakReadReply); ok {
			out = append(out, r)
		}
	}
	return out
}

// TestParkedReadRejudgedOnBallotChange: PROTOCOL.md 6.5. A read of ballot
// 0 parked for slot 1 must not be released by slot 1 once the replica has
// joined ballot 1, whose view start it does not know yet; it waits for the
// view start (learned from the ballot's no-op) and for it to be applied.
func TestParkedReadRejudgedOnBallotChange(t *testing.T) {
	tc := newTestCoreWith(t, 1, 3, BasePolicy{})
	c, out := tc.Core, tc.out
	c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, Entries: []wire.Entry{put(7, 1, 1, "a"), put(7, 2, 1, "b")}})
	read := &wire.WeakRead{Cmd: wire.CmdID{Client: 9, Seq: 1}, Command: kvs.Command{Op: kvs.OpGet, Key: key(1)}, MinSlot: 1}
	c.StepClient(9, read)
	require.Empty(t, answers(out.take()), "parked: nothing applied")

	c.o.Now = func() int64 { return int64(c.o.ElectionTimeoutMax) } // the leader has been silent
	require.NoError(t, c.StepReplica(2, &wire.PreVote{Ballot: 1, Candidate: 2, LastSlot: 2}))
	require.NoError(t, c.StepReplica(2, &wire.RequestVote{Ballot: 1, Candidate: 2, LastSlot: 2}))
	require.Equal(t, wire.Ballot(1), c.Ballot())
	require.NoError(t, c.StepReplica(2, &wire.Accept{Ballot: 1, Leader: 2, PrevSlot: 2, LeaderCommit: 1}))
	require.Equal(t, kvs.Slot(1), c.AppliedIndex())
	require.Empty(t, answers(out.take()), "slot 1 is applied, but ballot 1's view start is unknown")

	noop := wire.Entry{Ballot: 1, Command: kvs.Command{Op: kvs.OpNoop}, Level: wire.Strong}
	c.StepReplica(2, &wire.Accept{Ballot: 1, Leader: 2, PrevSlot: 2, Entries: []wire.Entry{noop}, LeaderCommit: 2})
	require.Empty(t, answers(out.take()), "the view starts at 4: slot 3 must be applied first")
	c.StepReplica(2, &wire.Commit{Ballot: 1, CommitIndex: 3})
	got := answers(out.take())
	require.Len(t, got, 1)
	require.Equal(t, kvs.Value("b"), got[0].Result.Value, "the answer includes everything before the view start")
}

// TestNoViewStartUnderflow: a NewView naming view start 0 (a buggy peer)
// teaches nothing.
func TestNoViewStartUnderflow(t *testing.T) {
	c := newTestCore(t, 1, 3)
	c.StepReplica(2, &wire.NewView{Ballot: 1, Leader: 2, ViewStart: 0})
	require.NotEqual(t, c.Ballot(), c.viewBallot)
}

// TestInvalidClientRequestsDropped: a no-op, an invalid command or a zero
// command id from a client is never recorded or ordered (a no-op with a
// command id is a refusal in the log).
func TestInvalidClientRequestsDropped(t *testing.T) {
	for _, m := range []wire.Message{
		&wire.Propose{Cmd: wire.CmdID{Client: 7, Seq: 1}, Command: kvs.Command{Op: kvs.OpNoop}},
		&wire.Propose{Cmd: wire.CmdID{Client: 7, Seq: 1}, Command: kvs.Command{Op: kvs.OpScan, Limit: kvs.MaxScanLimit + 1}},
		&wire.Propose{Cmd: wire.CmdID{Client: 7, Seq: 1}, Command: kvs.Command{Op: kvs.OpScan, Key: key(2), End: key(1), Limit: 1}},
		&wire.Propose{Cmd: wire.CmdID{Client: 7, Seq: 1}, Command: kvs.Command{Op: kvs.OpGet}},
		&wire.Propose{Cmd: wire.CmdID{Client: 7, Seq: 1}, Command: kvs.Command{Op: kvs.OpPut, Key: kvs.Key(make([]byte, kvs.DefaultLimits.MaxKey+1))}},
		&wire.Propose{Cmd: wire.CmdID{Client: 7, Seq: 1}, Command: kvs.Command{Op: kvs.OpPut, Key: key(1), Value: make(kvs.Value, kvs.DefaultLimits.MaxValue+1)}},
		&wire.Propose{Cmd: wire.CmdID{Client: 7, Seq: 1}, Command: kvs.Command{Op: kvs.OpDelete, Key: key(1), Value: kvs.Value("v")}},
		&wire.Propose{Command: kvs.Command{Op: kvs.OpPut, Key: key(1), Value: kvs.Value("v")}},
		&wire.WeakRead{Cmd: wire.CmdID{Client: 7, Seq: 1}, Command: kvs.Command{Op: kvs.OpPut, Key: key(1)}},
		&wire.WeakRead{Cmd: wire.CmdID{Client: 7, Seq: 1}, Command: kvs.Command{Op: kvs.OpDelete, Key: key(1)}},
		&wire.WeakPropose{Cmd: wire.CmdID{Client: 7, Seq: 1}, Command: getCmd(1)},
		&wire.CausalPropose{Cmd: wire.CmdID{Client: 7, Seq: 1}, Command: scanCmd(1, 2)},
	} {
		for _, id := range []wire.ReplicaID{0, 1} {
			tc := newTestCoreWith(t, id, 3, BasePolicy{})
			c, out := tc.Core, tc.out
			c.StepClient(7, m)
			require.Zero(t, c.RecordCount(), "%T at replica %d", m, id)
			require.Zero(t, c.LastSlot(), "%T at replica %d", m, id)
			require.Empty(t, out.take(), "%T at replica %d", m, id)
		}
	}
}

// TestReadAnsweredCountsWeakReads: a weak read is answered outside the
// log, so Executed never sees it; ReadAnswered does, once per answer and
// not for a read still parked: the metrics' executed_total{level="weak",
// kind="get"} counts the reads a replica serves.
func TestReadAnsweredCountsWeakReads(t *testing.T) {
	tc := newTestCoreWith(t, 1, 3, BasePolicy{})
	c, out := tc.Core, tc.out
	var answered []kvs.Op
	c.o.ReadAnswered = func(cmd *kvs.Command) { answered = append(answered, cmd.Op) }
	c.StepClient(9, &wire.WeakRead{Cmd: wire.CmdID{Client: 9, Seq: 1}, Command: kvs.Command{Op: kvs.OpGet, Key: key(1)}})
	c.StepClient(9, &wire.WeakRead{Cmd: wire.CmdID{Client: 9, Seq: 2}, Command: kvs.Command{Op: kvs.OpGet, Key: key(1)}, MinSlot: 1})
	require.Len(t, answers(out.take()), 1)
	require.Equal(t, []kvs.Op{kvs.OpGet}, answered, "the parked read is not answered yet")
	c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, Entries: []wire.Entry{put(7, 1, 1, "a")}, LeaderCommit: 1})
	require.Len(t, answers(out.take()), 1)
	require.Equal(t, []kvs.Op{kvs.OpGet, kvs.OpGet}, answered)
}
