package replica

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/wire"
)

// TestDurableReadAcksLeaveAtOnce: a strong read's RecordAck and
// LeaderReply vouch for nothing a crash could take back, so they leave
// before the batch is on disk, and a witness does not write the read's
// record down; a write's wait. The leader still writes the read's entry:
// the log has no holes.
func TestDurableReadAcksLeaveAtOnce(t *testing.T) {
	w := newStepCore(t, 1, 3, durable)
	w.Synced(w.Ready().SyncSeq) // its membership
	w.StepClient(5, &wire.Propose{Cmd: cmdID(5, 1), Command: getCmd(1)})
	rd := w.Ready()
	require.Equal(t, []string{"*wire.RecordAck"}, types(rd.Messages))
	require.Empty(t, rd.AfterSync)
	require.Nil(t, rd.Persist, "the read's record is not written down")
	w.StepClient(5, &wire.Propose{Cmd: cmdID(5, 2), Command: putCmd(2, "a")})
	rd = w.Ready()
	require.Equal(t, []string{"*wire.RecordAck"}, types(rd.AfterSync))
	require.Len(t, rd.Persist.Records, 1)

	l := newStepCore(t, 0, 3, durable)
	founded(t, l)
	l.StepClient(5, &wire.Propose{Cmd: cmdID(5, 1), Command: getCmd(1)})
	rd = l.Ready()
	require.Equal(t, []string{"*wire.LeaderReply", "*wire.Accept", "*wire.Accept"}, types(rd.Messages))
	require.Empty(t, rd.AfterSync)
	require.Len(t, rd.Persist.Entries, 1, "the read's entry is written")
	require.Empty(t, rd.Persist.Records)
	l.StepClient(5, &wire.Propose{Cmd: cmdID(5, 2), Command: putCmd(2, "a")})
	rd = l.Ready()
	require.Equal(t, []string{"*wire.LeaderReply"}, types(rd.AfterSync))
}

// vouchingPolicy keeps unsynced weak writes of session 5 (holds), or
// reports a read dependency on weak write 6/1, whose session's chain may
// be unsynced (chain), as a CURP-HO replica may.
type vouchingPolicy struct {
	BasePolicy
	holds, chain bool
}

func (p vouchingPolicy) VouchesUnsynced(_ *Core, c wire.ClientID) bool {
	return p.holds && c == 5 || p.chain && c == 6
}

func (p vouchingPolicy) WitnessReport(_ *Core, _ *wire.Propose, ack *wire.RecordAck) {
	if !p.holds {
		ack.ReadDep = wire.ReadDep{Kind: wire.DepOne, Cmd: cmdID(6, 1)}
	}
}

// TestDurableReadVouchingForWeakWritesWaits: a read's RecordAck that
// vouches for the session's weak writes, or for the weak write its value
// came from, waits for the disk until that write's record is on it.
func TestDurableReadVouchingForWeakWritesWaits(t *testing.T) {
	for _, holds := range []bool{true, false} {
		c := newStepCore(t, 1, 3, func(o *Options) { o.Durable, o.Policy = true, vouchingPolicy{holds: holds} })
		c.StepClient(5, &wire.Propose{Cmd: cmdID(5, 1), Command: getCmd(1)})
		rd := c.Ready()
		require.Equal(t, []string{"*wire.RecordAck"}, types(rd.AfterSync), "holds=%v", holds)
		require.Empty(t, rd.Messages)
	}
}

// TestDurableReadOnASyncedWeakWriteLeavesAtOnce: once the record of the
// weak write a read's value came from is on disk, with the rest of its
// session's chain, the read's RecordAck no longer waits.
func TestDurableReadOnASyncedWeakWriteLeavesAtOnce(t *testing.T) {
	for _, chain := range []bool{false, true} {
		c := newStepCore(t, 1, 3, func(o *Options) { o.Durable, o.Policy = true, vouchingPolicy{chain: chain} })
		c.Keep(wire.Record{Cmd: cmdID(6, 1), Command: putCmd(1, "w"), Level: wire.Weak, Accepted: true})
		rd := c.Ready()
		require.Len(t, rd.Persist.Records, 1)
		require.False(t, c.RecordSynced(cmdID(6, 1)))
		c.Synced(rd.SyncSeq)
		require.True(t, c.RecordSynced(cmdID(6, 1)))
		c.StepClient(5, &wire.Propose{Cmd: cmdID(5, 1), Command: getCmd(1)})
		rd = c.Ready()
		if chain {
			// An earlier write of 6/1's chain is not on disk yet.
			require.Equal(t, []string{"*wire.RecordAck"}, types(rd.AfterSync))
			continue
		}
		require.Equal(t, []string{"*wire.RecordAck"}, types(rd.Messages))
		require.Empty(t, rd.AfterSync)
	}
}
