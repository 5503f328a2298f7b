package wire

import (
	"fmt"

	"swiftpaxos/kvs"
)

// Messages between a client session and the replicas: requests, the
// replies to them and redirects (PROTOCOL.md 3.8, 4.2, 5.2).

// Propose carries a strong operation, client to every replica (section 3.8).
type Propose struct {
	Cmd     CmdID
	Command kvs.Command
	AckUpTo Seq
	WeakDep Seq // the barrier: Seq of the session's latest earlier weak write (CURP-HO) or of the command an ordered one follows (docs/DECISIONS.md 45)
	// LeaderRead: a read sent to the leader alone, which answers it from
	// committed state once a majority confirms it still leads, or else
	// logs it and answers on the slow path (docs/DECISIONS.md 46).
	LeaderRead bool
}

// LeaderReply is the leader's speculative reply (section 3.5).
type LeaderReply struct {
	Replica ReplicaID
	Ballot  Ballot
	Cmd     CmdID
	Ok      bool
	Retry   bool // CURP-HO barrier timed out: re-send weak writes, then re-propose
	Result  kvs.Result
	Slot    kvs.Slot
	ReadDep ReadDep
	// Lives is the leader's Lives (messages_peer.go) when it answered: a
	// session counts a witness's RecordAck toward the fast path only if
	// the witness's life is not older than the leader's entry for it
	// (docs/DECISIONS.md 58). Empty: no lives known (a test's reply).
	Lives Lives
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
	// Life is the witness's incarnation when it acknowledged: a life that
	// ended took its records with it (docs/DECISIONS.md 58).
	Life uint64
}

// SyncReply is the result of actual execution (section 3.3).
type SyncReply struct {
	Replica          ReplicaID
	Ballot           Ballot
	Cmd              CmdID
	Result           kvs.Result
	Slot             kvs.Slot
	WeakCommittedSeq Seq
	// Refused: the leader refused the command for good (its session's
	// causal chain is broken); it never executed and never will.
	Refused bool
}

// Sync asks for the result of an applied command (section 3.7).
type Sync struct {
	Cmd CmdID
}

// NotLeader redirects a client to the leader it should use.
type NotLeader struct {
	Ballot Ballot
	Leader ReplicaID
	Cmd    CmdID
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
	Result       kvs.Result
	AppliedIndex kvs.Slot
	// WeakApplied is the largest Seq of the session's weak writes applied
	// here; by the causal chain every earlier one is applied too, so the
	// answer is at least as new as each of them (docs/DECISIONS.md 10).
	WeakApplied Seq
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

// EndSession tells the replicas that a client closed its session cleanly:
// the leader ends it through the log (PROTOCOL.md 6.10).
type EndSession struct {
	Client ClientID
}

// StatusRequest asks a replica for its status (swiftpaxos -run status). It
// may come on any client connection; the replica's server answers it from
// the core's read-only accessors, outside the protocol (replica/server/status.go).
type StatusRequest struct {
	Nonce uint64 // echoed in the reply
}

// StatusReply is a replica's status, as its event loop saw it when the
// request arrived. Role is the replica.Role number (0 follower, 1
// candidate, 2 leader); Member is false while the replica is a learner
// or has not joined yet (docs/DECISIONS.md 21).
type StatusReply struct {
	Nonce        uint64
	Replica      ReplicaID
	Role         uint8
	Member       bool
	Ballot       Ballot
	Leader       ReplicaID // NoReplica: none known
	CommitIndex  kvs.Slot
	AppliedIndex kvs.Slot
	LastSlot     kvs.Slot
	// SnapshotSlot is the last slot compacted behind a snapshot (0: none).
	SnapshotSlot   kvs.Slot
	Sessions       uint64 // live client sessions
	WitnessRecords uint64
	UptimeMs       uint64
	// Durable says the replica keeps its state on disk (dataDir); Fsyncs
	// counts its log's fsyncs so far and FsyncMeanNs is their mean
	// duration (both 0 in memory mode).
	Durable     bool
	Fsyncs      uint64
	FsyncMeanNs uint64
	// Joining says how a replica that is not a member waits (JoinMember
	// for a member). ClusterNew is the replica's -cluster new; Fresh
	// counts the replicas, itself included, that it heard from lately
	// with nothing appended and no membership, and FreshNew those of them
	// started with -cluster new (docs/DECISIONS.md 37).
	Joining    JoinState
	ClusterNew bool
	Fresh      uint64
	FreshNew   uint64
	// RESPConns counts the connections of the replica's RESP front-end
	// (client/resp), 0 when it has none.
	RESPConns uint64
	// Leases says the replica runs with leaseReads; LeaseMs is, on a
	// leader, how long its lease still holds (0: it holds none).
	Leases  bool
	LeaseMs uint64
	// Quiet says the replica leads but has heard no majority of members
	// lately, so it sends them nothing (docs/DECISIONS.md 56); Founding
	// that it leads a new cluster and appends nothing until a majority of
	// replicas are members (on disk when durable: docs/DECISIONS.md 26
	// and 37).
	Quiet    bool
	Founding bool
}

// JoinState is how a replica that is not a member of the cluster waits to
// become one (docs/DECISIONS.md 21 and 37).
type JoinState uint8

const (
	// JoinMember: the replica is a member.
	JoinMember JoinState = iota
	// JoinFounding: no member answered; the replica waits for enough
	// fresh replicas to found the cluster.
	JoinFounding
	// JoinLearner: a member answered; the replica catches up from a
	// leader, or waits for one, before it becomes a member.
	JoinLearner
)

// String names the state as status prints it.
func (s JoinState) String() string {
	switch s {
	case JoinMember:
		return "member"
	case JoinFounding:
		return "founding"
	case JoinLearner:
		return "learner"
	}
	return fmt.Sprintf("JoinState(%d)", uint8(s))
}

// Routed carries a message between a session and a replica on a
// connection shared by many sessions (PeerSessions) when the message
// does not name the session itself (SessionOf): a NewView the replica
// sends every session, a Sync a CURP-HO session sends about another
// client's write, and the reply to it. Msg is never a Hello or a Routed.
type Routed struct {
	Session ClientID
	Msg     Message
}

// RouteTo returns m as it must travel to or from session id on a shared
// connection: m itself when it names id, else m inside a Routed.
func RouteTo(id ClientID, m Message) Message {
	if s, ok := SessionOf(m); ok && s == id {
		return m
	}
	return &Routed{Session: id, Msg: m}
}
