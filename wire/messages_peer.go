package wire

import "swiftpaxos/kvs"

// Messages between replicas: replication, witness sync, elections,
// recovery, snapshots and joining (PROTOCOL.md 3.2, 3.4, 6). NewView also
// goes to every client session the new leader knows.

// Accept replicates log entries; with no entries it is a heartbeat (section 3.2).
type Accept struct {
	Ballot       Ballot
	Leader       ReplicaID
	PrevSlot     kvs.Slot
	PrevBallot   Ballot
	Entries      []Entry
	LeaderCommit kvs.Slot
	// Round is the leader's latest leadership round: a follower's ack
	// echoing it confirms that the follower still followed this ballot
	// after the round began (the leader's leader reads,
	// docs/DECISIONS.md 46).
	Round uint64
	// Life is the leader's incarnation: in ballot 0 a follower takes no
	// entry from a life it knows has ended (docs/DECISIONS.md 53); 0 says
	// nothing.
	Life uint64
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
	Round   uint64 // the Round of the Accept answered
}

// Commit announces the commit index (section 3.2).
type Commit struct {
	Ballot      Ballot
	CommitIndex kvs.Slot
}

// WitnessSync hands stale witness records to the leader (section 3.4 rule 4).
type WitnessSync struct {
	Records []Record
}

// RequestVote asks for a vote (section 6.2).
type RequestVote struct {
	Ballot     Ballot
	Candidate  ReplicaID
	LastSlot   kvs.Slot
	LastBallot Ballot
}

// RequestVoteReply answers a RequestVote. Lives is the replier's view
// of the cluster's incarnations (Lives, below): a candidate counts a vote
// only from the life of its voter that cast it, as long as nobody has told
// it of a later one (docs/DECISIONS.md 51).
type RequestVoteReply struct {
	Ballot  Ballot
	Replica ReplicaID
	Granted bool
	Lives   Lives
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
	Lives     Lives // as in RequestVoteReply
}

// Lives lists, by replica, the highest incarnation the sender has heard
// of (0: none); the sender's own entry is its own incarnation. A replica
// that restarted without its state has a higher incarnation than its
// earlier lives, so an entry tells which of its grants and votes died with
// a life that no longer exists (docs/DECISIONS.md 51).
type Lives []uint64

// SessionResult is a stored outcome of an applied command in a session's
// row (PROTOCOL.md 3.1 clientTable).
type SessionResult struct {
	Seq     Seq
	Slot    kvs.Slot
	Refused bool
	Result  kvs.Result
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

// InstallSnapshot carries one chunk of the leader's snapshot to a follower
// that needs slots the leader compacted (PROTOCOL.md 6.10). The first
// chunks hold the client table, in order and in pieces of bounded size
// (FillChunk); then chunks hold store items; the last says Done. The
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
	// Incarnation numbers the process's life: a later life of the same
	// replica has a higher one (replica.Options.Incarnation), so a
	// replica that restarted is told apart from one still starting.
	Incarnation uint64
}

// JoinReply answers a Join with the replier's state. Mark is meaningful
// only from a leader in service (Leader == Replica): its last assigned slot
// when it answered. Founders, from a member of a cluster that bootstrapped,
// lists the incarnation of every replica at the bootstrap, by replica.
// ClusterNew says the replier was started as a new replica of the cluster
// (-cluster new): it was never a member, so a majority of such replicas,
// fresh, may found the cluster (docs/DECISIONS.md 37). PreGranted is the
// highest ballot the replier ever granted a pre-vote in (docs/DECISIONS.md
// 50). Lives is as in RequestVoteReply.
type JoinReply struct {
	Ballot      Ballot
	Replica     ReplicaID
	Leader      ReplicaID
	LastSlot    kvs.Slot
	Member      bool
	Mark        kvs.Slot
	Incarnation uint64
	Founders    []uint64
	ClusterNew  bool
	PreGranted  Ballot
	Lives       Lives
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
