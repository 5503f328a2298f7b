package replica

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// committedPolicy records the entries its Committed hook is called for.
type committedPolicy struct {
	BasePolicy
	committed []wire.CmdID
}

func (p *committedPolicy) Committed(_ *Core, e *wire.Entry) {
	if !e.Cmd.IsZero() {
		p.committed = append(p.committed, e.Cmd)
	}
}

// acked is put with the AckUpTo its request carried.
func acked(client wire.ClientID, seq, ackUpTo wire.Seq, k int) wire.Entry {
	e := put(client, seq, k, "v")
	e.AckUpTo = ackUpTo
	return e
}

// TestNewLeaderAnswersOnlyWhatIsAwaited: a leader that re-commits entries
// of an earlier view answers (SyncReply, the policy's Committed) only the
// commands whose sessions have not declared them complete, as the AckUpTo
// stamped on the later entries of its log tells. After a whole-cluster
// restart the new leader re-commits everything above its snapshot, and
// answering all of it overflowed the clients' connections. The entries of
// its own view (from the view start on) are answered as before.
func TestNewLeaderAnswersOnlyWhatIsAwaited(t *testing.T) {
	p := &committedPolicy{}
	c := newStepCore(t, 1, 3, func(o *Options) { o.Policy = p })
	ents := []wire.Entry{acked(7, 1, 0, 1), acked(7, 2, 1, 2), acked(8, 1, 0, 3), acked(7, 3, 2, 4)}
	for i := range ents {
		ents[i].Slot = kvs.Slot(i + 1)
	}
	require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, Entries: ents}))
	require.Zero(t, c.AppliedIndex())
	c.out.discard()

	c.win(t, 2)
	c.finishRecovery(t, 2)
	c.ack(t, 2, c.LastSlot())
	require.Equal(t, c.LastSlot(), c.AppliedIndex())
	var synced []wire.CmdID
	for _, r := range msgsOf[*wire.SyncReply](c.out.take()) {
		synced = append(synced, r.Cmd)
	}
	awaited := []wire.CmdID{cmdID(8, 1), cmdID(7, 3)}
	require.Equal(t, awaited, synced, "7:1 and 7:2 are below session 7's AckUpTo")
	require.Equal(t, awaited, p.committed)

	// In its own view, the leader answers every command, also one that its
	// session declared complete before it committed: a CURP-HO read that
	// completed on the fast path with a foreign write's value leaves its
	// session tainted until it hears that the read is applied.
	p.committed = nil
	c.StepClient(7, &wire.Propose{Cmd: cmdID(7, 4), Command: getCmd(1), AckUpTo: 3})
	c.StepClient(7, &wire.Propose{Cmd: cmdID(7, 5), Command: getCmd(2), AckUpTo: 4})
	c.ack(t, 2, c.LastSlot())
	synced = nil
	for _, r := range msgsOf[*wire.SyncReply](c.out.take()) {
		synced = append(synced, r.Cmd)
	}
	require.Equal(t, []wire.CmdID{cmdID(7, 4), cmdID(7, 5)}, synced)
	require.Equal(t, []wire.CmdID{cmdID(7, 4), cmdID(7, 5)}, p.committed)
}

// TestLeaderTellsAnAttachingSessionItsView: a session that attaches to the
// leader after its view's announcement learns the view at once, instead of
// from its retry timer; a follower and a leader still recovering tell
// nothing.
func TestLeaderTellsAnAttachingSessionItsView(t *testing.T) {
	c := followerWith(t, 1, 3, 0, put(7, 1, 1, "a"))
	c.SessionAttached(9)
	require.Empty(t, c.out.take(), "a follower")

	c.win(t, 2)
	c.SessionAttached(9)
	require.Empty(t, c.out.take(), "a leader still recovering")

	c.finishRecovery(t, 2)
	c.out.take()
	c.SessionAttached(9)
	nv := msgsOf[*wire.NewView](c.out.take())
	require.Len(t, nv, 1)
	require.Equal(t, wire.NewView{Ballot: 1, Leader: 1, ViewStart: c.viewStart}, *nv[0])

	c.ack(t, 2, c.LastSlot())
	c.out.take()
	c.SessionAttached(9)
	nv = msgsOf[*wire.NewView](c.out.take())
	require.Len(t, nv, 1)
	require.True(t, nv[0].Committed, "once the view start is committed")
}
