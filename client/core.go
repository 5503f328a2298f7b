package client

import (
	"fmt"
	"slices"
	"time"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
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
}

// Pending is an operation in flight. All reply state is per operation
// (PROTOCOL.md 10.5): nothing is shared between operations.
type Pending struct {
	Seq       wire.Seq
	Op        Op
	CausalDep wire.Seq // weak writes: the session's previous weak write
	WeakDep   wire.Seq // strong operations: the latest earlier weak write

	invoked, sent int64
	leaderReply   *wire.LeaderReply
	acks          []*wire.RecordAck // by replica
	target        wire.ReplicaID    // weak reads: where the read went
	redirected    bool              // the last re-send follows a NotLeader
	deferred      bool              // held back by the policy
	attempts      int               // re-sends so far
}

// Attempts is the number of times p was re-sent.
func (p *Pending) Attempts() int { return p.attempts }

// Redirected reports whether p is being re-sent because the session
// learned the leader (NotLeader, NewView) rather than after silence.
func (p *Pending) Redirected() bool { return p.redirected }

// Target is the replica p was last sent to, when it went to one replica.
func (p *Pending) Target() wire.ReplicaID { return p.target }

// SetTarget records the replica p is sent to.
func (p *Pending) SetTarget(r wire.ReplicaID) { p.target = r }

// NextReplica is the replica after r in turn that is not known down.
func (s *Core) NextReplica(r wire.ReplicaID) wire.ReplicaID { return s.nextTarget(r) }

// cacheEntry is a value the session wrote or read, with the slot of its
// source write (PROTOCOL.md 4.4). Pending entries are the session's own
// writes whose slot is not known yet (CURP-HO).
type cacheEntry struct {
	value   kvs.Value
	version kvs.Slot
	pending bool
	src     wire.Seq // own write that created a pending entry
	// A pending entry may also know a settled value that completed while
	// it was pending (an own strong write or a strong read that was
	// concurrent with the pending write). Which of the two is newer is
	// known only when the pending write settles; until then weak reads of
	// the key wait (PROTOCOL.md 2.2: concurrent operations of a session
	// may be ordered either way across a failover).
	alt        kvs.Value
	altVersion kvs.Slot
	// tentative: the version is a slot a leader assigned but had not
	// committed when its fast-path reply came; recovery may move it.
	tentative bool
}

// ambiguous reports whether the entry's newest value is not known yet.
func (e cacheEntry) ambiguous() bool { return e.pending && e.altVersion > 0 }

// parkedRead is a weak read reply waiting for an ambiguous entry to settle.
type parkedRead struct {
	p     *Pending
	reply *wire.WeakReadReply
}

