package curpho

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/replica/wire"
)

// TestHoldsWeakWritesFollowsTheRecords: a replica vouches for a session's
// weak writes exactly while it keeps a weak record of the session (a
// durable replica's read acknowledgement then waits for the disk).
func TestHoldsWeakWritesFollowsTheRecords(t *testing.T) {
	p := NewReplicaPolicy().(*replicaPolicy)
	weak := wire.Record{Cmd: wire.CmdID{Client: 5, Seq: 1}, Level: wire.Weak}
	p.RecordKept(weak)
	p.RecordKept(wire.Record{Cmd: wire.CmdID{Client: 6, Seq: 1}, Level: wire.Strong})
	require.True(t, p.HoldsWeakWrites(5))
	require.False(t, p.HoldsWeakWrites(6), "a strong record is no weak write")
	p.RecordDropped(weak)
	require.False(t, p.HoldsWeakWrites(5))
}
