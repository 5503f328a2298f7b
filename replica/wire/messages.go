package wire

import "swiftpaxos/kvs"

// MsgType is the one-byte type tag of a frame.
type MsgType uint8

// Message types. The numbering is part of the wire format: append only.
const (
	TypeHello MsgType = iota + 1
	TypePropose
	TypeLeaderReply
	TypeRecordAck
	TypeSyncReply
	TypeSync
	TypeAccept
	TypeAcceptAck
	TypeCommit
	TypeNotLeader
	TypeWitnessSync
	TypeWeakPropose
	TypeWeakReply
	TypeWeakCommit
	TypeWeakRead
	TypeWeakReadReply
	TypeCausalPropose
	TypeCausalReply
	TypeRequestVote
	TypeRequestVoteReply
	TypeCollect
	TypeCollectReply
	TypeNewView
	TypePreVote
	TypePreVoteReply
	TypeInstallSnapshot
	TypeInstallSnapshotAck
	TypeJoin
	TypeJoinReply
	TypeEndSession
	typeEnd // one past the last valid type
)

// Message is implemented by every wire message.
type Message interface {
	Type() MsgType
}

// PeerKind says who opened a connection.
type PeerKind uint8

const (
	// PeerReplica: the connection comes from another replica.
	PeerReplica PeerKind = 1
	// PeerClient: the connection comes from a client session.
	PeerClient PeerKind = 2
)

// Hello is the first frame on every connection: it names the sender.
type Hello struct {
	Kind    PeerKind
	Replica ReplicaID // when Kind == PeerReplica
	Client  ClientID  // when Kind == PeerClient
	// Alias is the sending process's alias in the configuration; a
	// replica uses it to emulate the latency to a client (PROTOCOL.md 7.3).
	Alias string
}

// MaxAliasLen bounds Hello.Alias.
const MaxAliasLen = 255

// Entry is one log entry (PROTOCOL.md section 3.1).
type Entry struct {
	Slot      kvs.Slot
	Ballot    Ballot
	Cmd       CmdID
	Command   kvs.Command
	Level     Level
	CausalDep Seq // weak entries: Seq of the session's previous weak write
	// AckUpTo is the AckUpTo of the request that created the entry. Apply
	// derives the session's de-duplication floor from it, so every replica
	// forgets the same results (PROTOCOL.md 1.5, 6.7).
	AckUpTo Seq
}

// IsRefusal reports whether e records the leader's refusal of the command
// Cmd: a no-op that carries a command id. Applying it makes the command
// never execute (PROTOCOL.md 3.4 rule 6, docs/DECISIONS.md).
func (e *Entry) IsRefusal() bool { return e.Cmd.Seq != 0 && e.Command.Op == kvs.OpNoop }

// IsSessionEnd reports whether e ends the session Cmd.Client: a no-op with
// a client id and Seq 0. Applying it forgets the session's row and refuses
// every later request of it (PROTOCOL.md 6.10, docs/DECISIONS.md 23).
func (e *Entry) IsSessionEnd() bool {
	return e.Cmd.Client != 0 && e.Cmd.Seq == 0 && e.Command.Op == kvs.OpNoop
}

// Record is a witness record (PROTOCOL.md section 3.4).
type Record struct {
	Cmd       CmdID
	Command   kvs.Command
	Level     Level
	Accepted  bool
	Ballot    Ballot
	Arrival   uint64
	CausalDep Seq
	// Age is how long, in nanoseconds, the sending replica has held the
	// record; a leader refuses a flushed record whose predecessor stays
	// missing for long (PROTOCOL.md 3.4 rule 6, docs/DECISIONS.md).
	Age uint64
}

// Propose carries a strong operation, client to every replica (section 3.8).
type Propose struct {
	Cmd     CmdID
	Command kvs.Command
	AckUpTo Seq
	WeakDep Seq // CURP-HO: Seq of the session's latest earlier weak write
}

// LeaderReply is the leader's speculative reply (section 3.5).
type LeaderReply struct {
	Replica ReplicaID
	Ballot  Ballot
	Cmd     CmdID
	Ok      bool
	Retry   bool // CURP-HO barrier timed out: re-send weak writes, then re-propose
	Result  kvs.Value
	Version kvs.Slot
	Slot    kvs.Slot
	ReadDep ReadDep
	// Items is a SCAN's result in per-key form (kvs.Result.Items).
	Items []kvs.Item
}

// RecordAck is a witness's admission answer (sections 3.8, 5.5).
type RecordAck struct {
	Replica         ReplicaID
	Ballot          Ballot
	Cmd             CmdID
	Ok              bool
	CausalDeps      []CmdID
	DepCommittedSeq Seq
	ReadDep         ReadDep
}

// SyncReply is the result of actual execution (section 3.3).
type SyncReply struct {
	Replica          ReplicaID
	Ballot           Ballot
	Cmd              CmdID
	Result           kvs.Value
	Version          kvs.Slot
	Slot             kvs.Slot
	WeakCommittedSeq Seq
	// Items is a SCAN's result in per-key form (kvs.Result.Items).
	Items []kvs.Item
	// Refused: the leader refused the command for good (its session's
	// causal chain is broken); it never executed and never will.
	Refused bool
}

