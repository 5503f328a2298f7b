package wire

import (
	"encoding/binary"
	"fmt"
)

// MaxFrame is the largest body length a frame may announce. It bounds what a
// receiver allocates for one frame; senders must split larger batches.
const MaxFrame = 16 << 20

// frameHeader is the number of bytes before the body: length and type.
const frameHeader = 5

// Minimum encoded sizes of list elements (doc.go); the decoder checks list
// counts against them before allocating.
const (
	minCmdID   = 2
	minCommand = 1
	minEntry   = 1 + 1 + minCmdID + minCommand + 1 + 1 + 1
	minRecord  = minCmdID + minCommand + 1 + 1 + 1 + 1 + 1 + 1
	minSlotOf  = minCmdID + 1 + 1
	minItem    = 1 + 1 + 1 + 1
	minOutcome = 1 + 1 + 1 + 1 + 1
	minResult  = 1 + 1 + 1 + minOutcome
	minSession = 1 + 1 + 1 + 1 + 1
)

var typeNames = [typeEnd]string{
	TypeHello:              "Hello",
	TypePropose:            "Propose",
	TypeLeaderReply:        "LeaderReply",
	TypeRecordAck:          "RecordAck",
	TypeSyncReply:          "SyncReply",
	TypeSync:               "Sync",
	TypeAccept:             "Accept",
	TypeAcceptAck:          "AcceptAck",
	TypeCommit:             "Commit",
	TypeNotLeader:          "NotLeader",
	TypeWitnessSync:        "WitnessSync",
	TypeWeakPropose:        "WeakPropose",
	TypeWeakReply:          "WeakReply",
	TypeWeakCommit:         "WeakCommit",
	TypeWeakRead:           "WeakRead",
	TypeWeakReadReply:      "WeakReadReply",
	TypeCausalPropose:      "CausalPropose",
	TypeCausalReply:        "CausalReply",
	TypeRequestVote:        "RequestVote",
	TypeRequestVoteReply:   "RequestVoteReply",
	TypeCollect:            "Collect",
	TypeCollectReply:       "CollectReply",
	TypeNewView:            "NewView",
	TypePreVote:            "PreVote",
	TypePreVoteReply:       "PreVoteReply",
	TypeInstallSnapshot:    "InstallSnapshot",
	TypeInstallSnapshotAck: "InstallSnapshotAck",
	TypeJoin:               "Join",
	TypeJoinReply:          "JoinReply",
	TypeEndSession:         "EndSession",
	TypeStatusRequest:      "StatusRequest",
	TypeStatusReply:        "StatusReply",
	TypeRouted:             "Routed",
}

// Valid reports whether t is a defined message type.
func (t MsgType) Valid() bool { return t >= TypeHello && t < typeEnd }

func (t MsgType) String() string {
	if t.Valid() {
		return typeNames[t]
	}
	return fmt.Sprintf("MsgType(%d)", uint8(t))
}

// AppendFrame appends the frame of m (doc.go) to dst and returns the extended
// slice. It allocates only if dst lacks capacity, so a sender that reuses its
// buffer (buf = AppendFrame(buf[:0], m)) encodes without allocating. It does
// not validate m (see the package invariants). m must be a non-nil pointer to
// one of this package's message structs; anything else is a programming error
// and panics.
func AppendFrame(dst []byte, m Message) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0, byte(m.Type()))
	dst = appendBody(dst, m)
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start-frameHeader))
	return dst
}

