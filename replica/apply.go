package replica

import (
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// applyCommitted executes committed entries strictly in slot order, with
// no timeout and no skipping (PROTOCOL.md 3.3). An entry whose CmdID was
// already applied is a no-op that re-uses the stored result (6.7).
func (c *Core) applyCommitted() {
	if !c.o.DeferApply {
		c.apply(-1)
	}
}

// Apply executes up to max committed entries (all of them if max < 0) and
// sends what that produced. Drivers call it only with DeferApply.
func (c *Core) Apply(max int) {
	c.apply(max)
}

func (c *Core) apply(max int) {
	for n := 0; c.appliedIndex < c.commitIndex && (max < 0 || n < max); n++ {
		s := c.appliedIndex + 1
		e := c.entries.at(s)
		var res kvs.Result
		switch {
		case e.Cmd.IsZero():
			// A no-op of a view start.
		case e.IsSessionEnd():
			c.applySessionEnd(e)
		case c.sessions.endedAt(e.Cmd.Client) != 0:
			// The session ended at an earlier slot: its command never
			// executes, whatever it is (a late copy of one applied before
			// the end, or a new one), and its client is told.
			if c.role == Leader {
				c.out.toClient(e.Cmd.Client, &wire.EndSession{Client: e.Cmd.Client})
			}
		case e.IsRefusal():
			if !c.sessions.wasApplied(e.Cmd) {
				c.sessions.refuse(e)
			}
		case c.sessions.wasApplied(e.Cmd):
			if a, ok := c.sessions.appliedResult(e.Cmd); ok {
				res = a.result
			}
		default:
			res = c.store.Apply(s, e.Command)
			c.sessions.record(e, res)
			if c.o.Executed != nil {
				c.o.Executed(e, res)
			}
		}
		c.keys.applied(s, e.Command)
		if c.cmdIndex[e.Cmd] == s {
			delete(c.cmdIndex, e.Cmd)
		}
		c.wit.remove(e.Cmd)
		c.appliedIndex = s
		if c.role == Leader && e.Level == wire.Strong && !e.Cmd.IsZero() && c.answers(s, e) {
			if a, ok := c.sessions.appliedResult(e.Cmd); ok {
				c.sendSyncReply(e.Cmd.Client, e.Cmd, a)
			}
		}
	}
	c.releaseReads()
	c.maybeSnapshot()
	c.checkMember()
}
