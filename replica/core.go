package replica

import (
	"errors"
	"fmt"
	"time"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// Role is a replica's role in its current ballot.
type Role uint8

const (
	// Follower accepts entries from the leader and acts as a witness.
	Follower Role = iota
	// Candidate asks for votes.
	Candidate
	// Leader orders commands.
	Leader
)

func (r Role) String() string {
	switch r {
	case Follower:
		return "follower"
	case Candidate:
		return "candidate"
	case Leader:
		return "leader"
	}
	return fmt.Sprintf("Role(%d)", uint8(r))
}

// Core is the deterministic protocol state of one replica (PROTOCOL.md
// section 3). It changes only in Step* and Tick, and its outputs wait in
// it until the driver takes them with Ready (ready.go). It is not safe for concurrent use: one goroutine
// (the replica's event loop, or the simulator) owns it.
type Core struct {
	o      Options
	log    Logger
	policy Policy
	out    outbox

	ballot wire.Ballot
	role   Role
	leader wire.ReplicaID

	entries      raftLog
	commitIndex  kvs.Slot
	appliedIndex kvs.Slot
	// matchedUpTo is the highest slot known to equal the current leader's
	// log; a follower may not commit past it.
	matchedUpTo kvs.Slot
	// viewStart is the first slot of new commands in ballot viewBallot
	// (PROTOCOL.md 1.4, 6.3); while viewBallot < ballot the current view's
	// start is not known here and older-ballot weak reads wait (6.5).
	viewStart  kvs.Slot
	viewBallot wire.Ballot

	store    *kvs.Store
	sessions sessionTable
	cmdIndex map[wire.CmdID]kvs.Slot
	keys     keyIndex
	wit      *witness

	// Leader replication state, indexed by replica.
	match      []kvs.Slot
	sent       []kvs.Slot
	commitSent kvs.Slot

	// snap is the latest snapshot; xfer the leader's state transfers to
	// followers; inst the follower's snapshot arriving in chunks.
	snap *snapshot
	xfer map[wire.ReplicaID]*transfer
	inst *installing

	// snapTaken counts the snapshots taken here; snapLongest is the
	// longest one took (reported in Size).
	snapTaken   int
	snapLongest time.Duration

	lr leaderReads

	barred      map[wire.CmdID][]barredRequest
	barredOrder []wire.CmdID
	reads       []waitingRead

	// ending holds the sessions whose end this leader appended and has
	// not applied yet; idleScan is when it last looked for idle ones
	// (expiry.go).
	ending   map[wire.ClientID]kvs.Slot
	idleScan int64

	lastHeartbeat int64
	lastHeard     int64
	leaderSince   int64   // when this replica last became leader
	heardFrom     []int64 // at a leader, when each replica last sent it anything (checkquorum.go)
	quietFalls    int
	leaderHeard   int64 // when this replica last heard its leader
	leaderLost    bool  // its connection from the leader broke since (PeerDown)
	el            election
	rec           *recovery   // non-nil while a new leader recovers
	viewCommitted bool        // the leader announced its view committed
	purged        wire.Ballot // witness records below it are purged

	scratchSlots []kvs.Slot
	scratchKey   oneKey // stateAfter's overlay of one key
	scratchMatch []kvs.Slot

	// member: the replica may vote, witness and serve (join.go); learner
	// says, at a leader, which followers are not members yet.
	member      bool
	early       []bufferedRequest // client requests held until it is (early.go)
	jn          joining
	learner     []bool
	incarnation uint64     // this life's (Options.Incarnation): tells a restart from a slow start
	founders    []uint64   // incarnations at the bootstrap, by replica
	lives       []uint64   // the latest incarnation heard of, by replica (lives.go)
	livesSent   wire.Lives // a copy of lives for replies, until they change (lives.go)
	restored    bool       // it restarted from disk, at restoredAt
	restoredAt  int64
	scratchEnts []*wire.Entry

	// dur, in durable mode, collects what must reach the disk (durable.go);
	// founded is a new durable cluster's leader waiting for a majority of
	// members on disk (founding.go).
	dur     *journal
	founded *founding
}

// New builds a replica core in ballot 0.
func New(o Options) (*Core, error) {
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("replica options: %w", err)
	}
	// A policy that indexes witness records is told of every change
	// (RecordIndex); the core looks once, here.
	index, _ := o.Policy.(RecordIndex)
	c := &Core{
		o:         o,
		log:       o.Log,
		policy:    o.Policy,
		leader:    o.InitialLeader,
		viewStart: 1,
		store:     kvs.NewStore(),
		sessions:  make(sessionTable),
		cmdIndex:  make(map[wire.CmdID]kvs.Slot),
		keys:      newKeyIndex(),
		wit:       newWitness(index),
		match:     make([]kvs.Slot, o.N),
		sent:      make([]kvs.Slot, o.N),
		lr:        leaderReads{acked: make([]uint64, o.N)},
		barred:    make(map[wire.CmdID][]barredRequest),
		ending:    make(map[wire.ClientID]kvs.Slot),
		xfer:      make(map[wire.ReplicaID]*transfer),
		learner:   make([]bool, o.N),
		heardFrom: make([]int64, o.N),
	}
	c.wit.ignoreScanRange = o.Mutation.WitnessIgnoresScanRange
	c.out.learner = make([]bool, o.N)
	c.snap = &snapshot{store: c.store.Snapshot()}
	c.el.votedFor = wire.NoReplica
	c.jn.replies = make([]*wire.JoinReply, o.N)
	c.jn.heard = make([]int64, o.N)
	c.incarnation = o.Incarnation
	c.lives = make([]uint64, o.N)
	c.lives[o.ID] = c.incarnation
	c.leader = wire.NoReplica
	c.resetElectionTimer()
	c.promise() // what an earlier life acknowledged is not known
	if o.Restore != nil && !o.Restore.Empty() {
		c.restore(o.Restore)
	} else if o.StartAsMember {
		c.bootstrap(true)
	}
	if o.Restore != nil && !o.Mutation.RestoreForgetsLives {
		c.restoreLives(o.Restore.Hard.Lives)
	}
	if o.Durable {
		c.startJournal()
	}
	c.lastHeartbeat = c.lastHeard
	return c, nil
}