// maxCache bounds the cache; past it the frontier is raised so that every
// settled entry becomes redundant (PROTOCOL.md 4.6, eviction).
const maxCache = 1 << 14

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
	cache    map[kvs.Key]cacheEntry
	frontier kvs.Slot
	// tentFrontier is the newest tentative version the session read (a
	// slot the old leader had not committed, docs/DECISIONS.md 14): it
	// bounds reads like the frontier until the session learns a new
	// ballot, and is dropped then, since recovery may have moved it (the
	// read ballot then makes replicas wait for the new view's start).
	tentFrontier kvs.Slot
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
	f := (o.N - 1) / 2
	return &Core{
		o:        o,
		q:        f + (f+1)/2 + 1,
		finished: make(map[wire.Seq]struct{}),
		leader:   o.Leader,
		pending:  make(map[wire.Seq]*Pending),
		cache:    make(map[kvs.Key]cacheEntry),
		parked:   make(map[kvs.Key][]parkedRead),
		nearest:  o.Nearest,
		down:     make([]bool, o.N),
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

// ReplicaDown tells the session that its connection to r broke. If r was
// its nearest (bound) replica, the session re-binds to the next live one
// and re-sends what it had sent there (PROTOCOL.md 6.6).
func (s *Core) ReplicaDown(r wire.ReplicaID) {
	if r < 0 || int(r) >= s.o.N || s.down[r] {
		return
	}
	s.down[r] = true
	if r != s.nearest {
		return
	}
	for i := 1; i < s.o.N; i++ {
		c := wire.ReplicaID((int(r) + i) % s.o.N)
		if !s.down[c] {
			s.nearest = c
			break
		}
	}
	s.o.Policy.SendWeakWrite(s, nil)
	for _, seq := range s.order {
		if p, ok := s.pending[seq]; ok && !p.deferred && p.Op.Level == wire.Weak {
			s.resend(p)
		}
	}
}

// ReplicaUp tells the session that r is reachable again; the configured
// nearest replica takes its role back.
func (s *Core) ReplicaUp(r wire.ReplicaID) {
	if r < 0 || int(r) >= s.o.N {
		return
	}
	s.down[r] = false
	if r == s.o.Nearest {
		s.nearest = r
	}
}

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
		p.acks = make([]*wire.RecordAck, s.o.N)
	case op.Command.IsWrite():
		p.CausalDep = s.lastWeakWrite
		s.lastWeakWrite = p.Seq
	default:
		p.target = s.o.Policy.WeakReadTarget(s)
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

// Deferred reports whether p is waiting for the policy to dispatch it.
func (p *Pending) Deferred() bool { return p.deferred }

// SetDeferred marks p as held back by the policy (or released).
func (p *Pending) SetDeferred(d bool) { p.deferred = d }

// LeaderReply is the leader's reply p completed with, if any.
func (p *Pending) LeaderReply() *wire.LeaderReply { return p.leaderReply }

// CmdID returns the command id of a Seq of this session.
func (s *Core) CmdID(seq wire.Seq) wire.CmdID { return wire.CmdID{Client: s.o.ID, Seq: seq} }

func (s *Core) sendStrong(p *Pending) {
	s.Broadcast(s.leader, &wire.Propose{Cmd: s.CmdID(p.Seq), Command: p.Op.Command, AckUpTo: s.AckUpTo(), WeakDep: p.WeakDep})
}

// Step handles one message from a replica.
func (s *Core) Step(from wire.ReplicaID, m wire.Message) {
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

// onNewView re-sends everything in flight to the new view: the write set
// first (through the policy), then the operations in Seq order
// (PROTOCOL.md 6.6). Acks of older ballots no longer count.
func (s *Core) onNewView(m *wire.NewView) {
	if m.Ballot > s.readBallot {
		// Everything observed in older views is below the view start now.
		s.readBallot = m.Ballot
		if m.ViewStart > 0 {
			s.frontier = max(s.frontier, m.ViewStart-1)
		}
	}
	if m.Ballot > s.ballot || m.Ballot == s.ballot && m.Leader != s.leader {
		s.noteBallot(m.Ballot, m.Leader)
		s.o.Policy.SendWeakWrite(s, nil)
		for _, seq := range s.order {
			if p, ok := s.pending[seq]; ok && !p.deferred {
				p.redirected = true
				s.resend(p)
				p.redirected = false
			}
		}
	}
	s.o.Policy.Handle(s, m.Leader, m)
}

// Lookup returns the pending operation of id, or nil.
func (s *Core) Lookup(id wire.CmdID) *Pending {
	if id.Client != s.o.ID {
		return nil
	}
	return s.pending[id.Seq]
}

// noteBallot adopts a higher ballot and its leader.
func (s *Core) noteBallot(b wire.Ballot, leader wire.ReplicaID) {
	if b > s.ballot || b == s.ballot && leader != wire.NoReplica {
		if b > s.ballot {
			s.ballot = b
			s.dropSettled()
		}
		if leader != wire.NoReplica {
			s.leader = leader
		}
	}
}

func (s *Core) onLeaderReply(m *wire.LeaderReply) {
	s.noteBallot(m.Ballot, m.Replica)
	p := s.Lookup(m.Cmd)
	if p == nil || p.Op.Level != wire.Strong || m.Ballot < s.ballot {
		return
	}
	if m.Retry {
		// The leader's barrier gave up: re-send the weak writes it waits
		// for, then the proposal (PROTOCOL.md 5.4).
		s.o.Policy.SendWeakWrite(s, nil)
		s.sendStrong(p)
		return
	}
	p.leaderReply = m
	s.tryFast(p)
}

func (s *Core) onRecordAck(m *wire.RecordAck) {
	p := s.Lookup(m.Cmd)
	if p == nil || p.Op.Level != wire.Strong || m.Replica < 0 || int(m.Replica) >= s.o.N {
		return
	}
	p.acks[m.Replica] = m
	s.tryFast(p)
}

// tryFast completes p on the fast path when the leader said Ok and Q-1
// other replicas acknowledged in the same ballot (PROTOCOL.md 3.6, 5.8).
func (s *Core) tryFast(p *Pending) {
	lr := p.leaderReply
	if lr == nil || !lr.Ok || lr.Ballot != s.ballot {
		return
	}
	n := 0
	for r, a := range p.acks {
		if a == nil || wire.ReplicaID(r) == lr.Replica || a.Ballot != lr.Ballot || !a.Ok {
			continue
		}
		if s.o.Policy.FastPathAck(s, p, lr, a) {
			n++
		}
	}
	if n >= s.q-1 {
		s.completeStrong(p, Result{Value: lr.Result, Items: lr.Items, Version: lr.Version, Slot: lr.Slot, Path: PathFast})
	}
}

func (s *Core) onSyncReply(m *wire.SyncReply) {
	// Any replica may answer a Sync, so a SyncReply names no leader.
	s.noteBallot(m.Ballot, wire.NoReplica)
	p := s.Lookup(m.Cmd)
	if p == nil {
		s.o.Policy.Handle(s, m.Replica, m)
		return
	}
	if p.Op.Level != wire.Strong {
		return
	}
	if m.Refused {
		s.Complete(p, Result{Slot: m.Slot, Path: PathSlow, Err: ErrRefused})
		s.Expire()
		return
	}
	s.completeStrong(p, Result{Value: m.Result, Items: m.Items, Version: m.Version, Slot: m.Slot, Path: PathSlow})
	s.o.Policy.Handle(s, m.Replica, m)
}

func (s *Core) completeStrong(p *Pending, r Result) {
	cmd := p.Op.Command
	switch {
	case cmd.Op == kvs.OpPut:
		s.setOwn(cmd.Key, cmd.Value, r.Slot, p.Seq)
		if r.Path == PathFast {
			s.markTentative(cmd.Key, r.Slot)
		}
		r.Value = nil
	case cmd.Op == kvs.OpGet:
		// A fast-path read's source is committed, except a CURP-HO ONE(w)
		// read, whose source w may still move.
		e := cacheEntry{value: r.Value, version: r.Version}
		e.tentative = r.Path == PathFast && p.leaderReply != nil && p.leaderReply.ReadDep.Kind == wire.DepOne
		// The leader ordered the read after the session's earlier weak
		// writes (the CURP-HO barrier), so its value is at least as new
		// as any own pending write issued before it.
		if old, ok := s.cache[cmd.Key]; ok && old.pending && old.src < p.Seq {
			s.put(cmd.Key, e)
		} else {
			s.setCache(cmd.Key, e)
		}
		s.raiseFrontier(r.Version, e.tentative)
	default:
		s.raiseFrontier(r.Version, r.Path == PathFast && p.leaderReply != nil && p.leaderReply.ReadDep.Kind == wire.DepOne)
	}
	s.o.Policy.StrongCompleted(s, p, r)
	s.Complete(p, r)
}

// setCache stores a value the session read: it replaces only an older
// settled entry, never a pending own write.
func (s *Core) setCache(k kvs.Key, e cacheEntry) {
	old, ok := s.cache[k]
	switch {
	case ok && old.pending:
		s.keepAlt(k, old, e.value, e.version)
	case ok && old.version >= e.version:
	default:
		s.put(k, e)
	}
}

// keepAlt remembers a settled value under a pending entry.
func (s *Core) keepAlt(k kvs.Key, e cacheEntry, v kvs.Value, version kvs.Slot) {
	if version > e.altVersion {
		e.alt, e.altVersion = v, version
		s.cache[k] = e
	}
}

// setOwn stores the settled value of the session's own write seq: it
// replaces an older settled entry or a pending own write issued before
// seq. Pipelined writes complete out of order, so an earlier write's
// acknowledgement must not hide a later one (PROTOCOL.md 10.5).
func (s *Core) setOwn(k kvs.Key, v kvs.Value, slot kvs.Slot, seq wire.Seq) {
	old, ok := s.cache[k]
	switch {
	case ok && old.pending && old.src > seq:
		s.keepAlt(k, old, v, slot)
	case ok && !old.pending && old.version >= slot:
	default:
		s.put(k, cacheEntry{value: v, version: slot})
	}
}

func (s *Core) put(k kvs.Key, e cacheEntry) {
	if _, ok := s.cache[k]; !ok && len(s.cache) >= maxCache {
		s.evict()
	}
	s.cache[k] = e
	s.releaseParked(k)
}

// releaseParked completes the weak reads of k that waited for its entry to
// stop being ambiguous.
func (s *Core) releaseParked(k kvs.Key) {
	parked := s.parked[k]
	if len(parked) == 0 || s.cache[k].ambiguous() {
		return
	}
	delete(s.parked, k)
	for _, pr := range parked {
		// Only the answer to the read's latest attempt counts, and only
		// while the read is pending.
		if s.Lookup(pr.reply.Cmd) != pr.p || pr.reply.Attempt != uint32(pr.p.attempts) {
			continue
		}
		if pr.reply.Ballot < s.ballot {
			// The session learnt a new ballot while the answer waited, and
			// dropped the tentative entries that covered what the old
			// view's state may lack: ask again (as onWeakReadReply does).
			s.resend(pr.p)
			continue
		}
		s.finishWeakRead(pr.p, pr.reply)
	}
}

// SetPendingCache records the session's own weak write whose slot is not
// known yet (CURP-HO); it is the session's newest write to k.
func (s *Core) SetPendingCache(k kvs.Key, v kvs.Value, src wire.Seq) {
	s.put(k, cacheEntry{value: v, pending: true, src: src})
}

// AwaitsSlot reports whether the cache still holds the own write src of k
// as pending: only its slot can settle it.
func (s *Core) AwaitsSlot(k kvs.Key, src wire.Seq) bool {
	e, ok := s.cache[k]
	return ok && e.pending && e.src == src
}

// SettleCache gives an own write its slot, if the cache still holds it.
// The newer of the write and the entry's alternative stays; slot 0 (the
// leader no longer knows it) keeps the alternative only if there is one.
func (s *Core) SettleCache(k kvs.Key, src wire.Seq, slot kvs.Slot) {
	e, ok := s.cache[k]
	if !ok || !e.pending || e.src != src {
		return
	}
	switch {
	case e.altVersion > slot:
		// An alternative may come from a fast path: keep it tentative.
		s.cache[k] = cacheEntry{value: e.alt, version: e.altVersion, tentative: true}
	case slot > 0:
		s.cache[k] = cacheEntry{value: e.value, version: slot}
	default:
		delete(s.cache, k)
		s.raiseFrontier(e.altVersion, true)
	}
	s.releaseParked(k)
}

// SetCache records the settled own write seq (CURP-HT weak write).
func (s *Core) SetCache(k kvs.Key, v kvs.Value, slot kvs.Slot, seq wire.Seq) {
	s.setOwn(k, v, slot, seq)
}

// markTentative flags the entry of k if it still holds version slot.
func (s *Core) markTentative(k kvs.Key, slot kvs.Slot) {
	if e, ok := s.cache[k]; ok && !e.pending && e.version == slot {
		e.tentative = true
		s.cache[k] = e
	}
}

// dropSettled forgets the tentative cache entries (and the alternatives of
// pending ones) when the session learns a new ballot: their versions are
// slots of the old leader's log that recovery may have moved. Committed
// versions stay, and so do own pending writes; reads carry readBallot
// until the new view's start is known, so replicas answer from state that
// includes every replayed write.
func (s *Core) dropSettled() {
	s.tentFrontier = 0
	var released []kvs.Key
	for k, e := range s.cache {
		switch {
		case !e.pending && e.tentative:
			delete(s.cache, k)
		case e.altVersion > 0:
			e.alt, e.altVersion = nil, 0
			s.cache[k] = e
			released = append(released, k)
		}
	}
	// Parked reads complete in key order: the session's outputs must not
	// depend on map order.
	slices.Sort(released)
	for _, k := range released {
		s.releaseParked(k)
	}
}

// raiseFrontier notes that the session read (or cached) version v.
func (s *Core) raiseFrontier(v kvs.Slot, tentative bool) {
	if tentative {
		s.tentFrontier = max(s.tentFrontier, v)
	} else {
		s.frontier = max(s.frontier, v)
	}
}

// readFrontier is the minimum slot a weak read asks for.
func (s *Core) readFrontier() kvs.Slot { return max(s.frontier, s.tentFrontier) }

// evict raises the frontier to the newest settled version in the cache and
// drops every settled entry: a replica that has applied the frontier holds
// each of them or something newer (PROTOCOL.md 4.6).
func (s *Core) evict() {
	for _, e := range s.cache {
		if !e.pending {
			s.raiseFrontier(e.version, e.tentative)
		}
	}
	for k, e := range s.cache {
		if !e.pending {
			delete(s.cache, k)
		}
	}
}

// Complete finishes p with r and reports it.
func (s *Core) Complete(p *Pending, r Result) {
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
	r.Seq, r.Op = p.Seq, p.Op
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

// nextTarget is where a weak read goes after from failed: the next replica
// in turn that is not known to be down.
func (s *Core) nextTarget(from wire.ReplicaID) wire.ReplicaID {
	for i := 1; i <= s.o.N; i++ {
		c := wire.ReplicaID((int(from) + i) % s.o.N)
		if !s.down[c] {
			return c
		}
	}
	return wire.ReplicaID((int(from) + 1) % s.o.N)
}

// Expire ends the session: the leader refused one of its operations, so
// its causal chain is broken and every later operation would be refused
// too (docs/DECISIONS.md 15). Writes that completed but will never be
// durable are reported through Options.Lost; every operation in flight,
// and every later one, fails with ErrRefused. A program that wants to go on
// opens a new session.
func (s *Core) Expire() { s.expire(ErrRefused) }

func (s *Core) expire(why error) {
	if s.expired != nil {
		return
	}
	s.expired = why
	for _, seq := range s.o.Policy.Abandon(s) {
		s.Lost(seq)
	}
	for _, seq := range s.order {
		if p, ok := s.pending[seq]; ok {
			s.Complete(p, Result{Err: why})
		}
	}
	s.order = s.order[:0]
}

// Expired reports whether the session has expired (see Expire).
func (s *Core) Expired() bool { return s.expired != nil }

// End asks the cluster to end the session (its client closes cleanly):
// the leader ends it through the log and releases its state at every
// replica (PROTOCOL.md 6.10). Options.Ended is told when that is applied.
// The request goes out once the session is settled, so that every write it
// acknowledged is durable before the end (a write reaching the leader
// after the end would be refused), and again every retry period until it
// is confirmed. The session must not be used afterwards.
func (s *Core) End() {
	s.ending = true
	s.sendEnd()
}

func (s *Core) sendEnd() {
	if !s.ending || s.expired != nil || !s.Settled() {
		return
	}
	if now := s.o.Now(); s.endSent == 0 || now-s.endSent >= int64(s.o.RetryAfter) {
		s.endSent = max(now, 1)
		s.Send(s.leader, &wire.EndSession{Client: s.o.ID})
	}
}

// onEndSession: a replica applied the end of this session. After End, and
// with nothing unsettled, that is the confirmation; otherwise the leader
// ended the session for being idle: nothing it sends executes any more,
// and its acknowledged writes not yet durable are lost.
func (s *Core) onEndSession(m *wire.EndSession) {
	if m.Client != s.o.ID {
		return
	}
	if s.expired != nil {
		return
	}
	asked := s.ending && s.Settled()
	if asked {
		s.ending = false
		s.expired = ErrClosed
	} else {
		s.expire(ErrExpired)
	}
	if s.o.Ended != nil {
		s.o.Ended(!asked)
	}
}

// Lost records that the session's acknowledged operation seq was refused
// by the leader after it completed (a CURP-HO weak write whose session was
// cut off from the leader for longer than the refusal age, PROTOCOL.md
// 6.8): the session reports it through Options.Lost.
func (s *Core) Lost(seq wire.Seq) {
	if s.o.Lost != nil {
		s.o.Lost(seq)
	}
}

// LastWeakWrite is the Seq of the session's latest weak write (CURP-HO's
// WeakDep), 0 if none.
func (s *Core) LastWeakWrite() wire.Seq { return s.lastWeakWrite }

// Now is the session's clock.
func (s *Core) Now() int64 { return s.o.Now() }

// Describe summarises the session's state for diagnostics: ballot, leader
// and the oldest operations in flight.
func (s *Core) Describe() string {
	out := fmt.Sprintf("ballot=%d leader=%d ack=%d inflight=%d policy=%v", s.ballot, s.leader, s.AckUpTo(), len(s.pending), s.o.Policy)
	n := 0
	for _, seq := range s.order {
		p, ok := s.pending[seq]
		if !ok {
			continue
		}
		lr := "none"
		if p.leaderReply != nil {
			lr = fmt.Sprintf("b%d ok=%v retry=%v", p.leaderReply.Ballot, p.leaderReply.Ok, p.leaderReply.Retry)
		}
		out += fmt.Sprintf(" [#%d %s deferred=%v attempts=%d lr=%s]", seq, p.Op, p.deferred, p.attempts, lr)
		if n++; n == 3 {
			break
		}
	}
	return out
}
