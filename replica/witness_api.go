package replica

import (
	"cmp"
	"slices"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// Admit notes the request's AckUpTo and reports whether a request for id
// must be processed: false when the client has declared it complete
// (PROTOCOL.md 1.5) or it was already applied here.
func (c *Core) Admit(id wire.CmdID, ackUpTo wire.Seq) bool {
	c.sessions.noteAck(id.Client, ackUpTo)
	return !c.sessions.ignorable(id) && !c.sessions.wasApplied(id)
}

// Keep keeps a witness record that a protocol creates itself (CURP-HO's
// weak-write records, PROTOCOL.md 5.3), unless one is kept for its command
// already or this replica is not a member (3.4 rule 2, 6.10). The record
// gets this replica's ballot and its place in the arrival order, as the
// core's own records do.
func (c *Core) Keep(rec wire.Record) {
	if _, kept := c.wit.get(rec.Cmd); kept || !c.member {
		return
	}
	rec.Ballot = c.ballot
	c.wit.add(rec, c.o.Now())
}

// Kept returns the witness record kept for id, if any.
func (c *Core) Kept(id wire.CmdID) (wire.Record, bool) {
	r, ok := c.wit.get(id)
	if !ok {
		return wire.Record{}, false
	}
	return r.Record, true
}

// KeptWrites appends to out the kept write records overlapping the key
// range of cmd, key by key in arrival order, at most limit of them (0:
// all). A rule that tells none, one and more apart asks for two, so that
// a key with hundreds of records (a pipeline's writes) costs it two steps.
func (c *Core) KeptWrites(cmd kvs.Command, out []wire.Record, limit int) []wire.Record {
	return c.wit.writesOn(cmd, out, limit)
}

// WeakCommittedSeq is the largest Seq of the session's weak writes applied
// here; by the causal chain every earlier weak write is applied too.
func (c *Core) WeakCommittedSeq(client wire.ClientID) wire.Seq {
	if s := c.sessions.peek(client); s != nil {
		return s.weakCommittedSeq
	}
	return 0
}

// CheckWitness verifies that the witness's indexes, and the policy's own
// index over its records if it keeps one, agree (no record is listed that
// nothing can remove); tests and the simulator call it.
func (c *Core) CheckWitness() error {
	if err := c.wit.check(); err != nil {
		return err
	}
	if c.wit.index != nil {
		return c.wit.index.CheckRecords(c)
	}
	return nil
}

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
