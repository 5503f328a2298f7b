package sim

import (
	"fmt"
	"math/rand/v2"
	"time"

	"swiftpaxos/check"
	"swiftpaxos/client"
	"swiftpaxos/kvs"
	"swiftpaxos/replica"
	"swiftpaxos/wire"
)

// link is one direction of a connection between two endpoints.
type link struct {
	from, to int
	epoch    uint64 // bumped when the connection breaks
	last     int64  // delivery instant of the latest message: FIFO
}

// session is one simulated client session.
type session struct {
	idx     int
	name    check.SessionID
	core    *client.Core
	issued  int
	done    int
	hist    map[wire.Seq]int // Seq -> index in the history
	seen    map[kvs.Key]seenValue
	invokes int  // scheduled invokes not yet run
	dead    bool // the client crashed
	// lost: the session was told that acknowledged writes of it were
	// refused (docs/DECISIONS.md 15); like a crash, it exempts its weak
	// writes from the durability rule, and the run reports it.
	lost bool
	// ending: the session finished its operations and asked the cluster
	// to end it; expired: the leader ended it for being idle.
	ending, expired bool
	// severed: by replica, its connection died with the replica's host
	// and the session has not noticed (Faults.HostCrashes).
	severed []bool
}

// Cluster is one simulated run.
type Cluster struct {
	o        Options
	rng      *rand.Rand
	now      int64
	seq      uint64
	q        eventQueue
	links    [][]*link // [from][to]; endpoints: replicas 0..n-1, then sessions
	replicas []*replica.Core
	sessions []*session
	byClient map[wire.ClientID]int // endpoint of a client id
	isolated int                   // isolated replica, -1 if none
	deferred []bool                // replicas whose execution lags
	dead     []bool                // crashed replicas, and late ones not started yet
	started  []bool                // replicas that have started once
	late     []bool                // replicas whose first start is a late one
	claimNew []bool                // replicas whose next start claims -cluster new
	wipe     []bool                // durable replicas whose next start finds an empty disk
	rates    []int64               // per replica, its clock's rate in per mille (ClockSkew)
	misused  bool                  // a replica was restarted claiming -cluster new
	disks    []*disk               // durable mode: each replica's disk
	filter   func(from, to int, m wire.Message) bool
	healAt   int64

	history []check.Op
	// segments are the applied logs, one per replica lifetime (a snapshot
	// installed midway is a marker line); current is each replica's open
	// segment.
	segments []segment
	current  []int
	segs     []int // segments opened, by replica
	lifetime []int // restarts so far, by replica
	// emptyLife marks the replicas whose current life was restarted
	// with nothing (in memory, or durable with an empty disk) and has not
	// been counted as a member again (Rejoins).
	emptyLife []bool
	// Stats; Rejected counts messages a replica rejected as invalid
	// (only a mutated run may have any).
	Fast, Slow, Messages, Dropped, Rejected int
	// LeaderReads counts the strong reads a leader answered without a
	// slot (docs/DECISIONS.md 46); Slow counts them too.
	LeaderReads int
	// LeaderWrites counts the Readies in which a session sent a write's
	// Propose to one replica alone, the leader as the session knew it
	// (docs/DECISIONS.md 48): a statistic the suite asserts is not zero.
	LeaderWrites int
	// Restarts, Installs and Rejoins count replicas brought back empty,
	// snapshots installed by state transfer, and the lives of replicas
	// restarted with nothing that were members again when they ended, or
	// when the run did: they caught up as learners and were marked, or
	// found every other replica fresh and founded the cluster anew.
	Restarts, Installs, Rejoins int
	// LateStarted counts the replicas started after the cluster was
	// founded without them.
	LateStarted int
	// QuietFalls counts the times a leader fell quiet (check-quorum,
	// replica.Core.QuietFalls) in the lives that crashed; the run's
	// Result adds the live ones.
	QuietFalls int
	// FromDisk counts replicas restarted from their disk (durable mode),
	// Wipes those restarted with their disk lost; CrashAlls the
	// whole-cluster crashes.
	FromDisk, Wipes, CrashAlls int
	// Ended counts sessions whose clean end the cluster confirmed;
	// IdleExpired the sessions the leader ended for being idle.
	Ended, IdleExpired int
}

