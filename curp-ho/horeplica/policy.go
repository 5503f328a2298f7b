package horeplica

import (
	curpho "swiftpaxos/curp-ho"
	"swiftpaxos/replica"
	"swiftpaxos/wire"
)

// replicaPolicy is the CURP-HO replica side.
type replicaPolicy struct {
	replica.BasePolicy
	weakRecords
	m curpho.Mutation
	// commits batches WeakCommit notifications per client until Flush.
	commits map[wire.ClientID][]wire.SlotOf
	order   []wire.ClientID
}

// NewPolicy returns the CURP-HO replica policy.
func NewPolicy() replica.Policy { return NewPolicyWith(curpho.Mutation{}) }

// NewPolicyWith returns a replica policy with a deliberate mutation.
func NewPolicyWith(m curpho.Mutation) replica.Policy {
	return &replicaPolicy{
		weakRecords: weakRecords{bySession: make(map[wire.ClientID][]wire.Seq)},
		m:           m,
		commits:     make(map[wire.ClientID][]wire.SlotOf),
	}
}

// The core finds the index by a type assertion; this keeps a changed
// signature from silently turning it off.
var _ replica.RecordIndex = (*replicaPolicy)(nil)

// HandleClient records a weak write at every replica, acknowledges it at
// the bound replica, and hands it to the leader's causal chain
// (PROTOCOL.md 5.7, weak write steps 2-3).
func (p *replicaPolicy) HandleClient(c *replica.Core, from wire.ClientID, m wire.Message) bool {
	w, ok := m.(*wire.CausalPropose)
	if !ok {
		return false
	}
	if c.Admit(w.Cmd, w.AckUpTo) {
		// Weak records never make a witness reject (PROTOCOL.md 5.3).
		c.Keep(wire.Record{Cmd: w.Cmd, Command: w.Command, Level: wire.Weak, Accepted: true, CausalDep: w.CausalDep})
		if c.IsLeader() {
			c.ProposeWeak(replica.WeakWrite{From: from, Cmd: w.Cmd, Command: w.Command, CausalDep: w.CausalDep, AckUpTo: w.AckUpTo})
		}
	}
	if c.IsLeader() {
		// A re-sent write that already committed (or was refused): its
		// WeakCommit was lost, so announce it again (slot 0 if it is
		// forgotten).
		if slot, committed, refused := c.Outcome(w.Cmd); committed {
			p.queueCommit(wire.SlotOf{Cmd: w.Cmd, Slot: slot, Refused: refused})
		}
	}
	if w.Bound == c.ID() && c.Member() {
		c.ToClient(from, &wire.CausalReply{Replica: c.ID(), Ballot: c.Ballot(), Cmd: w.Cmd})
	}
	return true
}

// StrongDep is the barrier: a strong proposal waits for the session's
// latest earlier weak write, or the earlier strong command it is ordered
// after (docs/DECISIONS.md 45), to have a slot (PROTOCOL.md 5.4).
func (p *replicaPolicy) StrongDep(pr *wire.Propose) (wire.CmdID, bool) {
	if pr.WeakDep == 0 || p.m.NoBarrier {
		return wire.CmdID{}, false
	}
	return wire.CmdID{Client: pr.Cmd.Client, Seq: pr.WeakDep}, true
}

// ReadRule lets a strong read through when its only uncommitted earlier
// write is one weak write, naming it in ReadDep (PROTOCOL.md 5.7).
func (p *replicaPolicy) ReadRule(pending []*wire.Entry) (bool, wire.ReadDep) {
	switch {
	case len(pending) == 0:
		return true, wire.ReadDep{Kind: wire.DepNone}
	case len(pending) == 1 && pending[0].Level == wire.Weak:
		return true, wire.ReadDep{Kind: wire.DepOne, Cmd: pending[0].Cmd}
	}
	return false, wire.ReadDep{Kind: wire.DepMulti}
}

// WitnessReport adds the session's pending weak writes and, for reads,
// the read dependency (PROTOCOL.md 5.5).
func (p *replicaPolicy) WitnessReport(c *replica.Core, pr *wire.Propose, ack *wire.RecordAck) {
	ack.CausalDeps = p.causalDeps(pr.Cmd.Client)
	ack.DepCommittedSeq = c.WeakCommittedSeq(pr.Cmd.Client)
	if pr.Command.ReadsState() {
		ack.ReadDep = readDep(c, pr.Command)
	}
}

// VouchesUnsynced reports whether the replica keeps a weak-write record
// of the session that is not on disk yet (the leader keeps them too,
// PROTOCOL.md 5.3).
func (p *replicaPolicy) VouchesUnsynced(c *replica.Core, client wire.ClientID) bool {
	for _, seq := range p.bySession[client] {
		if !c.RecordSynced(wire.CmdID{Client: client, Seq: seq}) {
			return true
		}
	}
	return false
}

// Committed batches a WeakCommit for every committed weak write, and for
// every committed refusal of one.
func (p *replicaPolicy) Committed(c *replica.Core, e *wire.Entry) {
	if e.Level == wire.Weak && (e.Command.IsWrite() || e.IsRefusal()) {
		p.queueCommit(wire.SlotOf{Cmd: e.Cmd, Slot: e.Slot, Refused: e.IsRefusal()})
	}
}

func (p *replicaPolicy) queueCommit(sc wire.SlotOf) {
	if _, ok := p.commits[sc.Cmd.Client]; !ok {
		p.order = append(p.order, sc.Cmd.Client)
	}
	p.commits[sc.Cmd.Client] = append(p.commits[sc.Cmd.Client], sc)
}

// Flush sends the batched WeakCommits, one message per client.
func (p *replicaPolicy) Flush(c *replica.Core) {
	for _, id := range p.order {
		c.ToClient(id, &wire.WeakCommit{Ballot: c.Ballot(), Commits: p.commits[id]})
		delete(p.commits, id)
	}
	p.order = p.order[:0]
}
