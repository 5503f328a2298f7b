package htreplica

import (
	"swiftpaxos/replica"
	"swiftpaxos/wire"
)

// replicaPolicy is the CURP-HT replica side.
type replicaPolicy struct {
	replica.BasePolicy
}

// NewPolicy returns the CURP-HT replica policy.
func NewPolicy() replica.Policy { return &replicaPolicy{} }

// HandleClient orders weak writes through the leader (PROTOCOL.md 4.5).
func (replicaPolicy) HandleClient(c *replica.Core, from wire.ClientID, m wire.Message) bool {
	w, ok := m.(*wire.WeakPropose)
	if !ok {
		return false
	}
	if !c.IsLeader() {
		c.ToClient(from, &wire.NotLeader{Ballot: c.Ballot(), Leader: c.Leader(), Cmd: w.Cmd})
		return true
	}
	if s, committed, refused := c.Outcome(w.Cmd); s > 0 {
		if committed {
			c.ToClient(from, &wire.WeakReply{Replica: c.ID(), Ballot: c.Ballot(), Cmd: w.Cmd, Slot: s, Committed: true, Refused: refused})
		}
		return true // otherwise the reply follows at commit
	}
	c.ProposeWeak(replica.WeakWrite{From: from, Cmd: w.Cmd, Command: w.Command, CausalDep: w.CausalDep, AckUpTo: w.AckUpTo})
	return true
}

// Committed acknowledges a weak write once it is committed (PROTOCOL.md
// 4.5 step 3): the default, safe acknowledgement mode. A committed refusal
// of a weak write tells its client that the write never executes.
func (replicaPolicy) Committed(c *replica.Core, e *wire.Entry) {
	if e.Level == wire.Weak && (e.Command.IsWrite() || e.IsRefusal()) {
		c.ToClient(e.Cmd.Client, &wire.WeakReply{Replica: c.ID(), Ballot: c.Ballot(), Cmd: e.Cmd, Slot: e.Slot,
			Committed: true, Refused: e.IsRefusal()})
	}
}
