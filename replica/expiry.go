package replica

import (
	"slices"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// Sessions end through the log (PROTOCOL.md 6.10, docs/DECISIONS.md 23):
// the leader appends a session-end entry when the client closes cleanly
// (EndSession) or has been idle for SessionIdle, and every replica releases
// the session's row when it applies that entry, at the same slot. What is
// left is a tombstone that makes every later request of the session fail
// with EndSession, so that a late copy of a command applied before the end
// never executes a second time. Witness records are not touched: each keeps
// waiting for its own outcome in the log (PROTOCOL.md 3.4 rule 6), which,
// for a session that has ended, the leader decides as a refusal.

// applySessionEnd releases the session's row.
func (c *Core) applySessionEnd(e *wire.Entry) {
	if c.sessions.endedAt(e.Cmd.Client) == 0 {
		c.sessions.end(e.Cmd.Client, e.Slot)
	}
	delete(c.ending, e.Cmd.Client)
	if c.role == Leader {
		// The confirmation of a clean close; an idle session learns that
		// it expired.
		c.out.toClient(e.Cmd.Client, &wire.EndSession{Client: e.Cmd.Client})
	}
}

// onEndSession ends a session whose client closed it.
func (c *Core) onEndSession(from wire.ClientID, m *wire.EndSession) {
	if m.Client == from && c.role == Leader && c.rec == nil {
		c.endSession(m.Client)
	}
}

// endSession appends the end of a live session, once.
func (c *Core) endSession(client wire.ClientID) {
	if c.sessions.endedAt(client) != 0 {
		return
	}
	if _, ok := c.ending[client]; ok {
		return
	}
	c.ending[client] = c.appendEntry(wire.Entry{Ballot: c.ballot, Cmd: wire.CmdID{Client: client}, Command: kvs.Command{Op: kvs.OpNoop}, Level: wire.Strong})
}

// sessionClosed reports whether the session has ended here or its end is
// in the log: nothing more of it may be ordered as a command.
func (c *Core) sessionClosed(client wire.ClientID) bool {
	_, ending := c.ending[client]
	return ending || c.sessions.endedAt(client) != 0
}

// noteLogged rebuilds, for a leader taking over, what its log says of
// the sessions beyond what it applied.
//   - The sessions whose end is in its log: the previous leader appended
//     it, so this one must refuse the sessions' records and drop their
//     requests as that leader would have. A command of such a session
//     ordered after the end would be skipped when applied, after the
//     leader had reported it committed: an acknowledged write lost without
//     notice.
//   - How far each session has declared its commands complete (AckUpTo):
//     the commands below that are answered to nobody when they commit.
func (c *Core) noteLogged() {
	clear(c.ending)
	for s := c.appliedIndex + 1; s <= c.entries.last(); s++ {
		e := c.entries.at(s)
		if e.IsSessionEnd() {
			c.ending[e.Cmd.Client] = s
		}
		c.sessions.noteLoggedAcks(e)
	}
}

// sessionOver reports whether requests of the client must not be served:
// its session ended (the client is told so, by a replica that applied the
// end) or this leader is ending it (the request is dropped: the client
// re-sends it, and learns of the end once it is applied).
func (c *Core) sessionOver(from wire.ClientID, m wire.Message) bool {
	if _, read := m.(*wire.WeakRead); read {
		return false // reads change nothing; they are answered as usual
	}
	if c.sessions.endedAt(from) != 0 {
		c.out.toClient(from, &wire.EndSession{Client: from})
		return true
	}
	_, ending := c.ending[from]
	return ending
}

// expireIdle ends the sessions this leader has not heard from for
// SessionIdle, counting from when it became leader. It scans the table at
// most every SessionIdle/8.
func (c *Core) expireIdle(now int64) {
	idle := int64(c.o.SessionIdle)
	if c.role != Leader || c.rec != nil || c.founded != nil || now-c.idleScan < idle/8 {
		return
	}
	c.idleScan = now
	var ids []wire.ClientID
	for id, s := range c.sessions {
		if s.ended == 0 && now-max(s.heard, c.leaderSince) >= idle {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		c.endSession(id)
	}
}
