package replica

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

func weakRecord(client wire.ClientID, seq, dep wire.Seq, age time.Duration) wire.Record {
	return wire.Record{Cmd: wire.CmdID{Client: client, Seq: seq}, Level: wire.Weak, Accepted: true, CausalDep: dep,
		Command: kvs.Command{Op: kvs.OpPut, Key: key(int(seq)), Value: kvs.Value("v")}, Age: uint64(age)}
}

// commitAll makes follower 1 acknowledge the leader's whole log, so that
// it commits and applies.
func commitAll(c *testCore) {
	c.StepReplica(1, &wire.AcceptAck{Ballot: c.Ballot(), Replica: 1, Success: true, MatchSlot: c.LastSlot()})
}

// TestRefusal: PROTOCOL.md 3.4 rule 6, docs/DECISIONS.md 15. A flushed weak
// write whose predecessor never arrived waits while its client is alive;
// once the record is RefuseAfter old and the client silent that long, the
// leader refuses it through the log; a write after a refused one is
// refused at once; a refused command never executes, and a re-sent request
// for it is told so.
func TestRefusal(t *testing.T) {
	c := newTestCoreWith(t, 0, 3, BasePolicy{})
	refuseAfter := c.o.RefuseAfter
	const client = 7
	w2 := weakRecord(client, 2, 1, refuseAfter)

	c.now = int64(refuseAfter) - 1
	c.decide([]wire.Record{w2})
	require.Zero(t, c.LastSlot(), "too young: the leader waits for the predecessor")

	c.now = int64(refuseAfter)
	c.StepClient(client, &wire.Sync{Cmd: wire.CmdID{Client: client, Seq: 9}}) // the client is alive
	c.now += int64(refuseAfter) / 2
	c.decide([]wire.Record{w2})
	require.Zero(t, c.LastSlot(), "its client spoke recently: the leader waits")

	c.now += int64(refuseAfter)
	c.decide([]wire.Record{w2})
	require.Equal(t, kvs.Slot(1), c.LastSlot(), "silent client, aged record: refused")
	_, _, refused := c.Outcome(w2.Cmd)
	require.True(t, refused)

	c.ProposeWeak(WeakWrite{From: client, Cmd: wire.CmdID{Client: client, Seq: 3}, CausalDep: 2,
		Command: kvs.Command{Op: kvs.OpPut, Key: key(3), Value: kvs.Value("v")}})
	_, _, refused = c.Outcome(wire.CmdID{Client: client, Seq: 3})
	require.True(t, refused, "a write after a refused one is refused at once")

	commitAll(c)
	require.Equal(t, kvs.Slot(2), c.AppliedIndex())
	e := c.store.Get(key(2))
	require.False(t, e.Found)
	require.Zero(t, e.Version, "a refused write never executes")
	slot, committed, refused := c.Outcome(w2.Cmd)
	require.Equal(t, kvs.Slot(1), slot)
	require.True(t, committed && refused)

	c.out.take()
	c.StepClient(client, &wire.Sync{Cmd: w2.Cmd})
	replies := c.out.take()
	require.Len(t, replies, 1)
	require.True(t, replies[0].(*wire.SyncReply).Refused, "a re-sent request is told it was refused")

	c.decide([]wire.Record{w2})
	c.ProposeWeak(WeakWrite{From: client, Cmd: w2.Cmd, CausalDep: 1, Command: w2.Command})
	require.Equal(t, kvs.Slot(2), c.LastSlot(), "a refused command is never appended again")
}
