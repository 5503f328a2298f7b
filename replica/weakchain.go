package replica

import (
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// The weak chain (PROTOCOL.md 4.5, 5.4): the leader appends a session's
// weak writes in the order of their causal dependencies.

// WeakWrite is a weak write handed to the leader by a protocol policy.
type WeakWrite struct {
	From      wire.ClientID
	Cmd       wire.CmdID
	Command   kvs.Command
	CausalDep wire.Seq
	AckUpTo   wire.Seq
}

// ProposeWeak hands a weak write to the leader: it is appended once the
// session's previous weak write has a slot (the causal chain, PROTOCOL.md
// 4.5 step 2 and 5.4). Duplicates are dropped; the policy answers them.
func (c *Core) ProposeWeak(w WeakWrite) {
	if c.role != Leader || c.sessions.ignorable(w.Cmd) || c.HasSlot(w.Cmd) {
		return
	}
	if w.CausalDep > 0 {
		dep := wire.CmdID{Client: w.Cmd.Client, Seq: w.CausalDep}
		if c.refused(dep) {
			c.appendRefusal(w.Cmd, wire.Weak, w.CausalDep)
			return
		}
		if !c.HasSlot(dep) {
			c.bar(dep, barredRequest{from: w.From, weak: &w})
			return
		}
	}
	c.appendEntry(wire.Entry{Ballot: c.ballot, Cmd: w.Cmd, Command: w.Command, Level: wire.Weak, CausalDep: w.CausalDep, AckUpTo: w.AckUpTo})
	c.releaseBarred(w.Cmd)
}
