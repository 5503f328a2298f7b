package replica

import (
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// The admission checks of what a replica receives: client requests, and
// the entries a leader sends.

// validRequest is the admission check of a client request (kvs.Command
// Validate, against the configured limits): a well-formed command of the
// kind the message carries. A no-op is never a client command: in the log
// a no-op with a command id is a refusal. A weak write is a PUT or a
// DELETE: a CAS or an INCR is strong only, since a weak write is answered
// before it is ordered and its result would be invented (PROTOCOL.md 1.2);
// weakRMW admits them (Mutation.AcceptWeakRMW).
func validRequest(m wire.Message, l kvs.Limits, weakRMW bool) bool {
	var id wire.CmdID
	var cmd kvs.Command
	kind := func(c kvs.Command) bool { return c.IsWrite() && (weakRMW || !c.StrongOnly()) }
	switch m := m.(type) {
	case *wire.Propose:
		id, cmd = m.Cmd, m.Command
		// A leader read is a read: no witness ever sees it.
		kind = func(c kvs.Command) bool { return c.Op != kvs.OpNoop && !(m.LeaderRead && c.IsWrite()) }
	case *wire.WeakRead:
		id, cmd, kind = m.Cmd, m.Command, kvs.Command.IsRead
	case *wire.WeakPropose:
		id, cmd = m.Cmd, m.Command
	case *wire.CausalPropose:
		id, cmd = m.Cmd, m.Command
	default:
		return true
	}
	// Seq 0 is no command's: in the log a no-op of a client with Seq 0 ends
	// that client's session.
	return id.Client != 0 && id.Seq != 0 && cmd.Validate(l) == nil && kind(cmd)
}

// validEntry reports whether e is a log entry: a view's no-op, a refusal,
// or a valid command with a command id (a CAS or an INCR only strong,
// unless weakRMW: a replica that admits the request under
// Mutation.AcceptWeakRMW must also accept the entry, or the log stalls).
func validEntry(e *wire.Entry, l kvs.Limits, weakRMW bool) bool {
	if e.Command.Op == kvs.OpNoop {
		return true // a view no-op (no id), a refusal (an id) or a session end (a client, Seq 0)
	}
	return !e.Cmd.IsZero() && e.Command.Validate(l) == nil && (e.Level == wire.Strong || weakRMW || !e.Command.StrongOnly())
}
