package client

import (
	"swiftpaxos/wire"
)

// The lifecycle of an operation: invoked, dispatched (or deferred by the
// policy), re-sent with the same CmdID after RetryAfter of silence, and
// completed once.

// Pending is an operation in flight. All reply state is per operation
// (PROTOCOL.md 10.5): nothing is shared between operations.
type Pending struct {
	Seq       wire.Seq
	Op        Op
	CausalDep wire.Seq // weak writes: the session's previous weak write
	WeakDep   wire.Seq // strong operations: the latest earlier weak write (the policy's barrier dependency)

	// after is the operation in flight an ordered strong operation was
	// ordered behind (order.go); it completes only on the slow path.
	// held: not sent yet, ordered and not sendable, or behind one that
	// is (order.go).
	after wire.Seq
	held  bool
	// atLeader: a strong read last sent to the leader alone
	// (leaderread.go), which holds no slot another could wait for.
	atLeader bool

	invoked, sent int64
	leaderReply   *wire.LeaderReply
	acks          []*wire.RecordAck // by replica
	ackBuf        [inlineAcks]*wire.RecordAck
	target        wire.ReplicaID // weak reads: where the read went
	redirected    bool           // the last re-send follows a NotLeader
	deferred      bool           // deferred by the policy, or held (order.go): not sent
	attempts      int            // re-sends so far
	// retried counts, for a weak read, the replicas in a row that asked
	// for it again (WeakReadReply.Retry) since a send that was not such
	// an answer's (weakread.go).
	retried int
	// evictions is, for a weak read, the session's count of cache
	// evictions when it was last sent (weakread.go).
	evictions uint64
}

// inlineAcks is how many replicas' RecordAcks a Pending holds without
// a second allocation: clusters of up to 5 replicas.
const inlineAcks = 5

// Attempts is the number of times p was re-sent.
func (p *Pending) Attempts() int { return p.attempts }

// Redirected reports whether p is being re-sent because the session
// learned the leader (NotLeader, NewView) rather than after silence.
func (p *Pending) Redirected() bool { return p.redirected }

// Target is the replica p was last sent to, when it went to one replica.
func (p *Pending) Target() wire.ReplicaID { return p.target }

// SetTarget records the replica p is sent to.
func (p *Pending) SetTarget(r wire.ReplicaID) { p.target = r }

// NextSeq is the Seq the next Invoke assigns.
func (s *Core) NextSeq() wire.Seq { return s.seq + 1 }

// Invoke starts an operation and returns its Seq. An expired session
// fails it at once with the reason it expired.
func (s *Core) Invoke(op Op) wire.Seq {
	s.seq++
	now := s.o.Now()
	p := &Pending{Seq: s.seq, Op: op, invoked: now, sent: now}
	s.pending[p.Seq] = p
	if s.expired != nil {
		s.Complete(p, Result{Err: s.expired})
		return p.Seq
	}
	s.order = append(s.order, p.Seq)
	switch {
	case op.Level == wire.Strong:
		p.WeakDep = s.o.Policy.StrongWeakDep(s)
		if s.o.N <= inlineAcks {
			p.acks = p.ackBuf[:s.o.N:s.o.N]
		} else {
			p.acks = make([]*wire.RecordAck, s.o.N)
		}
	case op.Command.IsWrite():
		p.CausalDep = s.lastWeakWrite
		s.lastWeakWrite = p.Seq
	default:
		// Both protocols read at the nearest (CURP-HO: bound) replica
		// (PROTOCOL.md 4.5, 5.7).
		p.target = s.nearest
	}
	if s.hold(p) {
		return p.Seq
	}
	if !s.o.Policy.Defer(s, p) {
		s.Dispatch(p)
	}
	return p.Seq
}

// Dispatch sends p for the first time (or again, after a view change).
func (s *Core) Dispatch(p *Pending) {
	p.sent = s.o.Now()
	switch {
	case p.Op.Level == wire.Strong:
		s.sendStrong(p)
	case p.Op.Command.IsWrite():
		s.o.Policy.SendWeakWrite(s, p)
	default:
		s.sendWeakRead(p)
	}
}

// Deferred reports whether p is waiting for the policy to dispatch it,
// or held by the session (order.go).
func (p *Pending) Deferred() bool { return p.deferred }

// SetDeferred marks p as deferred by the policy (or released).
func (p *Pending) SetDeferred(d bool) { p.deferred = d }

// LeaderReply is the leader's reply p completed with, if any.
func (p *Pending) LeaderReply() *wire.LeaderReply { return p.leaderReply }

func (s *Core) sendStrong(p *Pending) {
	m := &wire.Propose{Cmd: s.CmdID(p.Seq), Command: p.Op.Command, AckUpTo: s.AckUpTo(), WeakDep: s.barrierDep(p)}
	p.atLeader = s.readsAtLeader(p) && (p.attempts == 0 || p.redirected)
	if p.atLeader {
		m.LeaderRead = true
		p.target = s.leader
		s.Send(s.leader, m)
		return
	}
	if s.writesAtLeader(p) && (p.attempts == 0 || p.redirected) {
		p.target = s.leader
		s.Send(s.leader, m)
		return
	}
	s.Broadcast(s.leader, m)
}

// Complete finishes p with r and reports it, as answered by the replica
// whose message the core is stepping (Result.Replica).
func (s *Core) Complete(p *Pending, r Result) { s.complete(p, r, s.from) }

// complete finishes p with r, as answered by replica from.
func (s *Core) complete(p *Pending, r Result, from wire.ReplicaID) {
	if _, ok := s.pending[p.Seq]; !ok {
		return
	}
	delete(s.pending, p.Seq)
	s.finished[p.Seq] = struct{}{}
	for {
		if _, ok := s.finished[s.ackUpTo+1]; !ok {
			break
		}
		delete(s.finished, s.ackUpTo+1)
		s.ackUpTo++
	}
	r.Seq, r.Op, r.Replica = p.Seq, p.Op, from
	s.out.done = append(s.out.done, r)
}

// Tick re-sends, with the same CmdID, every operation that has waited
// RetryAfter since it was last sent.
func (s *Core) Tick() {
	s.o.Policy.Tick(s, s.o.RetryAfter)
	now := s.o.Now()
	keep := s.order[:0]
	for _, seq := range s.order {
		p, ok := s.pending[seq]
		if !ok {
			continue
		}
		keep = append(keep, seq)
		if !p.deferred && now-p.sent >= int64(s.o.RetryAfter) {
			s.resend(p)
		}
	}
	clear(s.order[len(keep):])
	s.order = keep
	s.sendEnd()
}

func (s *Core) resend(p *Pending) {
	p.sent = s.o.Now()
	p.attempts++
	p.retried = 0
	switch {
	case p.Op.Level == wire.Strong:
		s.sendStrong(p)
	case p.Op.Command.IsWrite():
		s.o.Policy.SendWeakWrite(s, p)
	default:
		p.target = s.nextTarget(p.target)
		s.sendWeakRead(p)
	}
}
