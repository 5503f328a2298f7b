package replica

import (
	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
)

// WeakWrite is a weak write handed to the leader by a protocol policy.
type WeakWrite struct {
	From      wire.ClientID
	Cmd       wire.CmdID
	Command   kvs.Command
	CausalDep wire.Seq
	AckUpTo   wire.Seq
}

// heldRequest is a request the leader holds until the command it depends
// on has a slot (PROTOCOL.md 4.5 step 2, 5.4).
type heldRequest struct {
	since  int64
	from   wire.ClientID
	strong *wire.Propose
	weak   *WeakWrite
}

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
			c.hold(dep, heldRequest{from: from, strong: p})
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
	if r, held := c.wit.get(p.Cmd); held {
		// The ack carries the ballot the record was accepted in: a fast
		// path counts acceptances of one ballot (PROTOCOL.md 1.7, 6.4).
		ack.Ok, ack.Ballot = r.Accepted, r.Ballot
	} else {
		ack.Ok = c.o.Mutation.WitnessAcceptsAll || !c.wit.conflictsStrong(p.Command)
		c.wit.add(wire.Record{Cmd: p.Cmd, Command: p.Command, Level: wire.Strong, Accepted: ack.Ok, Ballot: c.ballot, CausalDep: p.WeakDep}, c.o.Now())
	}
	c.policy.WitnessReport(c, p, ack)
	c.out.toClient(from, ack)
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
	c.out.toClient(from, &wire.LeaderReply{
		Replica: c.o.ID, Ballot: c.ballot, Cmd: p.Cmd, Ok: ok,
		Result: res.Value, Version: res.Version, Items: res.Items, Slot: s, ReadDep: dep,
	})
	c.releaseHeld(p.Cmd)
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
		lo, hi := cmd.KeyRange()
		for k := lo; ; k++ {
			c.scratchSlots = c.keys.uncommittedWrites(k, c.commitIndex, c.scratchSlots[:0])
			for _, s := range c.scratchSlots {
				pending = append(pending, c.entries.at(s))
			}
			if k == hi {
				break
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
			c.hold(dep, heldRequest{from: w.From, weak: &w})
			return
		}
	}
	c.appendEntry(wire.Entry{Ballot: c.ballot, Cmd: w.Cmd, Command: w.Command, Level: wire.Weak, CausalDep: w.CausalDep, AckUpTo: w.AckUpTo})
	c.releaseHeld(w.Cmd)
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
	c.match[c.o.ID] = s
	return s
}

func (c *Core) hold(dep wire.CmdID, h heldRequest) {
	h.since = c.o.Now()
	if _, ok := c.held[dep]; !ok {
		c.heldOrder = append(c.heldOrder, dep)
	}
	c.held[dep] = append(c.held[dep], h)
}

// releaseHeld re-runs, in arrival order, the requests that waited for id.
func (c *Core) releaseHeld(id wire.CmdID) {
	hs, ok := c.held[id]
	if !ok {
		return
	}
	delete(c.held, id)
	for _, h := range hs {
		if h.strong != nil {
			c.onPropose(h.from, h.strong)
		} else {
			c.ProposeWeak(*h.weak)
		}
	}
}

// expireHeld answers strong requests held too long with a retry and drops
// weak ones; the client re-sends its unconfirmed weak writes in order
// (PROTOCOL.md 5.4).
func (c *Core) expireHeld(now int64) {
	keep := c.heldOrder[:0]
	for _, dep := range c.heldOrder {
		hs, ok := c.held[dep]
		if !ok {
			continue
		}
		if now-hs[0].since < int64(c.o.BarrierWait) {
			keep = append(keep, dep)
			continue
		}
		delete(c.held, dep)
		for _, h := range hs {
			if h.strong != nil {
				c.out.toClient(h.from, &wire.LeaderReply{Replica: c.o.ID, Ballot: c.ballot, Cmd: h.strong.Cmd, Retry: true})
			}
		}
	}
	clear(c.heldOrder[len(keep):])
	c.heldOrder = keep
}

// onSync answers with the stored result of an applied command. A command
// applied so long ago that its result is forgotten (below its session's
// floor, so its own client completed it) is answered with slot 0 and no
// result: that still tells a tainted CURP-HO session that it is committed.
func (c *Core) onSync(from wire.ClientID, m *wire.Sync) {
	if a, ok := c.sessions.appliedResult(m.Cmd); ok {
		c.sendSyncReply(from, m.Cmd, a)
	} else if c.sessions.wasApplied(m.Cmd) {
		c.sendSyncReply(from, m.Cmd, applied{})
	}
}

func (c *Core) sendSyncReply(to wire.ClientID, id wire.CmdID, a applied) {
	var wcs wire.Seq
	if s := c.sessions.peek(id.Client); s != nil {
		wcs = s.weakCommittedSeq
	}
	c.out.toClient(to, &wire.SyncReply{
		Replica: c.o.ID, Ballot: c.ballot, Cmd: id, Refused: a.refused,
		Result: a.result.Value, Version: a.result.Version, Items: a.result.Items, Slot: a.slot, WeakCommittedSeq: wcs,
	})
}