// appendBody appends m's body, its fields in declaration order.
func appendBody(b []byte, m Message) []byte {
	switch m := m.(type) {
	case *Routed:
		b = appendUvarint(b, uint64(m.Session))
		b = append(b, byte(m.Msg.Type()))
		b = appendBody(b, m.Msg)
	case *StatusRequest:
		b = appendUvarint(b, m.Nonce)
	case *StatusReply:
		b = appendUvarint(b, m.Nonce)
		b = appendReplica(b, m.Replica)
		b = append(b, m.Role)
		b = appendBool(b, m.Member)
		b = appendUvarint(b, uint64(m.Ballot))
		b = appendReplica(b, m.Leader)
		b = appendUvarint(b, uint64(m.CommitIndex))
		b = appendUvarint(b, uint64(m.AppliedIndex))
		b = appendUvarint(b, uint64(m.LastSlot))
		b = appendUvarint(b, uint64(m.SnapshotSlot))
		b = appendUvarint(b, m.Sessions)
		b = appendUvarint(b, m.WitnessRecords)
		b = appendUvarint(b, m.UptimeMs)
		b = appendBool(b, m.Durable)
		b = appendUvarint(b, m.Fsyncs)
		b = appendUvarint(b, m.FsyncMeanNs)
		b = append(b, byte(m.Joining))
		b = appendBool(b, m.ClusterNew)
		b = appendUvarint(b, m.Fresh)
		b = appendUvarint(b, m.FreshNew)
		b = appendUvarint(b, m.RESPConns)
		b = appendBool(b, m.Leases)
		b = appendUvarint(b, m.LeaseMs)
		b = appendBool(b, m.Quiet)
		b = appendBool(b, m.Founding)
	case *Hello:
		b = append(b, byte(m.Kind))
		b = appendReplica(b, m.Replica)
		b = appendUvarint(b, uint64(m.Client))
		b = appendBytes(b, []byte(m.Alias))
		b = appendUvarint(b, uint64(m.Sessions))
		b = appendBytes(b, []byte(m.Protocol))
		b = appendBool(b, m.Durable)
		b = appendBool(b, m.Leases)
	case *Propose:
		b = appendCmdID(b, m.Cmd)
		b = appendCommand(b, &m.Command)
		b = appendUvarint(b, uint64(m.AckUpTo))
		b = appendUvarint(b, uint64(m.WeakDep))
		b = appendBool(b, m.LeaderRead)
	case *LeaderReply:
		b = appendReplica(b, m.Replica)
		b = appendUvarint(b, uint64(m.Ballot))
		b = appendCmdID(b, m.Cmd)
		b = appendBool(b, m.Ok)
		b = appendBool(b, m.Retry)
		b = appendResult(b, &m.Result)
		b = appendUvarint(b, uint64(m.Slot))
		b = appendReadDep(b, m.ReadDep)
		b = appendUvarints(b, m.Lives)
	case *RecordAck:
		b = appendReplica(b, m.Replica)
		b = appendUvarint(b, uint64(m.Ballot))
		b = appendCmdID(b, m.Cmd)
		b = appendBool(b, m.Ok)
		b = appendUvarint(b, uint64(len(m.CausalDeps)))
		for _, c := range m.CausalDeps {
			b = appendCmdID(b, c)
		}
		b = appendUvarint(b, uint64(m.DepCommittedSeq))
		b = appendReadDep(b, m.ReadDep)
		b = appendUvarint(b, m.Life)
	case *SyncReply:
		b = appendReplica(b, m.Replica)
		b = appendUvarint(b, uint64(m.Ballot))
		b = appendCmdID(b, m.Cmd)
		b = appendResult(b, &m.Result)
		b = appendUvarint(b, uint64(m.Slot))
		b = appendUvarint(b, uint64(m.WeakCommittedSeq))
		b = appendBool(b, m.Refused)
	case *Sync:
		b = appendCmdID(b, m.Cmd)
	case *Accept:
		b = appendUvarint(b, uint64(m.Ballot))
		b = appendReplica(b, m.Leader)
		b = appendUvarint(b, uint64(m.PrevSlot))
		b = appendUvarint(b, uint64(m.PrevBallot))
		b = appendUvarint(b, uint64(len(m.Entries)))
		for i := range m.Entries {
			b = appendEntry(b, &m.Entries[i])
		}
		b = appendUvarint(b, uint64(m.LeaderCommit))
		b = appendUvarint(b, m.Round)
		b = appendUvarint(b, m.Life)
	case *AcceptAck:
		b = appendUvarint(b, uint64(m.Ballot))
		b = appendReplica(b, m.Replica)
		b = appendBool(b, m.Success)
		b = appendUvarint(b, uint64(m.MatchSlot))
		b = appendBool(b, m.Learner)
		b = appendUvarint(b, m.Round)
	case *Commit:
		b = appendUvarint(b, uint64(m.Ballot))
		b = appendUvarint(b, uint64(m.CommitIndex))
	case *NotLeader:
		b = appendUvarint(b, uint64(m.Ballot))
		b = appendReplica(b, m.Leader)
		b = appendCmdID(b, m.Cmd)
	case *WitnessSync:
		b = appendRecords(b, m.Records)
	case *WeakPropose:
		b = appendCmdID(b, m.Cmd)
		b = appendCommand(b, &m.Command)
		b = appendUvarint(b, uint64(m.CausalDep))
		b = appendUvarint(b, uint64(m.AckUpTo))
	case *WeakReply:
		b = appendReplica(b, m.Replica)
		b = appendUvarint(b, uint64(m.Ballot))
		b = appendCmdID(b, m.Cmd)
		b = appendUvarint(b, uint64(m.Slot))
		b = appendBool(b, m.Committed)
		b = appendBool(b, m.Refused)
	case *WeakCommit:
		b = appendUvarint(b, uint64(m.Ballot))
		b = appendUvarint(b, uint64(len(m.Commits)))
		for _, c := range m.Commits {
			b = appendCmdID(b, c.Cmd)
			b = appendUvarint(b, uint64(c.Slot))
			b = appendBool(b, c.Refused)
		}
	case *WeakRead:
		b = appendCmdID(b, m.Cmd)
		b = appendCommand(b, &m.Command)
		b = appendUvarint(b, uint64(m.MinSlot))
		b = appendUvarint(b, uint64(m.Ballot))
		b = appendUvarint(b, uint64(m.Attempt))
	case *WeakReadReply:
		b = appendReplica(b, m.Replica)
		b = appendUvarint(b, uint64(m.Ballot))
		b = appendCmdID(b, m.Cmd)
		b = appendUvarint(b, uint64(m.Attempt))
		b = appendBool(b, m.Retry)
		b = appendResult(b, &m.Result)
		b = appendUvarint(b, uint64(m.AppliedIndex))
		b = appendUvarint(b, uint64(m.WeakApplied))
	case *CausalPropose:
		b = appendCmdID(b, m.Cmd)
		b = appendCommand(b, &m.Command)
		b = appendUvarint(b, uint64(m.CausalDep))
		b = appendReplica(b, m.Bound)
		b = appendUvarint(b, uint64(m.AckUpTo))
	case *CausalReply:
		b = appendReplica(b, m.Replica)
		b = appendUvarint(b, uint64(m.Ballot))
		b = appendCmdID(b, m.Cmd)
	case *RequestVote:
		b = appendUvarint(b, uint64(m.Ballot))
		b = appendReplica(b, m.Candidate)
		b = appendUvarint(b, uint64(m.LastSlot))
		b = appendUvarint(b, uint64(m.LastBallot))
	case *RequestVoteReply:
		b = appendUvarint(b, uint64(m.Ballot))
		b = appendReplica(b, m.Replica)
		b = appendBool(b, m.Granted)
		b = appendUvarints(b, m.Lives)
	case *Collect:
		b = appendUvarint(b, uint64(m.Ballot))
	case *CollectReply:
		b = appendUvarint(b, uint64(m.Ballot))
		b = appendReplica(b, m.Replica)
		b = appendRecords(b, m.Records)
		b = appendUvarint(b, uint64(m.LastSlot))
		b = appendUvarint(b, uint64(m.LastBallot))
	case *NewView:
		b = appendUvarint(b, uint64(m.Ballot))
		b = appendReplica(b, m.Leader)
		b = appendUvarint(b, uint64(m.ViewStart))
		b = appendBool(b, m.Committed)
	case *PreVote:
		b = appendUvarint(b, uint64(m.Ballot))
		b = appendReplica(b, m.Candidate)
		b = appendUvarint(b, uint64(m.LastSlot))
		b = appendUvarint(b, uint64(m.LastBallot))
	case *InstallSnapshot:
		b = appendUvarint(b, uint64(m.Ballot))
		b = appendReplica(b, m.Leader)
		b = appendUvarint(b, uint64(m.LastSlot))
		b = appendUvarint(b, uint64(m.LastBallot))
		b = appendUvarint(b, uint64(m.Chunk))
		b = appendBool(b, m.Done)
		b = appendUvarint(b, uint64(len(m.Sessions)))
		for i := range m.Sessions {
			b = appendSession(b, &m.Sessions[i])
		}
		b = appendItems(b, m.Items)
	case *EndSession:
		b = appendUvarint(b, uint64(m.Client))
	case *Join:
		b = appendReplica(b, m.Replica)
		b = appendUvarint(b, m.Incarnation)
	case *JoinReply:
		b = appendUvarint(b, uint64(m.Ballot))
		b = appendReplica(b, m.Replica)
		b = appendReplica(b, m.Leader)
		b = appendUvarint(b, uint64(m.LastSlot))
		b = appendBool(b, m.Member)
		b = appendUvarint(b, uint64(m.Mark))
		b = appendUvarint(b, m.Incarnation)
		b = appendUvarints(b, m.Founders)
		b = appendBool(b, m.ClusterNew)
		b = appendUvarint(b, uint64(m.PreGranted))
		b = appendUvarints(b, m.Lives)
	case *InstallSnapshotAck:
		b = appendUvarint(b, uint64(m.Ballot))
		b = appendReplica(b, m.Replica)
		b = appendUvarint(b, uint64(m.LastSlot))
		b = appendUvarint(b, uint64(m.Chunk))
	case *PreVoteReply:
		b = appendUvarint(b, uint64(m.Ballot))
		b = appendUvarint(b, uint64(m.PreBallot))
		b = appendReplica(b, m.Replica)
		b = appendBool(b, m.Granted)
		b = appendUvarints(b, m.Lives)
	default:
		panic(fmt.Sprintf("wire: AppendFrame of unsupported message %T", m))
	}
	return b
}

func appendUvarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }

// appendUvarints appends a list of uvarints, its length first.
func appendUvarints(b []byte, vs []uint64) []byte {
	b = appendUvarint(b, uint64(len(vs)))
	for _, v := range vs {
		b = appendUvarint(b, v)
	}
	return b
}

func appendReplica(b []byte, r ReplicaID) []byte { return binary.AppendVarint(b, int64(r)) }

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendBytes(b []byte, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

func appendCmdID(b []byte, c CmdID) []byte {
	b = binary.AppendUvarint(b, uint64(c.Client))
	return binary.AppendUvarint(b, uint64(c.Seq))
}

// appendReadDep sends the Cmd only for DepOne: it is meaningless otherwise.
func appendReadDep(b []byte, d ReadDep) []byte {
	b = append(b, byte(d.Kind))
	if d.Kind == DepOne {
		b = appendCmdID(b, d.Cmd)
	}
	return b
}

func appendEntry(b []byte, e *Entry) []byte {
	b = binary.AppendUvarint(b, uint64(e.Slot))
	b = binary.AppendUvarint(b, uint64(e.Ballot))
	b = appendCmdID(b, e.Cmd)
	b = appendCommand(b, &e.Command)
	b = append(b, byte(e.Level))
	b = binary.AppendUvarint(b, uint64(e.CausalDep))
	return binary.AppendUvarint(b, uint64(e.AckUpTo))
}

func appendRecords(b []byte, rs []Record) []byte {
	b = binary.AppendUvarint(b, uint64(len(rs)))
	for i := range rs {
		r := &rs[i]
		b = appendCmdID(b, r.Cmd)
		b = appendCommand(b, &r.Command)
		b = append(b, byte(r.Level))
		b = appendBool(b, r.Accepted)
		b = binary.AppendUvarint(b, uint64(r.Ballot))
		b = binary.AppendUvarint(b, r.Arrival)
		b = binary.AppendUvarint(b, uint64(r.CausalDep))
		b = binary.AppendUvarint(b, r.Age)
	}
	return b
}

func appendSession(b []byte, st *SessionState) []byte {
	b = binary.AppendUvarint(b, uint64(st.Client))
	b = binary.AppendUvarint(b, uint64(st.Floor))
	b = binary.AppendUvarint(b, uint64(st.WeakCommittedSeq))
	b = binary.AppendUvarint(b, uint64(len(st.Results)))
	for i := range st.Results {
		r := &st.Results[i]
		b = binary.AppendUvarint(b, uint64(r.Seq))
		b = binary.AppendUvarint(b, uint64(r.Slot))
		b = appendBool(b, r.Refused)
		b = appendResult(b, &r.Result)
	}
	return binary.AppendUvarint(b, uint64(st.Ended))
}
