package curpho

import (
	"fmt"
	"slices"
	"time"

	"swiftpaxos/client"
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// pendingWrite is an entry of the write set: a weak write of this session
// not yet known durable (PROTOCOL.md 5.6).
type pendingWrite struct {
	seq       wire.Seq
	cmd       kvs.Command
	causalDep wire.Seq
	sent      int64
}

// clientPolicy is the CURP-HO session side. One per session.
type clientPolicy struct {
	m        Mutation
	writeSet []pendingWrite // in Seq order
	// tainted is the strong read that completed through a ONE(w) fast path
	// on a foreign weak write and is not known committed yet; while it is
	// set, new operations are deferred (PROTOCOL.md 5.7).
	tainted      wire.CmdID
	taintedDep   wire.CmdID  // the foreign weak write the tainted read saw
	taintedIn    wire.Ballot // the ballot the tainted read completed in
	taintedSince int64
	deferred     []*client.Pending // in Seq order
}

// NewClientPolicy returns a CURP-HO client policy for one session.
func NewClientPolicy() client.Policy { return NewClientPolicyWith(Mutation{}) }

// NewClientPolicyWith returns a client policy with a deliberate mutation.
func NewClientPolicyWith(m Mutation) client.Policy { return &clientPolicy{m: m} }

// SendWeakWrite broadcasts a weak write, bound replica first; p == nil
// re-sends the whole write set in Seq order (after a barrier retry).
func (c *clientPolicy) SendWeakWrite(s *client.Core, p *client.Pending) {
	if p == nil {
		for i := range c.writeSet {
			c.broadcast(s, &c.writeSet[i])
		}
		return
	}
	i, found := c.find(p.Seq)
	switch {
	case found:
		c.broadcast(s, &c.writeSet[i])
	case p.Attempts() == 0:
		c.writeSet = slices.Insert(c.writeSet, i, pendingWrite{seq: p.Seq, cmd: p.Op.Command, causalDep: p.CausalDep})
		s.SetPendingCache(p.Op.Command, p.Seq)
		c.broadcast(s, &c.writeSet[i])
	default:
		// A retry of a write already known durable (it left the write set)
		// whose acknowledgement was lost: ask again, without touching the
		// cache, which may hold newer writes by now.
		w := pendingWrite{seq: p.Seq, cmd: p.Op.Command, causalDep: p.CausalDep}
		c.broadcast(s, &w)
	}
}

func (c *clientPolicy) broadcast(s *client.Core, w *pendingWrite) {
	w.sent = s.Now()
	s.Broadcast(s.Nearest(), &wire.CausalPropose{
		Cmd: s.CmdID(w.seq), Command: w.cmd, CausalDep: w.causalDep, Bound: s.Nearest(), AckUpTo: s.AckUpTo(),
	})
}

func (c *clientPolicy) find(seq wire.Seq) (int, bool) {
	return slices.BinarySearchFunc(c.writeSet, seq, func(w pendingWrite, s wire.Seq) int {
		switch {
		case w.seq < s:
			return -1
		case w.seq > s:
			return 1
		}
		return 0
	})
}

// dropBelow removes the write-set entries with Seq < seq that are known
// durable. An entry whose value the cache still holds as pending stays
// (and keeps being re-sent) until a WeakCommit gives it its slot.
func (c *clientPolicy) dropBelow(s *client.Core, seq wire.Seq) {
	c.writeSet = slices.DeleteFunc(c.writeSet, func(w pendingWrite) bool {
		return w.seq < seq && !s.AwaitsSlot(w.cmd.Key, w.seq)
	})
}

// Handle completes weak writes (CausalReply from the bound replica, or
// their commit) and tracks durability (WeakCommit, SyncReply).
func (c *clientPolicy) Handle(s *client.Core, from wire.ReplicaID, m wire.Message) bool {
	switch m := m.(type) {
	case *wire.CausalReply:
		// The bound replica acknowledges before the write is ordered, let
		// alone executed: what it found is not known (Result.Known).
		if p := s.Lookup(m.Cmd); p != nil && p.Op.Level == wire.Weak && m.Replica == s.Nearest() {
			s.Complete(p, client.Result{Path: client.PathWeak})
		}
	case *wire.WeakCommit:
		refused := false
		for _, sc := range m.Commits {
			if sc.Cmd.Client != s.ID() {
				continue
			}
			if sc.Refused {
				refused = true
				continue
			}
			if i, found := c.find(sc.Cmd.Seq); found {
				if sc.Slot > 0 {
					s.SettleCache(c.writeSet[i].cmd.Key, sc.Cmd.Seq, sc.Slot)
				}
				c.writeSet = slices.Delete(c.writeSet, i, i+1)
			}
			if p := s.Lookup(sc.Cmd); p != nil && p.Op.Level == wire.Weak {
				s.Complete(p, client.Result{Version: sc.Slot, Slot: sc.Slot, Path: client.PathWeak})
			}
		}
		if refused {
			// The chain is broken: the session is over (docs/DECISIONS.md 15).
			s.Expire()
		}
	case *wire.SyncReply:
		if m.Cmd.Client == s.ID() {
			c.dropBelow(s, m.WeakCommittedSeq+1)
		}
		// The tainted read, or the foreign write it saw, is applied: the
		// write is committed and can no longer be lost.
		if !c.tainted.IsZero() && (m.Cmd == c.tainted || m.Cmd == c.taintedDep) {
			c.untaint(s)
		}
	case *wire.NewView:
		// A later view whose start is committed has committed every write
		// the tainted read could have seen and recovery could find; the
		// write it saw was kept by a super-quorum, so it is one of them.
		if m.Committed && !c.tainted.IsZero() && m.Ballot > c.taintedIn {
			c.untaint(s)
		}
	default:
		return false
	}
	return true
}

// OldestUnconfirmed is the oldest write-set entry.
func (c *clientPolicy) OldestUnconfirmed() wire.Seq {
	if len(c.writeSet) == 0 {
		return 0
	}
	return c.writeSet[0].seq
}

// StrongWeakDep names the session's latest weak write for the barrier.
func (c *clientPolicy) StrongWeakDep(s *client.Core) wire.Seq { return s.LastWeakWrite() }

// FastPathAck checks conditions 2 and 3 of PROTOCOL.md 5.8 for one ack.
func (c *clientPolicy) FastPathAck(s *client.Core, p *client.Pending, lr *wire.LeaderReply, a *wire.RecordAck) bool {
	if !c.m.NoCausalDeps {
		for _, w := range c.writeSet {
			if w.seq >= p.Seq {
				break
			}
			if w.seq > a.DepCommittedSeq && !slices.Contains(a.CausalDeps, s.CmdID(w.seq)) {
				return false
			}
		}
	}
	if p.Op.Command.ReadsState() && !c.m.NoReadDep && !a.ReadDep.Matches(lr.ReadDep) {
		return false
	}
	return true
}

// StrongCompleted drops the write-set entries the operation made durable
// and sets the tainted rule after a ONE(w) fast path on a foreign write.
func (c *clientPolicy) StrongCompleted(s *client.Core, p *client.Pending, r client.Result) {
	c.dropBelow(s, p.Seq)
	lr := p.LeaderReply()
	if r.Path == client.PathFast && p.Op.Command.ReadsState() && lr != nil &&
		lr.ReadDep.Kind == wire.DepOne && lr.ReadDep.Cmd.Client != s.ID() {
		c.tainted, c.taintedDep, c.taintedIn = s.CmdID(p.Seq), lr.ReadDep.Cmd, lr.Ballot
		c.taintedSince = s.Now()
	}
}

// Abandon drops the write set and the deferred operations of an expired
// session; the writes of the set that completed are lost.
func (c *clientPolicy) Abandon(s *client.Core) []wire.Seq {
	var lost []wire.Seq
	for _, w := range c.writeSet {
		if s.Lookup(s.CmdID(w.seq)) == nil {
			lost = append(lost, w.seq)
		}
	}
	c.writeSet, c.deferred = nil, nil
	c.tainted, c.taintedDep = wire.CmdID{}, wire.CmdID{}
	return lost
}

// Defer defers writes while the session is tainted, and everything after
// a deferred operation so that deferred writes keep their session order.
func (c *clientPolicy) Defer(s *client.Core, p *client.Pending) bool {
	if len(c.deferred) == 0 && (c.tainted.IsZero() || !p.Op.Command.IsWrite()) {
		return false
	}
	p.SetDeferred(true)
	c.deferred = append(c.deferred, p)
	return true
}

// Tick re-sends write-set entries that are not known durable after a
// retry period (an acknowledged weak write is lost only if the client and
// the leader both crash, PROTOCOL.md 6.8), and asks the leader again for
// the tainted read's result if its SyncReply is overdue.
func (c *clientPolicy) Tick(s *client.Core, retry time.Duration) {
	now := s.Now()
	for i := range c.writeSet {
		if now-c.writeSet[i].sent >= int64(retry) {
			c.broadcast(s, &c.writeSet[i])
		}
	}
	if !c.tainted.IsZero() && now-c.taintedSince >= int64(retry) {
		// Any replica that applied either command answers. The read may
		// have died with its leader (reads are never replayed), but the
		// write it saw was kept by a super-quorum and is recovered.
		c.taintedSince = now
		s.Broadcast(s.Leader(), &wire.Sync{Cmd: c.tainted})
		s.Broadcast(s.Leader(), &wire.Sync{Cmd: c.taintedDep})
	}
}

func (c *clientPolicy) untaint(s *client.Core) {
	c.tainted, c.taintedDep = wire.CmdID{}, wire.CmdID{}
	c.release(s)
}

func (c *clientPolicy) release(s *client.Core) {
	deferred := c.deferred
	c.deferred = nil
	for _, p := range deferred {
		p.SetDeferred(false)
		s.Dispatch(p)
	}
}

func (c *clientPolicy) String() string {
	seqs := make([]wire.Seq, len(c.writeSet))
	for i, w := range c.writeSet {
		seqs[i] = w.seq
	}
	return fmt.Sprintf("writeSet=%v tainted=%v deferred=%d", seqs, c.tainted, len(c.deferred))
}