// Sync asks for the result of an applied command (section 3.7).
type Sync struct {
	Cmd CmdID
}

// Accept replicates log entries; with no entries it is a heartbeat (section 3.2).
type Accept struct {
	Ballot       Ballot
	Leader       ReplicaID
	PrevSlot     kvs.Slot
	PrevBallot   Ballot
	Entries      []Entry
	LeaderCommit kvs.Slot
}

// AcceptAck answers an Accept (section 3.2).
type AcceptAck struct {
	Ballot    Ballot
	Replica   ReplicaID
	Success   bool
	MatchSlot kvs.Slot
	// Learner: the sender restarted without its state and is not a full
	// member yet (PROTOCOL.md 6.10); its copy does not count toward a
	// commit.
	Learner bool
}

// Commit announces the commit index (section 3.2).
type Commit struct {
	Ballot      Ballot
	CommitIndex kvs.Slot
}

// NotLeader redirects a client to the leader it should use.
type NotLeader struct {
	Ballot Ballot
	Leader ReplicaID
	Cmd    CmdID
}

// WitnessSync hands stale witness records to the leader (section 3.4 rule 4).
type WitnessSync struct {
	Records []Record
}

// WeakPropose is a CURP-HT weak write, client to leader (section 4.2).
type WeakPropose struct {
	Cmd       CmdID
	Command   kvs.Command
	CausalDep Seq
	AckUpTo   Seq
}

// WeakReply acknowledges a CURP-HT weak write (section 4.2).
type WeakReply struct {
	Replica   ReplicaID
	Ballot    Ballot
	Cmd       CmdID
	Slot      kvs.Slot
	Committed bool
	// Refused: the leader refused the write for good; it never executes.
	Refused bool
}

// SlotOf pairs a command with its slot in a WeakCommit.
type SlotOf struct {
	Cmd  CmdID
	Slot kvs.Slot
	// Refused: the leader refused the write for good; it never executes.
	Refused bool
}

// WeakCommit tells a client that some of its weak writes committed (section 5.2).
type WeakCommit struct {
	Ballot  Ballot
	Commits []SlotOf
}

// WeakRead is a weak GET or SCAN to one replica (section 4.2).
type WeakRead struct {
	Cmd     CmdID
	Command kvs.Command
	MinSlot kvs.Slot
	Ballot  Ballot
	// Attempt numbers the session's sends of this read; the reply echoes
	// it, so that an answer to an earlier attempt is never taken for the
	// current one (PROTOCOL.md 6.5).
	Attempt uint32
}

// WeakReadReply answers a WeakRead from applied state (section 4.2).
type WeakReadReply struct {
	Replica      ReplicaID
	Ballot       Ballot
	Cmd          CmdID
	Attempt      uint32 // the request's Attempt
	Retry        bool   // the replica could not reach MinSlot in time
	Result       kvs.Value
	Version      kvs.Slot
	AppliedIndex kvs.Slot
	// WeakApplied is the largest Seq of the session's weak writes applied
	// here; by the causal chain every earlier one is applied too, so the
	// answer is at least as new as each of them (docs/DECISIONS.md 10).
	WeakApplied Seq
	// Items is a SCAN's result in per-key form (kvs.Result.Items).
	Items []kvs.Item
}

// CausalPropose is a CURP-HO weak write, client to every replica (section 5.2).
type CausalPropose struct {
	Cmd       CmdID
	Command   kvs.Command
	CausalDep Seq
	Bound     ReplicaID
	AckUpTo   Seq
}

// CausalReply is the bound replica's acknowledgement of a weak write.
type CausalReply struct {
	Replica ReplicaID
	Ballot  Ballot
	Cmd     CmdID
}

// RequestVote asks for a vote (section 6.2).
type RequestVote struct {
	Ballot     Ballot
	Candidate  ReplicaID
	LastSlot   kvs.Slot
	LastBallot Ballot
}

// RequestVoteReply answers a RequestVote.
type RequestVoteReply struct {
	Ballot  Ballot
	Replica ReplicaID
	Granted bool
}

// PreVote asks whether the receiver would vote for Candidate in Ballot,
// before the candidate raises its ballot (docs/DECISIONS.md 20). It changes
// nothing at the receiver but a note of the grant.
type PreVote struct {
	Ballot     Ballot // the ballot the candidate would stand in
	Candidate  ReplicaID
	LastSlot   kvs.Slot
	LastBallot Ballot
}

// PreVoteReply answers a PreVote. Ballot is the replier's ballot, so that
// a candidate behind it catches up.
type PreVoteReply struct {
	Ballot    Ballot
	PreBallot Ballot // the PreVote's ballot
	Replica   ReplicaID
	Granted   bool
}

// SessionResult is a stored outcome of an applied command in a session's
// row (PROTOCOL.md 3.1 clientTable).
type SessionResult struct {
	Seq     Seq
	Slot    kvs.Slot
	Refused bool
	Value   kvs.Value
	Version kvs.Slot
	Items   []kvs.Item
}

