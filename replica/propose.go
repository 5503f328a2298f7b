package replica

import (
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
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
		if p.LeaderRead {
			// Sent to this replica alone, as to the leader: no witness
			// record, which no commit would ever remove.
			c.out.toClient(from, &wire.NotLeader{Ballot: c.ballot, Leader: c.leader, Cmd: id})
			return
		}
		c.witnessStrong(from, p)
		return
	}
	if _, inLog := c.cmdIndex[id]; inLog {
		return // the SyncReply follows when it is applied
	}
	if p.LeaderRead && c.serveLeaderRead(from, p) {
		return
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
	ack := &wire.RecordAck{Replica: c.o.ID, Ballot: c.ballot, Cmd: p.Cmd, Life: c.incarnation}
	if r, kept := c.wit.get(p.Cmd); kept {
		// The ack carries the ballot the record was accepted in: a fast
		// path counts acceptances of one ballot (PROTOCOL.md 1.7, 6.4).
		ack.Ok, ack.Ballot = r.Accepted, r.Ballot
	} else {
		ack.Ok = c.o.Mutation.WitnessAcceptsAll || !c.wit.conflictsStrong(p.Command) && !c.vouchesForNothing()
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
		Result: res, Slot: s, ReadDep: dep, Lives: c.livesForReplies(),
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
// appended: the command is evaluated as the entry at the next slot.
func (c *Core) speculate(cmd kvs.Command) (kvs.Result, bool, wire.ReadDep) {
	switch {
	case cmd.Op == kvs.OpNoop:
		return kvs.Result{}, true, wire.ReadDep{}
	case cmd.IsWrite():
		// A write's Ok needs no entry above the commit point on its key:
		// the command then commutes with everything unordered before it.
		// Its result (a DELETE's existed, a CAS's or an INCR's outcome)
		// comes from the key's state after the log prefix, and, as a
		// read's, depends on the writes before it: the protocol's read
		// rule judges them too (CURP-HO's weak writes not yet ordered).
		res, _, _ := c.store.Eval(c.entries.last()+1, cmd, c.logOverlay())
		ok := !c.keys.touchedAbove(cmd.Key, c.commitIndex)
		if !cmd.ReadsState() {
			return res, ok, wire.ReadDep{}
		}
		readOk, dep := c.readRule(cmd)
		return res, ok && readOk, dep
	}
	res := c.readOverLog(cmd)
	ok, dep := c.readRule(cmd)
	return res, ok, dep
}

// readRule is the protocol's rule for a command that reads state, over
// the uncommitted writes of the keys it reads (PROTOCOL.md 3.5, 5.7).
func (c *Core) readRule(cmd kvs.Command) (bool, wire.ReadDep) {
	pending := c.scratchEnts[:0]
	c.scratchSlots = c.keys.uncommittedWrites(cmd, c.commitIndex, c.scratchSlots[:0], 2)
	for _, s := range c.scratchSlots {
		pending = append(pending, c.entries.at(s))
	}
	ok, dep := c.policy.ReadRule(pending)
	clear(pending)
	c.scratchEnts = pending[:0]
	return ok, dep
}

// readOverLog evaluates a read against the store overlaid with the
// unapplied writes of the log.
func (c *Core) readOverLog(cmd kvs.Command) kvs.Result {
	return c.store.ReadOver(cmd, c.logOverlay())
}

// logOverlay is the kvs.Overlay of the log suffix, or none under the
// mutation that speculates from the applied store alone.
func (c *Core) logOverlay() kvs.Overlay {
	if c.o.Mutation.SpeculateFromStore {
		return nil
	}
	return logOverlay{c}
}

// logOverlay shadows the store with each key's state after the unapplied
// writes of the log (the spec's lastWrite, PROTOCOL.md 3.1).
type logOverlay struct{ c *Core }

func (o logOverlay) Lookup(k kvs.Key) (kvs.Entry, bool) {
	w := o.c.keys.liveWrites(k)
	if len(w) == 0 {
		return kvs.Entry{}, false
	}
	return o.c.stateAfter(k, w), true
}

func (o logOverlay) Range(start, end kvs.Key, yield func(kvs.Key, kvs.Entry) bool) {
	o.c.keys.rangeWrites(start, end, func(k kvs.Key, w []kvs.Slot) bool { return yield(k, o.c.stateAfter(k, w)) })
}

// stateAfter is key k's state after its unapplied writes w (slots, in
// order). It starts from the state kept for the key's latest write
// (keyState.spec) or the one before it, else from the applied store at
// the last PUT or DELETE (which sets the key whatever it held), and
// evaluates the CASes and INCRs after that; the result is kept for the
// next call.
func (c *Core) stateAfter(k kvs.Key, w []kvs.Slot) kvs.Entry {
	st := c.keys.m[k]
	n := len(w)
	one := &c.scratchKey
	switch {
	case c.keeps(st, w[n-1]):
		return st.spec
	case n > 1 && c.keeps(st, w[n-2]):
		*one, w = oneKey{e: st.spec}, w[n-1:]
	default:
		from := 0
		for i := n - 1; i >= 0; i-- {
			if op := c.entries.at(w[i]).Command.Op; op == kvs.OpPut || op == kvs.OpDelete {
				from = i
				break
			}
		}
		*one, w = oneKey{e: c.store.Get(k)}, w[from:]
	}
	for _, s := range w {
		if _, wr, ok := c.store.Eval(s, c.entries.at(s).Command, one); ok {
			one.e = wr.Entry
		}
	}
	if st != nil {
		last := w[len(w)-1]
		st.specOK, st.specAt, st.specBallot, st.spec = true, last, c.entries.at(last).Ballot, one.e
	}
	return one.e
}

// keeps reports whether st holds the key's state after the write at slot
// s: the same slot and the same ballot name the same entry.
func (c *Core) keeps(st *keyState, s kvs.Slot) bool {
	return st != nil && st.specOK && st.specAt == s && c.entries.at(s).Ballot == st.specBallot
}

// oneKey is the overlay of one key's state, for evaluating the writes of
// that key in turn (stateAfter).
type oneKey struct{ e kvs.Entry }

func (o *oneKey) Lookup(kvs.Key) (kvs.Entry, bool)                    { return o.e, true }
func (o *oneKey) Range(_, _ kvs.Key, _ func(kvs.Key, kvs.Entry) bool) {}

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
