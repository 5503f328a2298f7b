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
	TypeStatusRequest
	TypeStatusReply
	TypeRouted
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
	// PeerClient: the connection comes from a client session. On a
	// PeerSessions connection, a PeerClient Hello attaches one more
	// session to it.
	PeerClient PeerKind = 2
	// PeerSessions: the connection carries the sessions of one client
	// process (docs/DECISIONS.md 28). Its Hello names no session; each
	// session attaches with a PeerClient Hello of its own before its first
	// request, and every message then names its session through its
	// command id (SessionOf).
	PeerSessions PeerKind = 3
)

// Hello is the first frame on every connection: it names the sender.
type Hello struct {
	Kind    PeerKind
	Replica ReplicaID // when Kind == PeerReplica
	Client  ClientID  // when Kind == PeerClient
	// Alias is the sending process's alias in the configuration; a
	// replica uses it to emulate the latency to a client (PROTOCOL.md 7.3).
	Alias string
	// Sessions, when Kind == PeerSessions, is how many sessions the
	// process may attach to the connection. The replica's replies to them
	// share one outbound queue, which it sizes for that many.
	Sessions uint32
	// Protocol is the protocol the sender runs (config.Protocol); a
	// replica refuses a connection that names another one, since the two
	// protocols' messages mean different things. Empty says nothing, for
	// tools that only ask a replica's state (swiftpaxos -run status).
	Protocol string
	// Durable, when Kind == PeerReplica, says the sender keeps its state
	// on disk (dataDir): a replica refuses a peer that does not agree,
	// since a durable replica restarts a member and an in-memory one a
	// learner, and a majority of in-memory replicas acknowledges what a
	// whole-cluster crash takes back.
	Durable bool
	// Leases, when Kind == PeerReplica, says the sender holds and honours
	// leases (leaseReads): a replica refuses a peer that does not agree,
	// since a leader's lease counts acknowledgements whose senders
	// promised not to vote (docs/DECISIONS.md 55).
	Leases bool
}

// MaxAliasLen bounds Hello.Alias.
const MaxAliasLen = 255

// MaxProtocolLen bounds Hello.Protocol.
const MaxProtocolLen = 32

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
func (*StatusRequest) Type() MsgType    { return TypeStatusRequest }
func (*StatusReply) Type() MsgType      { return TypeStatusReply }
func (*Routed) Type() MsgType           { return TypeRouted }
func (*InstallSnapshotAck) Type() MsgType {
	return TypeInstallSnapshotAck
}
