package client

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/wire"
)

// A witness whose connection broke may have restarted without its
// records: its earlier acknowledgement no longer counts, and a leader's
// reply that arrives afterwards completes nothing on the fast path.
func TestAckOfReplicaDownDoesNotCount(t *testing.T) {
	x := newTestCore(t)
	a := x.c.Invoke(Op{Level: Strong, Command: put("k")})
	x.c.Ready()
	for r := wire.ReplicaID(1); r < 3; r++ {
		x.c.Step(r, &wire.RecordAck{Replica: r, Cmd: x.c.CmdID(a), Ok: true})
	}
	x.c.ReplicaDown(1)
	x.c.Step(0, &wire.LeaderReply{Replica: 0, Cmd: x.c.CmdID(a), Ok: true, Slot: 1})
	require.Empty(t, x.c.Ready().Completed)
	x.c.ReplicaUp(1)
	x.c.Step(1, &wire.RecordAck{Replica: 1, Cmd: x.c.CmdID(a), Ok: true})
	require.Equal(t, PathFast, x.one().Path, "a new acknowledgement of the record counts")
}

// A witness whose host crashed and came back may have sent its
// acknowledgement in a life the leader knows has ended: it does not count,
// and the new life's acknowledgement does (docs/DECISIONS.md 58).
func TestAckOfAnEndedLifeDoesNotCount(t *testing.T) {
	x := newTestCore(t)
	a := x.c.Invoke(Op{Level: Strong, Command: put("k")})
	x.c.Ready()
	x.c.Step(1, &wire.RecordAck{Replica: 1, Cmd: x.c.CmdID(a), Ok: true, Life: 10})
	x.c.Step(2, &wire.RecordAck{Replica: 2, Cmd: x.c.CmdID(a), Ok: true, Life: 20})
	x.c.Step(0, &wire.LeaderReply{Replica: 0, Cmd: x.c.CmdID(a), Ok: true, Slot: 1, Lives: wire.Lives{1, 10, 21}})
	require.Empty(t, x.c.Ready().Completed, "replica 2's acknowledgement is of an ended life")
	x.c.Step(2, &wire.RecordAck{Replica: 2, Cmd: x.c.CmdID(a), Ok: true, Life: 21})
	require.Equal(t, PathFast, x.one().Path, "its new life's acknowledgement counts")

	b := x.c.Invoke(Op{Level: Strong, Command: put("k")})
	x.c.Ready()
	for r := wire.ReplicaID(1); r < 3; r++ {
		x.c.Step(r, &wire.RecordAck{Replica: r, Cmd: x.c.CmdID(b), Ok: true, Life: 30})
	}
	x.c.Step(0, &wire.LeaderReply{Replica: 0, Cmd: x.c.CmdID(b), Ok: true, Slot: 2, Lives: wire.Lives{1, 10}})
	require.Empty(t, x.c.Ready().Completed, "lives for two replicas of three vouch for none")
}