// ID is this replica's id.
func (c *Core) ID() wire.ReplicaID { return c.o.ID }

// Ballot is the current ballot.
func (c *Core) Ballot() wire.Ballot { return c.ballot }

// Leader is the leader this replica knows for its ballot.
func (c *Core) Leader() wire.ReplicaID { return c.leader }

// IsLeader reports whether this replica leads its ballot.
func (c *Core) IsLeader() bool { return c.role == Leader }

// CommitIndex is the highest committed slot known here.
func (c *Core) CommitIndex() kvs.Slot { return c.commitIndex }

// AppliedIndex is the highest applied slot.
func (c *Core) AppliedIndex() kvs.Slot { return c.appliedIndex }

// Now is the core's clock.
func (c *Core) Now() int64 { return c.o.Now() }

// ToClient sends m to a client session.
func (c *Core) ToClient(to wire.ClientID, m wire.Message) { c.out.toClient(to, m) }

// StepClient handles one message from a client session.
func (c *Core) StepClient(from wire.ClientID, m wire.Message) {
	c.stepClient(from, m)
}

func (c *Core) stepClient(from wire.ClientID, m wire.Message) {
	if !validRequest(m, c.o.Limits, c.o.Mutation.AcceptWeakRMW) {
		c.log.Debug("invalid client request dropped", "client", uint64(from), "type", typeName{m})
		return
	}
	if c.role == Leader {
		c.sessions.get(from).heard = c.o.Now()
	}
	if c.sessionOver(from, m) {
		return
	}
	if !c.member && c.holdEarly(from, m) {
		return
	}
	if c.founded != nil {
		if _, read := m.(*wire.WeakRead); !read {
			// Bounded like the requests held before membership
			// (early.go): beyond it, the clients' retries carry them.
			if len(c.founded.buffered) < maxEarly {
				c.founded.buffered = append(c.founded.buffered, bufferedRequest{from, m})
			}
			return
		}
	}
	if c.rec != nil {
		if _, read := m.(*wire.WeakRead); !read {
			// A recovering leader buffers requests, it does not drop them
			// (PROTOCOL.md 6.3).
			c.rec.buffered = append(c.rec.buffered, bufferedRequest{from, m})
			return
		}
	}
	switch m := m.(type) {
	case *wire.Propose:
		c.onPropose(from, m)
	case *wire.WeakRead:
		c.onWeakRead(from, m)
	case *wire.Sync:
		c.onSync(from, m)
	case *wire.EndSession:
		c.onEndSession(from, m)
	default:
		if !c.policy.HandleClient(c, from, m) {
			c.log.Warn("unexpected client message", "client", uint64(from), "type", typeName{m})
		}
	}
}

