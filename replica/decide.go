package replica

import (
	"cmp"
	"slices"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// The leader decides every witness record it is shown (PROTOCOL.md 3.4
// rules 4 and 6, docs/DECISIONS.md 15). A record that has not committed for
// WitnessSyncAge is flushed to the leader, which either appends the command
// (through the same barrier and causal chain as a fresh request) or, when
// the command's session predecessor is refused or stays missing for
// RefuseAfter, appends a refusal. Either outcome is a log entry, so every
// witness drops the record when it applies that entry, and never earlier:
// an accepted strong record of a silent client stays until the leader has
// decided it, however long a partition lasts.

// flushStaleRecords hands the leader the witness records that have not
// committed for WitnessSyncAge; the leader decides its own. A record is
// shown again after another WitnessSyncAge, in case the leader changed.
func (c *Core) flushStaleRecords(now int64) {
	// A founding leader appends nothing (founding.go): its stale
	// records wait, and are flushed once it serves.
	if c.leader == wire.NoReplica || c.rec != nil || c.role == Candidate || c.founded != nil {
		return
	}
	age := int64(c.o.WitnessSyncAge)
	var stale []wire.Record
	for _, r := range c.wit.byCmd {
		if now-r.lastFlushed >= age {
			r.lastFlushed = now
			rec := r.Record
			rec.Age = uint64(now - r.born)
			stale = append(stale, rec)
		}
	}
	if len(stale) == 0 {
		return
	}
	slices.SortFunc(stale, func(a, b wire.Record) int { return cmp.Compare(a.Arrival, b.Arrival) })
	if c.role == Leader {
		c.decide(stale)
		return
	}
	c.out.toReplica(c.leader, &wire.WitnessSync{Records: stale})
}

func (c *Core) onWitnessSync(m *wire.WitnessSync) {
	// A founding leader appends nothing (founding.go); the witnesses
	// send their stale records again.
	if c.role == Leader && c.rec == nil && c.founded == nil {
		c.decide(m.Records)
	}
}

// decide gives every record an outcome in the log, now or (for records
// that wait for a predecessor) once the predecessor has a slot.
func (c *Core) decide(recs []wire.Record) {
	for i := range recs {
		r := &recs[i]
		if r.Cmd.IsZero() || c.sessions.ignorable(r.Cmd) || c.HasSlot(r.Cmd) {
			continue // the outcome is in the log, or the client completed it
		}
		if c.sessionClosed(r.Cmd.Client) {
			// The session is over: the command never executes, and the
			// refusal is the outcome every witness waits for.
			c.appendRefusal(r.Cmd, r.Level, r.CausalDep)
			continue
		}
		if dep, ok := c.recordDep(r); ok && !c.HasSlot(dep) && r.Age >= uint64(c.o.RefuseAfter) && c.silent(r.Cmd.Client) {
			c.appendRefusal(r.Cmd, r.Level, r.CausalDep)
			continue
		}
		if r.Level == wire.Weak {
			c.ProposeWeak(WeakWrite{From: r.Cmd.Client, Cmd: r.Cmd, Command: r.Command, CausalDep: r.CausalDep})
			continue
		}
		// The normal path, so that the barrier holds for flushed records
		// too (the record keeps the proposal's WeakDep).
		c.onPropose(r.Cmd.Client, &wire.Propose{Cmd: r.Cmd, Command: r.Command, WeakDep: r.CausalDep})
	}
}

// silent reports whether this leader has not heard from the client for
// RefuseAfter (counting from when it became leader): a live client re-sends
// the predecessors it is missing, so its records wait; only a session that
// has gone quiet (crashed, or cut off from the leader) is refused.
func (c *Core) silent(client wire.ClientID) bool {
	since := c.leaderSince
	if s := c.sessions.peek(client); s != nil {
		since = max(since, s.heard)
	}
	return c.o.Now()-since >= int64(c.o.RefuseAfter)
}

// recordDep is the command a record's command must follow in the log: a
// weak write's CausalDep, a strong command's barrier dependency.
func (c *Core) recordDep(r *wire.Record) (wire.CmdID, bool) {
	if r.Level == wire.Weak {
		return wire.CmdID{Client: r.Cmd.Client, Seq: r.CausalDep}, r.CausalDep > 0
	}
	return c.policy.StrongDep(&wire.Propose{Cmd: r.Cmd, Command: r.Command, WeakDep: r.CausalDep})
}

// appendRefusal decides id for good: it never executes. Requests barred
// on it are re-run and, depending on a refused command, refused in turn.
func (c *Core) appendRefusal(id wire.CmdID, level wire.Level, dep wire.Seq) {
	c.appendEntry(wire.Entry{Ballot: c.ballot, Cmd: id, Command: kvs.Command{Op: kvs.OpNoop}, Level: level, CausalDep: dep})
	c.releaseBarred(id)
}

// refused reports whether id's slot holds the leader's refusal of it.
func (c *Core) refused(id wire.CmdID) bool {
	if s, ok := c.cmdIndex[id]; ok {
		return c.entries.at(s).IsRefusal()
	}
	a, ok := c.sessions.appliedResult(id)
	return ok && a.refused
}

// Outcome tells what this replica knows of id's fate: its slot (0 when
// forgotten below the session's floor), whether it is committed, and
// whether that slot refuses it.
func (c *Core) Outcome(id wire.CmdID) (slot kvs.Slot, committed, refused bool) {
	if s, ok := c.cmdIndex[id]; ok {
		return s, s <= c.commitIndex, c.entries.at(s).IsRefusal()
	}
	if a, ok := c.sessions.appliedResult(id); ok {
		return a.slot, true, a.refused
	}
	return 0, c.sessions.wasApplied(id), false
}
