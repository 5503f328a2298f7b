package replica

import (
	"cmp"
	"slices"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
)

// Admit notes the request's AckUpTo and reports whether a request for id
// must be processed: false when the client has declared it complete
// (PROTOCOL.md 1.5) or it was already applied here.
func (c *Core) Admit(id wire.CmdID, ackUpTo wire.Seq) bool {
	c.sessions.noteAck(id.Client, ackUpTo)
	return !c.sessions.ignorable(id) && !c.sessions.wasApplied(id)
}

// RecordWeak keeps a CURP-HO weak-write witness record unless one is kept
// for id already (PROTOCOL.md 5.3). Weak records never make a witness reject.
func (c *Core) RecordWeak(id wire.CmdID, cmd kvs.Command, causalDep wire.Seq) {
	if _, kept := c.wit.get(id); kept || !c.member {
		return
	}
	c.wit.add(wire.Record{Cmd: id, Command: cmd, Level: wire.Weak, Accepted: true, Ballot: c.ballot, CausalDep: causalDep}, c.o.Now())
}

// SessionWeak lists the session's kept weak records (CURP-HO CausalDeps).
func (c *Core) SessionWeak(client wire.ClientID) []wire.CmdID { return c.wit.sessionWeak(client) }

// WeakCommittedSeq is the largest Seq of the session's weak writes applied
// here; by the causal chain every earlier weak write is applied too.
func (c *Core) WeakCommittedSeq(client wire.ClientID) wire.Seq {
	if s := c.sessions.peek(client); s != nil {
		return s.weakCommittedSeq
	}
	return 0
}

// ReadDep classifies the kept write records overlapping a read (PROTOCOL.md
// 5.5 item 3): none, exactly one weak write, or anything else.
func (c *Core) ReadDep(cmd kvs.Command) wire.ReadDep {
	var buf [2]*witnessRecord
	ws := c.wit.writesOn(cmd, buf[:0])
	switch {
	case len(ws) == 0:
		return wire.ReadDep{Kind: wire.DepNone}
	case len(ws) == 1 && ws[0].Level == wire.Weak && c.vouchesChain(ws[0]):
		return wire.ReadDep{Kind: wire.DepOne, Cmd: ws[0].Cmd}
	}
	return wire.ReadDep{Kind: wire.DepMulti}
}

// vouchesChain reports whether this witness holds, or has applied, every
// weak write before r in its session's causal chain. Recovery replays a
// weak write only with its chain (docs/DECISIONS.md 11), so a witness that
// answers ONE(w) must be able to vouch for the chain too; otherwise a
// strong read could return w and recovery drop it.
func (c *Core) vouchesChain(r *witnessRecord) bool {
	committed := c.WeakCommittedSeq(r.Cmd.Client)
	for dep := r.CausalDep; dep > committed; {
		p, ok := c.wit.get(wire.CmdID{Client: r.Cmd.Client, Seq: dep})
		if !ok || p.Level != wire.Weak {
			return false
		}
		dep = p.CausalDep
	}
	return true
}

// CheckWitness verifies that the witness's indexes agree (no record is
// listed that nothing can remove); tests and the simulator call it.
func (c *Core) CheckWitness() error { return c.wit.check() }

// RecordCount is the number of witness records kept.
func (c *Core) RecordCount() int { return len(c.wit.byCmd) }

// Records lists the kept witness records in arrival order, for diagnostics.
func (c *Core) Records() []wire.Record {
	out := make([]wire.Record, 0, len(c.wit.byCmd))
	for _, r := range c.wit.byCmd {
		out = append(out, r.Record)
	}
	slices.SortFunc(out, func(a, b wire.Record) int { return cmp.Compare(a.Arrival, b.Arrival) })
	return out
}