// ErrInvalid is wrapped by the error StepReplica returns for a message no
// correct replica sends: one that names another sender than the
// connection's, contradicts a committed slot, or is malformed for the
// protocol. The message changed nothing; the driver drops the connection it
// came on and counts it (ARCHITECTURE.md rule 8).
var ErrInvalid = errors.New("invalid peer message")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// StepReplica handles one message from replica from (the sender its
// connection's Hello named). An error wrapping ErrInvalid means the
// message broke a protocol invariant and was ignored.
func (c *Core) StepReplica(from wire.ReplicaID, m wire.Message) error {
	if from < 0 || int(from) >= c.o.N || from == c.o.ID {
		return invalid("message from replica %d of %d", from, c.o.N)
	}
	var err error
	switch m := m.(type) {
	case *wire.Accept:
		err = c.onAccept(from, m)
	case *wire.AcceptAck:
		err = c.onAcceptAck(from, m)
	case *wire.Commit:
		c.onCommit(from, m)
	case *wire.WitnessSync:
		c.onWitnessSync(m)
	case *wire.PreVote:
		err = c.onPreVote(from, m)
	case *wire.PreVoteReply:
		err = c.onPreVoteReply(from, m)
	case *wire.RequestVote:
		err = c.onRequestVote(from, m)
	case *wire.RequestVoteReply:
		err = c.onRequestVoteReply(from, m)
	case *wire.Collect:
		err = c.onCollect(from, m)
	case *wire.CollectReply:
		err = c.onCollectReply(from, m)
	case *wire.NewView:
		err = c.onNewView(from, m)
	case *wire.Join:
		err = c.onJoin(from, m)
	case *wire.JoinReply:
		err = c.onJoinReply(from, m)
	case *wire.InstallSnapshot:
		err = c.onInstallSnapshot(from, m)
	case *wire.InstallSnapshotAck:
		err = c.onInstallSnapshotAck(from, m)
	default:
		err = invalid("%s is not a replica message", typeName{m})
	}
	if !errors.Is(err, ErrInvalid) {
		c.heard(from)
	}
	return err
}

// Tick runs the timers: heartbeats, expiry of barred requests and weak
// reads, and the flush of stale witness records.
func (c *Core) Tick() {
	now := c.o.Now()
	c.checkQuorum(now)
	if c.role == Leader && now-c.lastHeartbeat >= int64(c.o.HeartbeatInterval) {
		c.lastHeartbeat = now
		c.leaseHeartbeat()
		c.heartbeat()
		if c.rec != nil {
			c.sendCollect()
		}
	}
	c.expireBarred(now)
	c.expireReads(now)
	c.flushStaleRecords(now)
	c.expireIdle(now)
	c.askToJoin(now)
	if c.role != Leader {
		c.checkElectionTimer(now)
	}
}

// flush is the per-batch work Ready does before it hands the outputs
// over.
func (c *Core) flush() {
	if c.role == Leader {
		c.beginRound()
		c.replicate()
		c.releaseLeaderReads()
		c.checkViewCommitted()
	}
	c.policy.Flush(c)
}

type typeName struct{ m wire.Message }

func (t typeName) String() string {
	if t.m == nil {
		return "nil"
	}
	return fmt.Sprintf("%T", t.m)
}

// LastSlot is the last slot of the log.
func (c *Core) LastSlot() kvs.Slot { return c.entries.last() }

// Role is the replica's role in its current ballot.
func (c *Core) Role() Role { return c.role }

// SnapshotSlot is the last slot compacted behind a snapshot (0: none yet).
func (c *Core) SnapshotSlot() kvs.Slot { return c.entries.base }
