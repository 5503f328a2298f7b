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
