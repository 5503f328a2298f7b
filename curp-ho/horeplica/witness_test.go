package horeplica

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/replica"
	"swiftpaxos/wire"
)

// TestDurableReadWaitsForTheSessionsWeakWrites: a durable CURP-HO witness
// acknowledges a session's strong read at once only when every weak
// write of the session it keeps is on disk (docs/DECISIONS.md 30); other
// sessions' reads do not wait for them.
func TestDurableReadWaitsForTheSessionsWeakWrites(t *testing.T) {
	c, err := replica.New(replica.Options{ID: 1, N: 3, Policy: NewPolicy(), Durable: true,
		StartAsMember: true, Now: func() int64 { return 0 }, Rand: rand.New(rand.NewPCG(1, 1)), Incarnation: 1})
	require.NoError(t, err)
	c.Synced(c.Ready().SyncSeq) // its membership
	get := kvs.Command{Op: kvs.OpGet, Key: "k9"}
	ackTypes := func(es []replica.Envelope) (n int) {
		for _, e := range es {
			if _, ok := e.Msg.(*wire.RecordAck); ok {
				n++
			}
		}
		return n
	}

	c.StepClient(5, &wire.CausalPropose{Cmd: wire.CmdID{Client: 5, Seq: 1}, Command: kvs.Command{Op: kvs.OpPut, Key: "k1", Value: kvs.Value("w")}, Bound: 2})
	weak := c.Ready()
	require.Len(t, weak.Persist.Records, 1)

	c.StepClient(5, &wire.Propose{Cmd: wire.CmdID{Client: 5, Seq: 2}, Command: get, WeakDep: 1})
	c.StepClient(6, &wire.Propose{Cmd: wire.CmdID{Client: 6, Seq: 1}, Command: get})
	rd := c.Ready()
	require.Equal(t, 1, ackTypes(rd.AfterSync), "session 5's read waits for its weak write")
	require.Equal(t, 1, ackTypes(rd.Messages), "session 6's read does not")

	c.Synced(weak.SyncSeq)
	c.StepClient(5, &wire.Propose{Cmd: wire.CmdID{Client: 5, Seq: 3}, Command: get, WeakDep: 1})
	rd = c.Ready()
	require.Equal(t, 1, ackTypes(rd.Messages), "the weak write is on disk")
	require.Zero(t, ackTypes(rd.AfterSync))
}