// Result is what a run produced.
type Result struct {
	History []check.Op
	Logs    map[string][]check.LogEntry
	Report  check.Report
	Fast    int
	Slow    int
	// LeaderReads of Slow were answered by a leader without a slot.
	LeaderReads int
	// LeaderWrites strong writes were sent to the leader alone.
	LeaderWrites int
	Messages     int
	Virtual      time.Duration
	// Ballot is the highest ballot any replica reached; Crashed lists the
	// replicas that crashed.
	Ballot  wire.Ballot
	Crashed []int
	// Restarts, Installs, Rejoins, Ended and IdleExpired as counted by
	// the Cluster.
	Restarts, Installs, Rejoins, Ended, IdleExpired int
	FromDisk, Wipes, CrashAlls, LateStarted         int
	QuietFalls                                      int
	// Expired is how many live sessions were told that acknowledged
	// writes of theirs were refused (docs/DECISIONS.md 15).
	Expired int
}

// Run executes one simulated run and checks it.
func Run(o Options) (*Result, error) {
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("sim options: %w", err)
	}
	c, err := newCluster(o)
	if err != nil {
		return nil, err
	}
	if err := c.run(); err != nil {
		return nil, fmt.Errorf("seed %d: %w", o.Seed, err)
	}
	logs := c.logs()
	crashedSessions := make(map[check.SessionID]bool)
	lost := 0
	for _, s := range c.sessions {
		if s.dead || s.lost {
			crashedSessions[s.name] = true
		}
		if s.lost {
			lost++
		}
	}
	rep := check.Check(c.history, logs, check.Options{Crashed: crashedSessions})
	var ballot wire.Ballot
	var crashed []int
	quiet := c.QuietFalls // the crashed lives'; the live ones' below
	for i, r := range c.replicas {
		ballot = max(ballot, r.Ballot())
		c.countRejoin(i)
		if c.dead[i] {
			crashed = append(crashed, i)
		} else {
			quiet += r.QuietFalls()
		}
	}
	return &Result{
		Ballot: ballot, Crashed: crashed, Expired: lost,
		Restarts: c.Restarts, Installs: c.Installs, Rejoins: c.Rejoins, Ended: c.Ended, IdleExpired: c.IdleExpired,
		FromDisk: c.FromDisk, Wipes: c.Wipes, CrashAlls: c.CrashAlls, LateStarted: c.LateStarted, QuietFalls: quiet,
		History: c.history, Logs: logs, Report: rep,
		Fast: c.Fast, Slow: c.Slow, LeaderReads: c.LeaderReads, LeaderWrites: c.LeaderWrites, Messages: c.Messages,
		Virtual: time.Duration(c.now),
	}, nil
}

func newCluster(o Options) (*Cluster, error) {
	c := &Cluster{
		o:         o,
		rng:       rand.New(rand.NewPCG(o.Seed, 0x5eed)),
		byClient:  make(map[wire.ClientID]int),
		isolated:  -1,
		current:   make([]int, o.N),
		segs:      make([]int, o.N),
		lifetime:  make([]int, o.N),
		emptyLife: make([]bool, o.N),
		dead:      make([]bool, o.N),
		started:   make([]bool, o.N),
		late:      make([]bool, o.N),
		claimNew:  make([]bool, o.N),
		wipe:      make([]bool, o.N),
	}
	for _, r := range c.rng.Perm(o.N)[:o.Faults.LateStarts] {
		c.late[r], c.dead[r] = true, true
	}
	c.rates = clockRates(o)
	total := o.N + o.Sessions
	c.links = make([][]*link, total)
	for i := range total {
		c.links[i] = make([]*link, total)
		for j := range total {
			c.links[i][j] = &link{from: i, to: j}
		}
	}
	for range o.N {
		if o.Durable {
			c.disks = append(c.disks, newDisk())
		}
	}
	for i := range o.N {
		// Some replicas execute on their own schedule, lagging behind
		// commitment (as behind a separate apply goroutine).
		c.deferred = append(c.deferred, o.Faults.ApplyLag > 0 && c.rng.IntN(2) == 0)
		c.replicas = append(c.replicas, nil)
		if err := c.startReplica(i); err != nil {
			return nil, err
		}
	}
	for i := range o.Sessions {
		s := &session{idx: i, name: check.SessionID(fmt.Sprintf("s%d", i)), hist: make(map[wire.Seq]int), severed: make([]bool, o.N)}
		id := wire.ClientID(c.rng.Uint64() | 1)
		ep := o.N + i
		c.byClient[id] = ep
		core, err := client.NewCore(client.Options{
			ID: id, N: o.N, Leader: 0, Nearest: wire.ReplicaID(i % o.N),
			Policy: o.Protocol.Client(),
			Lost:   func(wire.Seq) { s.lost = true },
			Ended: func(expired bool) {
				if !expired {
					c.Ended++
				}
			},
			Now:          c.clock,
			RetryAfter:   o.RetryAfter,
			LeaderReads:  i*100 < o.LeaderReads*o.Sessions,
			LeaderWrites: o.LeaderWrites && i%2 == 1,
			Mutation:     o.ClientMutation,
		})
		if err != nil {
			return nil, err
		}
		s.core = core
		c.sessions = append(c.sessions, s)
	}
	return c, nil
}

