package client

import (
	"fmt"
	"time"

	"swiftpaxos/config/quorum"
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// Options configures a session core. Time is injected so that the core is
// deterministic (ARCHITECTURE.md rule 2).
type Options struct {
	ID      wire.ClientID
	N       int
	Leader  wire.ReplicaID // initial guess of the leader
	Nearest wire.ReplicaID // nearest (CURP-HT) or bound (CURP-HO) replica
	Policy  Policy
	// Lost, when set, is told of an operation that completed but was
	// refused afterwards (see Core.Lost).
	Lost func(seq wire.Seq)
	// Ended, when set, is told that the cluster applied the end of the
	// session: the one End asked for (expired false), or the leader's,
	// for being idle (expired true).
	Ended func(expired bool)
	Now   func() int64
	// RetryAfter is how long an operation waits for replies before the
	// same request (same CmdID) is sent again (PROTOCOL.md 3.7).
	RetryAfter time.Duration
	// LeaderReads sends strong reads to the leader alone, which answers
	// from committed state after a leadership round (leaderread.go,
	// docs/DECISIONS.md 46), instead of to every replica.
	LeaderReads bool
	// LeaderWrites sends strong writes to the leader alone, which
	// answers once they are committed, instead of to every replica for
	// CURP's fast path (leaderread.go, docs/DECISIONS.md 48).
	LeaderWrites bool
	// Mutation deliberately breaks a client rule, for checker tests only.
	Mutation Mutation
}

// buildMutation is the mutation real sessions run with: none, unless a
// build tag for demonstrating the checker sets one.
var buildMutation Mutation

// Mutation lists the client rules a test may break on purpose.
type Mutation struct {
	// IgnoreCache returns a weak read's replica answer without the cache
	// merge of PROTOCOL.md 4.6.
	IgnoreCache bool
	// UnorderedPipeline sends an ordered operation whose conflicting
	// predecessors in flight are strong as a plain one: no barrier
	// dependency, and a fast path allowed (order.go).
	UnorderedPipeline bool
	// AcksOfEndedLives counts a witness's acknowledgement toward a fast
	// path even when the leader had heard of a later life of it.
	AcksOfEndedLives bool
}

// Core is the deterministic protocol state of one client session. One
// goroutine owns it.
type Core struct {
	o        Options
	out      outputs
	q        int
	seq      wire.Seq
	ackUpTo  wire.Seq
	finished map[wire.Seq]struct{} // completed operations above ackUpTo
	ballot   wire.Ballot
	leader   wire.ReplicaID
	pending  map[wire.Seq]*Pending
	order    []wire.Seq // pending seqs in issue order, compacted lazily
	held     []wire.Seq // operations held, not sent yet, in Seq order (order.go)
	cache    map[kvs.Key]cacheEntry
	frontier kvs.Slot
	// tentFrontier is the newest tentative version the session read (a
	// slot the old leader had not committed, docs/DECISIONS.md 14): it
	// bounds reads like the frontier until the session learns a new
	// ballot, and is dropped then, since recovery may have moved it (the
	// read ballot then makes replicas wait for the new view's start).
	tentFrontier kvs.Slot
	// evictions counts the cache's evictions (cache.go, evict).
	evictions uint64
	// expired is why the session can do nothing more (nil while it can):
	// the leader refused one of its operations, so its later ones are
	// refused too (ErrRefused, docs/DECISIONS.md 15), or the cluster ended
	// it (ErrExpired, docs/DECISIONS.md 23). ending: End was called;
	// endSent: when the EndSession went out last (0: not yet).
	expired error
	ending  bool
	endSent int64
	// readBallot is the ballot of the last view whose start the session
	// knows. Weak reads carry it, so that a replica in a later view serves
	// them only from state that includes that view's start (PROTOCOL.md
	// 6.5): the session's cached versions and frontier may name slots of an
	// older leader that recovery moved.
	readBallot    wire.Ballot
	parked        map[kvs.Key][]parkedRead
	nearest       wire.ReplicaID // current nearest (bound) replica
	down          []bool         // replicas whose connection is broken
	lastWeakWrite wire.Seq       // Seq of the session's latest weak write
	// from is the replica whose message the core is stepping (NoReplica
	// outside Step): an operation completed by that message was answered
	// by it (Result.Replica).
	from wire.ReplicaID
}

// NewCore builds a session core.
func NewCore(o Options) (*Core, error) {
	if o.N < 3 || o.N%2 == 0 {
		return nil, fmt.Errorf("session: replica count %d must be odd and at least 3", o.N)
	}
	if o.Policy == nil || o.Now == nil {
		return nil, fmt.Errorf("session: a policy and a clock are required")
	}
	if o.RetryAfter <= 0 {
		o.RetryAfter = 2 * time.Second
	}
	return &Core{
		o:        o,
		q:        quorum.Super(o.N),
		finished: make(map[wire.Seq]struct{}),
		leader:   o.Leader,
		pending:  make(map[wire.Seq]*Pending),
		cache:    make(map[kvs.Key]cacheEntry),
		parked:   make(map[kvs.Key][]parkedRead),
		nearest:  o.Nearest,
		down:     make([]bool, o.N),
		from:     wire.NoReplica,
	}, nil
}

// ID is the session's client id.
func (s *Core) ID() wire.ClientID { return s.o.ID }

// N is the number of replicas.
func (s *Core) N() int { return s.o.N }

// Leader is the leader the session currently believes in.
func (s *Core) Leader() wire.ReplicaID { return s.leader }

// Ballot is the highest ballot the session has seen.
func (s *Core) Ballot() wire.Ballot { return s.ballot }

// Nearest is the nearest (or bound) replica, re-chosen among the live
// ones while the configured one is down.
func (s *Core) Nearest() wire.ReplicaID { return s.nearest }

// AckUpTo is the largest Seq up to which every operation completed and is
// known durable: replicas ignore requests at or below it (PROTOCOL.md 1.5),
// so it must stay below a weak write the session may still re-send.
func (s *Core) AckUpTo() wire.Seq {
	if u := s.o.Policy.OldestUnconfirmed(); u > 0 && u <= s.ackUpTo {
		return u - 1
	}
	return s.ackUpTo
}

// Settled reports whether the session has nothing in flight and no
// completed write that is not yet known durable.
func (s *Core) Settled() bool { return len(s.pending) == 0 && s.o.Policy.OldestUnconfirmed() == 0 }

// InFlight is the number of operations not yet completed.
func (s *Core) InFlight() int { return len(s.pending) }

// Send sends m to a replica (through Ready).
func (s *Core) Send(to wire.ReplicaID, m wire.Message) {
	s.out.msgs = append(s.out.msgs, Envelope{To: to, Msg: m})
}

// Broadcast sends m to every replica, first to first (if valid).
func (s *Core) Broadcast(first wire.ReplicaID, m wire.Message) {
	if first >= 0 && int(first) < s.o.N {
		s.Send(first, m)
	}
	for r := range s.o.N {
		if wire.ReplicaID(r) != first {
			s.Send(wire.ReplicaID(r), m)
		}
	}
}

// CmdID returns the command id of a Seq of this session.
func (s *Core) CmdID(seq wire.Seq) wire.CmdID { return wire.CmdID{Client: s.o.ID, Seq: seq} }

// Step handles one message from a replica.
func (s *Core) Step(from wire.ReplicaID, m wire.Message) {
	s.from = from
	s.step(from, m)
	s.from = wire.NoReplica
}

func (s *Core) step(from wire.ReplicaID, m wire.Message) {
	switch m := m.(type) {
	case *wire.LeaderReply:
		s.onLeaderReply(m)
	case *wire.RecordAck:
		s.onRecordAck(m)
	case *wire.SyncReply:
		s.onSyncReply(m)
	case *wire.WeakReadReply:
		s.onWeakReadReply(m)
	case *wire.NewView:
		s.onNewView(m)
	case *wire.EndSession:
		s.onEndSession(m)
	case *wire.NotLeader:
		// Re-send only when the redirect points elsewhere than where the
		// request went, so that redirects cannot multiply.
		s.noteBallot(m.Ballot, m.Leader)
		if p := s.Lookup(m.Cmd); p != nil && !p.deferred && m.Leader != wire.NoReplica && p.target != m.Leader {
			p.redirected = true
			s.resend(p)
			p.redirected = false
		}
	default:
		s.o.Policy.Handle(s, from, m)
	}
}

// Lookup returns the pending operation of id, or nil.
func (s *Core) Lookup(id wire.CmdID) *Pending {
	if id.Client != s.o.ID {
		return nil
	}
	return s.pending[id.Seq]
}

// LastWeakWrite is the Seq of the session's latest weak write (CURP-HO's
// WeakDep), 0 if none.
func (s *Core) LastWeakWrite() wire.Seq { return s.lastWeakWrite }

// Now is the session's clock.
func (s *Core) Now() int64 { return s.o.Now() }
