package replica

import (
	"swiftpaxos/wire"
)

// Policy is what a protocol adds to the shared core (ARCHITECTURE.md rule 1).
// The core calls it from its own goroutine; a Policy holds no locks.
type Policy interface {
	// HandleClient handles a client message the core does not know
	// (CURP-HT WeakPropose, CURP-HO CausalPropose) and reports whether it
	// knew the message.
	HandleClient(c *Core, from wire.ClientID, m wire.Message) bool
	// StrongDep names the command a strong proposal must wait for before
	// the leader assigns it a slot (the CURP-HO barrier, PROTOCOL.md 5.4;
	// an ordered operation's predecessor, docs/DECISIONS.md 45).
	StrongDep(p *wire.Propose) (dep wire.CmdID, wait bool)
	// ReadRule gives the leader's Ok and ReadDep for a strong read whose
	// earlier uncommitted writes to the same key(s) are pending
	// (PROTOCOL.md 3.5, 5.7): at most two of them (a key's latest first),
	// which tells none, one and more apart.
	ReadRule(pending []*wire.Entry) (ok bool, dep wire.ReadDep)
	// WitnessReport adds protocol fields to a witness's RecordAck.
	WitnessReport(c *Core, p *wire.Propose, ack *wire.RecordAck)
	// VouchesUnsynced reports whether the replica keeps a weak-write
	// record of the session that is not on disk yet (Core.RecordSynced):
	// its acknowledgement of the session's strong operations vouches for
	// those records (CURP-HO, PROTOCOL.md 5.8 condition 2), so in durable
	// mode it waits for the disk even for a read (Core.readAckUnsynced).
	VouchesUnsynced(c *Core, client wire.ClientID) bool
	// Committed is called at the leader for every entry that commits and
	// that it answers (Core.answers), in slot order.
	Committed(c *Core, e *wire.Entry)
	// Flush is called once per Core.Ready, after the inputs of a batch
	// were stepped, so that a policy can send what it batched.
	Flush(c *Core)
}

// RecordIndex is a protocol's own index over the witness records (CURP-HO:
// its weak-write records by session, PROTOCOL.md 5.3, 5.5). A Policy that
// implements it is told of every record the witness keeps and of every
// record it drops, whatever the reason (applied, replaced, decided,
// purged by a view or a snapshot), so that the index lists exactly the
// records kept; a protocol without one implements nothing. The core calls
// it from its own goroutine, inside the step that changes the record.
type RecordIndex interface {
	// RecordKept is told of a record the witness now keeps.
	RecordKept(r wire.Record)
	// RecordDropped is told of a record the witness no longer keeps.
	RecordDropped(r wire.Record)
	// CheckRecords verifies the index against the records c keeps
	// (Core.CheckWitness).
	CheckRecords(c *Core) error
}

// BasePolicy implements the hooks with plain CURP behaviour; protocols
// embed it and override what they change.
type BasePolicy struct{}

// HandleClient knows no extra messages.
func (BasePolicy) HandleClient(*Core, wire.ClientID, wire.Message) bool { return false }

// StrongDep waits for the command the proposal names in WeakDep: an
// earlier strong command of its session that it is ordered after (the
// client's Op.Ordered, docs/DECISIONS.md 45; plain CURP has no weak
// dependencies).
func (BasePolicy) StrongDep(p *wire.Propose) (wire.CmdID, bool) {
	return wire.CmdID{Client: p.Cmd.Client, Seq: p.WeakDep}, p.WeakDep > 0
}

// ReadRule: Ok iff no earlier conflicting entry is uncommitted.
func (BasePolicy) ReadRule(pending []*wire.Entry) (bool, wire.ReadDep) {
	return len(pending) == 0, wire.ReadDep{}
}

// WitnessReport adds nothing.
func (BasePolicy) WitnessReport(*Core, *wire.Propose, *wire.RecordAck) {}

// VouchesUnsynced: plain CURP has no weak-write records.
func (BasePolicy) VouchesUnsynced(*Core, wire.ClientID) bool { return false }

// Committed does nothing.
func (BasePolicy) Committed(*Core, *wire.Entry) {}

// Flush does nothing.
func (BasePolicy) Flush(*Core) {}
