package replica

import "swiftpaxos/wire"

// Sync (PROTOCOL.md 3.6): the slow path's answer, the stored result of an
// applied command.

// onSync answers with the stored result of an applied command. A command
// applied so long ago that its result is forgotten (below its session's
// floor, so its own client completed it) is answered with slot 0 and no
// result: that still tells a tainted CURP-HO session that it is committed.
//
// A leader whose view is committed answers a Sync for a command it does
// not hold at all (one that died with an earlier leader, or whose session
// ended and left no result) with that view: a tainted CURP-HO session
// waits for either a SyncReply or the committed view of a later ballot
// (PROTOCOL.md 5.7), and the view's announcement may have been lost, or
// sent before the session reconnected, as after a whole-cluster crash.
// A NewView of a ballot the session knows re-sends nothing.
func (c *Core) onSync(from wire.ClientID, m *wire.Sync) {
	if a, ok := c.sessions.appliedResult(m.Cmd); ok {
		c.sendSyncReply(from, m.Cmd, a)
	} else if c.sessions.wasApplied(m.Cmd) {
		c.sendSyncReply(from, m.Cmd, applied{})
	} else if c.role == Leader && c.rec == nil && c.viewCommitted && !c.HasSlot(m.Cmd) {
		c.out.toClient(from, c.view())
	}
}

func (c *Core) sendSyncReply(to wire.ClientID, id wire.CmdID, a applied) {
	var wcs wire.Seq
	if s := c.sessions.peek(id.Client); s != nil {
		wcs = s.weakCommittedSeq
	}
	c.out.toClient(to, &wire.SyncReply{
		Replica: c.o.ID, Ballot: c.ballot, Cmd: id, Refused: a.refused,
		Result: a.result, Slot: a.slot, WeakCommittedSeq: wcs,
	})
}