// SessionState is one session's row of the client table in a snapshot.
type SessionState struct {
	Client           ClientID
	Floor            Seq
	WeakCommittedSeq Seq
	Results          []SessionResult
	// Ended is the slot that ended the session (0: live); an ended
	// session keeps only this, so that its late requests are refused.
	Ended kvs.Slot
}

// EndSession tells the replicas that a client closed its session cleanly:
// the leader ends it through the log (PROTOCOL.md 6.10).
type EndSession struct {
	Client ClientID
}

// InstallSnapshot carries one chunk of the leader's snapshot to a follower
// that needs slots the leader compacted (PROTOCOL.md 6.10). Chunk 0 holds
// the client table; every chunk holds store items; the last says Done. The
// leader sends the next chunk when the previous one is acknowledged.
type InstallSnapshot struct {
	Ballot     Ballot
	Leader     ReplicaID
	LastSlot   kvs.Slot // the snapshot covers slots 1..LastSlot
	LastBallot Ballot   // the ballot of slot LastSlot
	Chunk      uint32
	Done       bool
	Sessions   []SessionState
	Items      []kvs.Item
}

// InstallSnapshotAck acknowledges a chunk.
type InstallSnapshotAck struct {
	Ballot   Ballot
	Replica  ReplicaID
	LastSlot kvs.Slot
	Chunk    uint32
}

// Join is sent by a replica that started without state, to every peer,
// until it is a member: the replies tell it whether the cluster is brand new
// and who leads, and the leader's reply names the slot it must reach
// (PROTOCOL.md 6.10, docs/DECISIONS.md 21).
type Join struct {
	Replica ReplicaID
	// Incarnation is drawn at random when the process starts: a replica
	// that restarted is told apart from one still starting.
	Incarnation uint64
}

// JoinReply answers a Join with the replier's state. Mark is meaningful
// only from a leader in service (Leader == Replica): its last assigned slot
// when it answered. Founders, from a member of a cluster that bootstrapped,
// lists the incarnation of every replica at the bootstrap, by replica.
type JoinReply struct {
	Ballot      Ballot
	Replica     ReplicaID
	Leader      ReplicaID
	LastSlot    kvs.Slot
	Member      bool
	Mark        kvs.Slot
	Incarnation uint64
	Founders    []uint64
}

// Collect asks for witness records older than Ballot (section 6.3).
type Collect struct {
	Ballot Ballot
}

// CollectReply carries a replica's witness records (section 6.3).
type CollectReply struct {
	Ballot     Ballot
	Replica    ReplicaID
	Records    []Record
	LastSlot   kvs.Slot
	LastBallot Ballot
}

// NewView announces the start of a view (section 6.3 steps 5 and 6).
type NewView struct {
	Ballot    Ballot
	Leader    ReplicaID
	ViewStart kvs.Slot
	Committed bool
}

func (*Hello) Type() MsgType            { return TypeHello }
func (*Propose) Type() MsgType          { return TypePropose }
func (*LeaderReply) Type() MsgType      { return TypeLeaderReply }
func (*RecordAck) Type() MsgType        { return TypeRecordAck }
func (*SyncReply) Type() MsgType        { return TypeSyncReply }
func (*Sync) Type() MsgType             { return TypeSync }
func (*Accept) Type() MsgType           { return TypeAccept }
func (*AcceptAck) Type() MsgType        { return TypeAcceptAck }
func (*Commit) Type() MsgType           { return TypeCommit }
func (*NotLeader) Type() MsgType        { return TypeNotLeader }
func (*WitnessSync) Type() MsgType      { return TypeWitnessSync }
func (*WeakPropose) Type() MsgType      { return TypeWeakPropose }
func (*WeakReply) Type() MsgType        { return TypeWeakReply }
func (*WeakCommit) Type() MsgType       { return TypeWeakCommit }
func (*WeakRead) Type() MsgType         { return TypeWeakRead }
func (*WeakReadReply) Type() MsgType    { return TypeWeakReadReply }
func (*CausalPropose) Type() MsgType    { return TypeCausalPropose }
func (*CausalReply) Type() MsgType      { return TypeCausalReply }
func (*RequestVote) Type() MsgType      { return TypeRequestVote }
func (*RequestVoteReply) Type() MsgType { return TypeRequestVoteReply }
func (*Collect) Type() MsgType          { return TypeCollect }
func (*CollectReply) Type() MsgType     { return TypeCollectReply }
func (*NewView) Type() MsgType          { return TypeNewView }
func (*PreVote) Type() MsgType          { return TypePreVote }
func (*PreVoteReply) Type() MsgType     { return TypePreVoteReply }
func (*InstallSnapshot) Type() MsgType  { return TypeInstallSnapshot }
func (*Join) Type() MsgType             { return TypeJoin }
func (*EndSession) Type() MsgType       { return TypeEndSession }
func (*JoinReply) Type() MsgType        { return TypeJoinReply }
func (*InstallSnapshotAck) Type() MsgType {
	return TypeInstallSnapshotAck
}