func (c *Cluster) clock() int64 { return c.now }

func (c *Cluster) schedule(e *event) {
	c.seq++
	e.seq = c.seq
	c.q.push(e)
}

// drain sends what replica i produced since it was last drained. The
// simulator drains after every step, so each input's outputs leave at
// once; the TCP server drains once per batch of inputs instead, which
// only merges Accepts (replica.Ready).
func (c *Cluster) drain(i int) {
	rd := c.replicas[i].Ready()
	if c.o.Durable {
		c.drainDurable(i, rd)
		return
	}
	for _, e := range rd.Messages {
		c.deliverFrom(i, e)
	}
	for _, e := range rd.AfterSync {
		c.deliverFrom(i, e)
	}
}

// drainSession sends what session i produced and records what completed.
func (c *Cluster) drainSession(i int) {
	s := c.sessions[i]
	rd := s.core.Ready()
	var alone map[wire.CmdID]int
	for _, e := range rd.Messages {
		if p, ok := e.Msg.(*wire.Propose); ok && p.Command.IsWrite() {
			if alone == nil {
				alone = map[wire.CmdID]int{}
			}
			alone[p.Cmd]++
		}
		c.send(c.o.N+i, int(e.To), e.Msg)
	}
	for _, n := range alone {
		if n == 1 {
			c.LeaderWrites++
		}
	}
	for _, r := range rd.Completed {
		c.complete(s, r)
	}
}

func (c *Cluster) deliverFrom(i int, e replica.Envelope) {
	if !e.ToClient {
		c.send(i, int(e.To), e.Msg)
		return
	}
	if ep, ok := c.byClient[e.Client]; ok {
		c.send(i, ep, e.Msg)
	}
}

// send encodes m and schedules its delivery on the (from, to) connection.
func (c *Cluster) send(from, to int, m wire.Message) {
	l := c.links[from][to]
	c.Messages++
	if c.cut(from, to) {
		l.epoch++
		c.Dropped++
		return
	}
	f := c.o.Faults
	if c.filter != nil && c.filter(from, to, m) {
		l.epoch++
		c.Dropped++
		return
	}
	if cp, ok := m.(*wire.CausalPropose); ok && f.DropWeakProb > 0 && from >= c.o.N && wire.ReplicaID(to) != cp.Bound &&
		c.rng.Float64() < f.DropWeakProb {
		l.epoch++
		c.Dropped++
		return
	}
	if f.DropProb > 0 && c.rng.Float64() < f.DropProb {
		l.epoch++
		c.Dropped++
		return
	}
	d := f.MinDelay
	if f.MaxDelay > f.MinDelay {
		d += time.Duration(c.rng.Int64N(int64(f.MaxDelay - f.MinDelay)))
	}
	if f.LongDelayProb > 0 && f.LongDelay > 0 && c.rng.Float64() < f.LongDelayProb {
		d = time.Duration(c.rng.Int64N(int64(f.LongDelay)))
	}
	at := max(c.now+int64(d), l.last)
	l.last = at
	c.schedule(&event{at: at, kind: evDeliver, link: l, epoch: l.epoch, frame: wire.AppendFrame(nil, m)})
}

func (c *Cluster) deliver(e *event) error {
	l := e.link
	if e.epoch != l.epoch || c.cut(l.from, l.to) {
		c.Dropped++
		return nil
	}
	m, err := wire.Decode(wire.MsgType(e.frame[4]), e.frame[5:])
	if err != nil {
		return fmt.Errorf("decoding a frame from %d to %d: %w", l.from, l.to, err)
	}
	n := c.o.N
	if c.o.Trace != nil {
		c.o.Trace(time.Duration(c.now), l.from, l.to, m)
	}
	switch {
	case l.to < n && l.from < n:
		// Simulated replicas are correct: a message one of them rejects
		// as invalid is a bug in the sender or in the check. A run with
		// a deliberate mutation, or a replica restarted the wrong way,
		// lets the checker judge what follows.
		if err := c.replicas[l.to].StepReplica(wire.ReplicaID(l.from), m); err != nil {
			if c.o.Mutation == (replica.Mutation{}) && !c.misused {
				return fmt.Errorf("replica %d rejected %T from replica %d: %w", l.to, m, l.from, err)
			}
			c.Rejected++
		}
		c.drain(l.to)
	case l.to < n:
		c.replicas[l.to].StepClient(c.sessions[l.from-n].core.ID(), m)
		c.drain(l.to)
	default:
		c.sessions[l.to-n].core.Step(wire.ReplicaID(l.from), m)
		c.drainSession(l.to - n)
	}
	return nil
}
