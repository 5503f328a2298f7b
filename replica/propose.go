package replica

import (
	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
)

func (c *Core) onPropose(from wire.ClientID, p *wire.Propose) {
	id := p.Cmd
	c.sessions.noteAck(id.Client, p.AckUpTo)
	if c.sessions.ignorable(id) {
		return
	}
	if a, ok := c.sessions.appliedResult(id); ok {
		if c.role == Leader {
			c.sendSyncReply(from, id, a)
		}
		return
	}
	if c.role != Leader {
		c.witnessStrong(from, p)
		return
	}
	if _, inLog := c.cmdIndex[id]; inLog {
		return // the SyncReply follows when it is applied
	}
	if dep, wait := c.policy.StrongDep(p); wait {
		if c.refused(dep) {
			c.appendRefusal(p.Cmd, wire.Strong, p.WeakDep)
			return
		}
		if !c.HasSlot(dep) {
			c.bar(dep, barredRequest{from: from, strong: p})
			return
		}
	}
	c.appendStrong(from, p)
}

// witnessStrong records a strong request at a non-leader witness and
// acknowledges it (PROTOCOL.md 3.4 rules 1-2, 5.5).
func (c *Core) witnessStrong(from wire.ClientID, p *wire.Propose) {
	if !c.member {
		return // a learner is no witness (PROTOCOL.md 6.10)
	}
	ack := &wire.RecordAck{Replica: c.o.ID, Ballot: c.ballot, Cmd: p.Cmd}
	if r, kept := c.wit.get(p.Cmd); kept {
		// The ack carries the ballot the record was accepted in: a fast
		// path counts acceptances of one ballot (PROTOCOL.md 1.7, 6.4).
		ack.Ok, ack.Ballot = r.Accepted, r.Ballot
	} else {
		ack.Ok = c.o.Mutation.WitnessAcceptsAll || !c.wit.conflictsStrong(p.Command)
		c.wit.add(wire.Record{Cmd: p.Cmd, Command: p.Command, Level: wire.Strong, Accepted: ack.Ok, Ballot: c.ballot, CausalDep: p.WeakDep}, c.o.Now())
	}
	c.policy.WitnessReport(c, p, ack)
	c.ackStrong(from, p, ack.ReadDep, ack)
}

// appendStrong assigns the next slot to a strong command and answers with
// the speculative result (PROTOCOL.md 3.5).
func (c *Core) appendStrong(from wire.ClientID, p *wire.Propose) {
	res, ok, dep := c.speculate(p.Command)
	if c.o.Mutation.AlwaysOk {
		ok = true
	}
	s := c.appendEntry(wire.Entry{Ballot: c.ballot, Cmd: p.Cmd, Command: p.Command, Level: wire.Strong, AckUpTo: p.AckUpTo})
	c.wit.add(wire.Record{Cmd: p.Cmd, Command: p.Command, Level: wire.Strong, Accepted: ok, Ballot: c.ballot, CausalDep: p.WeakDep}, c.o.Now())
	c.ackStrong(from, p, dep, &wire.LeaderReply{
		Replica: c.o.ID, Ballot: c.ballot, Cmd: p.Cmd, Ok: ok,
		Result: res.Value, Version: res.Version, Items: res.Items, Slot: s, ReadDep: dep,
	})
	c.releaseBarred(p.Cmd)
}

// ackStrong sends the leader's reply or a witness's acknowledgement of
// strong request p; in durable mode a read's may leave before the disk
// has its batch (readAckUnsynced).
func (c *Core) ackStrong(from wire.ClientID, p *wire.Propose, dep wire.ReadDep, m wire.Message) {
	if c.readAckUnsynced(p, dep) {
		c.out.toClientUnsynced(from, m)
		return
	}
	c.out.toClient(from, m)
}

// speculate computes a command's result over the log prefix and the
// leader's Ok (PROTOCOL.md 3.5). It must run before the command is
// appended.
func (c *Core) speculate(cmd kvs.Command) (kvs.Result, bool, wire.ReadDep) {
	switch cmd.Op {
	case kvs.OpPut:
		return kvs.Result{}, !c.keys.touchedAbove(cmd.Key, c.commitIndex), wire.ReadDep{}
	case kvs.OpGet, kvs.OpScan:
		res := c.readOverLog(cmd)
		pending := c.scratchEnts[:0]
		for k := range cmd.Keys() {
			c.scratchSlots = c.keys.uncommittedWrites(k, c.commitIndex, c.scratchSlots[:0])
			for _, s := range c.scratchSlots {
				pending = append(pending, c.entries.at(s))
			}
		}
		ok, dep := c.policy.ReadRule(pending)
		clear(pending)
		c.scratchEnts = pending[:0]
		return res, ok, dep
	}
	return kvs.Result{}, true, wire.ReadDep{}
}

// readOverLog evaluates a read against the store overlaid with the
// latest unapplied write of each key.
func (c *Core) readOverLog(cmd kvs.Command) kvs.Result {
	if c.o.Mutation.SpeculateFromStore {
		return c.store.Read(cmd)
	}
	return c.store.ReadOver(cmd, c.unappliedWrite)
}

// unappliedWrite is the kvs.Overlay of the log suffix: the latest unapplied
// write of k, if any (the spec's lastWrite, PROTOCOL.md 3.1).
func (c *Core) unappliedWrite(k kvs.Key) (kvs.Value, kvs.Slot, bool) {
	if s, ok := c.keys.lastWrite(k); ok {
		return c.entries.at(s).Command.Value, s, true
	}
	return nil, 0, false
}

// HasSlot reports whether id is in the log or was applied.
func (c *Core) HasSlot(id wire.CmdID) bool {
	if _, ok := c.cmdIndex[id]; ok {
		return true
	}
	return c.sessions.wasApplied(id)
}

// SlotOf returns the slot of id if it is in the log or still remembered
// as applied.
func (c *Core) SlotOf(id wire.CmdID) (kvs.Slot, bool) {
	if s, ok := c.cmdIndex[id]; ok {
		return s, true
	}
	a, ok := c.sessions.appliedResult(id)
	return a.slot, ok
}

func (c *Core) appendEntry(e wire.Entry) kvs.Slot {
	s := c.entries.append(e)
	c.cmdIndex[e.Cmd] = s
	c.keys.add(s, e.Command)
	c.match[c.o.ID] = c.selfMatch()
	return s
}
