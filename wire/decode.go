package wire

import (
	"errors"
	"fmt"
)

// ErrMalformed is wrapped by every error that reports bytes which are not a
// valid encoding (doc.go). A connection that yields one should be closed: its
// peer is buggy or hostile.
var ErrMalformed = errors.New("wire: malformed message")

// Decode decodes the body of a frame of type t. The body must be exactly one
// encoded message: trailing bytes are an error. The returned message does not
// alias body. Errors wrap ErrMalformed.
func Decode(t MsgType, body []byte) (Message, error) {
	d := decoder{buf: body}
	var m Message
	// Fields are decoded by composite literals: the Go spec evaluates the
	// calls in an expression in lexical left-to-right order, which is the
	// wire order of the fields.
	switch t {
	case TypeHello:
		h := &Hello{Kind: d.peerKind(), Replica: d.replica(), Client: ClientID(d.uvarint())}
		if a := d.value(); len(a) > MaxAliasLen {
			d.fail(fmt.Sprintf("alias of %d bytes is longer than %d", len(a), MaxAliasLen))
		} else {
			h.Alias = string(a)
		}
		h.Sessions = d.u32("sessions")
		if p := d.value(); len(p) > MaxProtocolLen {
			d.fail(fmt.Sprintf("protocol name of %d bytes is longer than %d", len(p), MaxProtocolLen))
		} else {
			h.Protocol = string(p)
		}
		h.Durable = d.bool()
		h.Leases = d.bool()
		m = h
	case TypePropose:
		m = &Propose{Cmd: d.cmdID(), Command: d.ownedCommand(), AckUpTo: d.seq(), WeakDep: d.seq(), LeaderRead: d.bool()}
	case TypeLeaderReply:
		r := new(leaderReplyLives)
		r.m = LeaderReply{Replica: d.replica(), Ballot: d.ballot(), Cmd: d.cmdID(), Ok: d.bool(),
			Retry: d.bool(), Result: d.result(), Slot: d.slot(), ReadDep: d.readDep()}
		r.m.Lives = d.uvarintsIn(r.lives[:0])
		m = &r.m
	case TypeRecordAck:
		m = &RecordAck{Replica: d.replica(), Ballot: d.ballot(), Cmd: d.cmdID(), Ok: d.bool(),
			CausalDeps: d.cmdIDs(), DepCommittedSeq: d.seq(), ReadDep: d.readDep(), Life: d.uvarint()}
	case TypeSyncReply:
		m = &SyncReply{Replica: d.replica(), Ballot: d.ballot(), Cmd: d.cmdID(), Result: d.result(),
			Slot: d.slot(), WeakCommittedSeq: d.seq(), Refused: d.bool()}
	case TypeSync:
		m = &Sync{Cmd: d.cmdID()}
	case TypeAccept:
		m = &Accept{Ballot: d.ballot(), Leader: d.replica(), PrevSlot: d.slot(), PrevBallot: d.ballot(),
			Entries: d.entries(), LeaderCommit: d.slot(), Round: d.uvarint(), Life: d.uvarint()}
	case TypeAcceptAck:
		m = &AcceptAck{Ballot: d.ballot(), Replica: d.replica(), Success: d.bool(), MatchSlot: d.slot(), Learner: d.bool(), Round: d.uvarint()}
	case TypeCommit:
		m = &Commit{Ballot: d.ballot(), CommitIndex: d.slot()}
	case TypeNotLeader:
		m = &NotLeader{Ballot: d.ballot(), Leader: d.replica(), Cmd: d.cmdID()}
	case TypeWitnessSync:
		m = &WitnessSync{Records: d.records()}
	case TypeWeakPropose:
		m = &WeakPropose{Cmd: d.cmdID(), Command: d.ownedCommand(), CausalDep: d.seq(), AckUpTo: d.seq()}
	case TypeWeakReply:
		m = &WeakReply{Replica: d.replica(), Ballot: d.ballot(), Cmd: d.cmdID(), Slot: d.slot(),
			Committed: d.bool(), Refused: d.bool()}
	case TypeWeakCommit:
		m = &WeakCommit{Ballot: d.ballot(), Commits: d.slotOfs()}
	case TypeWeakRead:
		m = &WeakRead{Cmd: d.cmdID(), Command: d.ownedCommand(), MinSlot: d.slot(), Ballot: d.ballot(), Attempt: d.attempt()}
	case TypeWeakReadReply:
		m = &WeakReadReply{Replica: d.replica(), Ballot: d.ballot(), Cmd: d.cmdID(), Attempt: d.attempt(),
			Retry: d.bool(), Result: d.result(), AppliedIndex: d.slot(), WeakApplied: d.seq()}
	case TypeCausalPropose:
		m = &CausalPropose{Cmd: d.cmdID(), Command: d.ownedCommand(), CausalDep: d.seq(), Bound: d.replica(),
			AckUpTo: d.seq()}
	case TypeCausalReply:
		m = &CausalReply{Replica: d.replica(), Ballot: d.ballot(), Cmd: d.cmdID()}
	case TypeRequestVote:
		m = &RequestVote{Ballot: d.ballot(), Candidate: d.replica(), LastSlot: d.slot(),
			LastBallot: d.ballot()}
	case TypeRequestVoteReply:
		m = &RequestVoteReply{Ballot: d.ballot(), Replica: d.replica(), Granted: d.bool(), Lives: d.uvarints()}
	case TypeCollect:
		m = &Collect{Ballot: d.ballot()}
	case TypeCollectReply:
		m = &CollectReply{Ballot: d.ballot(), Replica: d.replica(), Records: d.records(),
			LastSlot: d.slot(), LastBallot: d.ballot()}
	case TypeNewView:
		m = &NewView{Ballot: d.ballot(), Leader: d.replica(), ViewStart: d.slot(), Committed: d.bool()}
	case TypePreVote:
		m = &PreVote{Ballot: d.ballot(), Candidate: d.replica(), LastSlot: d.slot(), LastBallot: d.ballot()}
	case TypeInstallSnapshot:
		m = &InstallSnapshot{Ballot: d.ballot(), Leader: d.replica(), LastSlot: d.slot(), LastBallot: d.ballot(),
			Chunk: d.u32("chunk"), Done: d.bool(), Sessions: d.sessions(), Items: d.items()}
	case TypeEndSession:
		m = &EndSession{Client: ClientID(d.uvarint())}
	case TypeJoin:
		m = &Join{Replica: d.replica(), Incarnation: d.uvarint()}
	case TypeJoinReply:
		m = &JoinReply{Ballot: d.ballot(), Replica: d.replica(), Leader: d.replica(), LastSlot: d.slot(), Member: d.bool(),
			Mark: d.slot(), Incarnation: d.uvarint(), Founders: d.uvarints(), ClusterNew: d.bool(),
			PreGranted: d.ballot(), Lives: d.uvarints()}
	case TypeInstallSnapshotAck:
		m = &InstallSnapshotAck{Ballot: d.ballot(), Replica: d.replica(), LastSlot: d.slot(), Chunk: d.u32("chunk")}
	case TypePreVoteReply:
		m = &PreVoteReply{Ballot: d.ballot(), PreBallot: d.ballot(), Replica: d.replica(), Granted: d.bool(),
			Lives: d.uvarints()}
	case TypeStatusRequest:
		m = &StatusRequest{Nonce: d.uvarint()}
	case TypeStatusReply:
		m = &StatusReply{Nonce: d.uvarint(), Replica: d.replica(), Role: d.u8(), Member: d.bool(), Ballot: d.ballot(),
			Leader: d.replica(), CommitIndex: d.slot(), AppliedIndex: d.slot(), LastSlot: d.slot(), SnapshotSlot: d.slot(),
			Sessions: d.uvarint(), WitnessRecords: d.uvarint(), UptimeMs: d.uvarint(), Durable: d.bool(),
			Fsyncs: d.uvarint(), FsyncMeanNs: d.uvarint(), Joining: d.joinState(), ClusterNew: d.bool(),
			Fresh: d.uvarint(), FreshNew: d.uvarint(), RESPConns: d.uvarint(),
			Leases: d.bool(), LeaseMs: d.uvarint(), Quiet: d.bool(), Founding: d.bool()}
	case TypeRouted:
		r := &Routed{Session: ClientID(d.uvarint())}
		inner := MsgType(d.u8())
		switch {
		case d.problem != "":
		case inner == TypeHello || inner == TypeRouted || !inner.Valid():
			d.fail(fmt.Sprintf("a Routed cannot carry a %v", inner))
		default:
			msg, err := Decode(inner, d.buf)
			if err != nil {
				return nil, fmt.Errorf("%w: inside a Routed", err)
			}
			r.Msg, d.buf = msg, nil
		}
		m = r
	default:
		return nil, fmt.Errorf("%w: unknown message type %d", ErrMalformed, uint8(t))
	}
	if d.problem == "" && len(d.buf) != 0 {
		d.fail(fmt.Sprintf("%d trailing bytes", len(d.buf)))
	}
	if d.problem != "" {
		return nil, fmt.Errorf("%w: %v body of %d bytes: %s at offset %d",
			ErrMalformed, t, len(body), d.problem, len(body)-d.at)
	}
	return m, nil
}
