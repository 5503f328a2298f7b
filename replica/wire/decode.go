package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"swiftpaxos/kvs"
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
		m = h
	case TypePropose:
		m = &Propose{Cmd: d.cmdID(), Command: d.command(), AckUpTo: d.seq(), WeakDep: d.seq()}
	case TypeLeaderReply:
		m = &LeaderReply{Replica: d.replica(), Ballot: d.ballot(), Cmd: d.cmdID(), Ok: d.bool(),
			Retry: d.bool(), Result: d.value(), Version: d.slot(), Slot: d.slot(), ReadDep: d.readDep(),
			Items: d.items()}
	case TypeRecordAck:
		m = &RecordAck{Replica: d.replica(), Ballot: d.ballot(), Cmd: d.cmdID(), Ok: d.bool(),
			CausalDeps: d.cmdIDs(), DepCommittedSeq: d.seq(), ReadDep: d.readDep()}
	case TypeSyncReply:
		m = &SyncReply{Replica: d.replica(), Ballot: d.ballot(), Cmd: d.cmdID(), Result: d.value(),
			Version: d.slot(), Slot: d.slot(), WeakCommittedSeq: d.seq(), Items: d.items(), Refused: d.bool()}
	case TypeSync:
		m = &Sync{Cmd: d.cmdID()}
	case TypeAccept:
		m = &Accept{Ballot: d.ballot(), Leader: d.replica(), PrevSlot: d.slot(), PrevBallot: d.ballot(),
			Entries: d.entries(), LeaderCommit: d.slot()}
	case TypeAcceptAck:
		m = &AcceptAck{Ballot: d.ballot(), Replica: d.replica(), Success: d.bool(), MatchSlot: d.slot(), Learner: d.bool()}
	case TypeCommit:
		m = &Commit{Ballot: d.ballot(), CommitIndex: d.slot()}
	case TypeNotLeader:
		m = &NotLeader{Ballot: d.ballot(), Leader: d.replica(), Cmd: d.cmdID()}
	case TypeWitnessSync:
		m = &WitnessSync{Records: d.records()}
	case TypeWeakPropose:
		m = &WeakPropose{Cmd: d.cmdID(), Command: d.command(), CausalDep: d.seq(), AckUpTo: d.seq()}
	case TypeWeakReply:
		m = &WeakReply{Replica: d.replica(), Ballot: d.ballot(), Cmd: d.cmdID(), Slot: d.slot(),
			Committed: d.bool(), Refused: d.bool()}
	case TypeWeakCommit:
		m = &WeakCommit{Ballot: d.ballot(), Commits: d.slotOfs()}
	case TypeWeakRead:
		m = &WeakRead{Cmd: d.cmdID(), Command: d.command(), MinSlot: d.slot(), Ballot: d.ballot(), Attempt: d.attempt()}
	case TypeWeakReadReply:
		m = &WeakReadReply{Replica: d.replica(), Ballot: d.ballot(), Cmd: d.cmdID(), Attempt: d.attempt(),
			Retry: d.bool(), Result: d.value(), Version: d.slot(), AppliedIndex: d.slot(), WeakApplied: d.seq(),
			Items: d.items()}
	case TypeCausalPropose:
		m = &CausalPropose{Cmd: d.cmdID(), Command: d.command(), CausalDep: d.seq(), Bound: d.replica(),
			AckUpTo: d.seq()}
	case TypeCausalReply:
		m = &CausalReply{Replica: d.replica(), Ballot: d.ballot(), Cmd: d.cmdID()}
	case TypeRequestVote:
		m = &RequestVote{Ballot: d.ballot(), Candidate: d.replica(), LastSlot: d.slot(),
			LastBallot: d.ballot()}
	case TypeRequestVoteReply:
		m = &RequestVoteReply{Ballot: d.ballot(), Replica: d.replica(), Granted: d.bool()}
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
			Mark: d.slot(), Incarnation: d.uvarint(), Founders: d.uvarints()}
	case TypeInstallSnapshotAck:
		m = &InstallSnapshotAck{Ballot: d.ballot(), Replica: d.replica(), LastSlot: d.slot(), Chunk: d.u32("chunk")}
	case TypePreVoteReply:
		m = &PreVoteReply{Ballot: d.ballot(), PreBallot: d.ballot(), Replica: d.replica(), Granted: d.bool()}
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

// decoder consumes buf from the front. The first failure is recorded in
// problem; after it every read returns a zero value, so callers check once at
// the end.
type decoder struct {
	buf     []byte
	problem string
	at      int  // len(buf) when the problem was found (for its offset)
	alias   bool // value returns sub-slices of buf; the caller detaches them
}

func (d *decoder) fail(problem string) {
	if d.problem == "" {
		d.problem, d.at = problem, len(d.buf)
	}
	d.buf = nil
}

func (d *decoder) u8() byte {
	if len(d.buf) == 0 {
		d.fail("truncated")
		return 0
	}
	v := d.buf[0]
	d.buf = d.buf[1:]
	return v
}

// uvarint reads one uvarint, with a fast path for the common one-byte case.
func (d *decoder) uvarint() uint64 {
	if b := d.buf; len(b) > 0 && b[0] < 0x80 {
		d.buf = b[1:]
		return uint64(b[0])
	}
	return d.uvarintSlow()
}

func (d *decoder) uvarintSlow() uint64 {
	v, n := binary.Uvarint(d.buf)
	switch {
	case n == 0:
		d.fail("truncated varint")
		return 0
	case n < 0:
		d.fail("varint overflows 64 bits")
		return 0
	case n > 1 && d.buf[n-1] == 0:
		d.fail("non-minimal varint")
		return 0
	}
	d.buf = d.buf[n:]
	return v
}

// varint undoes binary.AppendVarint's zigzag encoding.
func (d *decoder) varint() int64 {
	u := d.uvarint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v
}

func (d *decoder) bool() bool {
	switch d.u8() {
	case 0:
		return false
	case 1:
		return true
	}
	d.fail("bool not 0 or 1")
	return false
}

func (d *decoder) seq() Seq { return Seq(d.uvarint()) }

func (d *decoder) slot() kvs.Slot { return kvs.Slot(d.uvarint()) }

func (d *decoder) ballot() Ballot { return Ballot(d.u32("ballot")) }

func (d *decoder) attempt() uint32 { return d.u32("attempt") }

// u32 reads a uvarint that must fit in 32 bits.
func (d *decoder) u32(what string) uint32 {
	v := d.uvarint()
	if v > math.MaxUint32 {
		d.fail(what + " exceeds 32 bits")
		return 0
	}
	return uint32(v)
}

func (d *decoder) replica() ReplicaID {
	v := d.varint()
	if v < math.MinInt32 || v > math.MaxInt32 {
		d.fail("replica id exceeds 32 bits")
		return 0
	}
	return ReplicaID(v)
}

func (d *decoder) peerKind() PeerKind {
	k := PeerKind(d.u8())
	if k != PeerReplica && k != PeerClient {
		d.fail(fmt.Sprintf("invalid PeerKind %d", k))
		return 0
	}
	return k
}

func (d *decoder) level() Level {
	l := Level(d.u8())
	if l != Strong && l != Weak {
		d.fail(fmt.Sprintf("invalid Level %d", l))
		return 0
	}
	return l
}

func (d *decoder) cmdID() CmdID {
	return CmdID{Client: ClientID(d.uvarint()), Seq: Seq(d.uvarint())}
}

// value copies a byte string out of the input (or, while d.alias is set,
// returns it in place for detach to copy); empty decodes as nil.
func (d *decoder) value() kvs.Value {
	n := d.uvarint()
	switch {
	case n >= kvs.MaxValueLen:
		d.fail(fmt.Sprintf("value length %d not below %d", n, kvs.MaxValueLen))
		return nil
	case n > uint64(len(d.buf)):
		d.fail(fmt.Sprintf("value length %d exceeds the %d bytes left", n, len(d.buf)))
		return nil
	case n == 0:
		return nil
	}
	var v kvs.Value
	if d.alias {
		v = kvs.Value(d.buf[:n:n])
	} else {
		v = make(kvs.Value, n)
		copy(v, d.buf)
	}
	d.buf = d.buf[n:]
	return v
}

// detach copies the n values that value(i) points at, which alias the input,
// into one new array: one allocation for a whole list instead of one per
// element. Each value gets a capacity equal to its length, so appending to
// one cannot overwrite its neighbour.
func detach(n int, value func(i int) *kvs.Value) {
	total := 0
	for i := range n {
		total += len(*value(i))
	}
	if total == 0 {
		return
	}
	arena := make([]byte, total)
	off := 0
	for i := range n {
		v := value(i)
		if k := copy(arena[off:], *v); k > 0 {
			*v = arena[off : off+k : off+k]
			off += k
		}
	}
}

func (d *decoder) command() kvs.Command {
	op := kvs.Op(d.u8())
	if !op.Valid() {
		d.fail(fmt.Sprintf("invalid Op %d", op))
	}
	return kvs.Command{Op: op, Key: kvs.Key(d.varint()), Count: d.varint(), Value: d.value()}
}

func (d *decoder) readDep() ReadDep {
	switch k := ReadDepKind(d.u8()); k {
	case DepNone, DepMulti:
		return ReadDep{Kind: k}
	case DepOne:
		return ReadDep{Kind: k, Cmd: d.cmdID()}
	default:
		d.fail(fmt.Sprintf("invalid ReadDepKind %d", k))
		return ReadDep{}
	}
}

// count reads a list length and checks that the remaining bytes can hold
// that many elements of at least minSize bytes each, so a forged count cannot
// make the decoder allocate more than the input justifies.
func (d *decoder) count(minSize int) int {
	n := d.uvarint()
	if n > uint64(len(d.buf)/minSize) {
		d.fail(fmt.Sprintf("list of %d elements cannot fit in %d bytes", n, len(d.buf)))
		return 0
	}
	return int(n)
}

func (d *decoder) cmdIDs() []CmdID {
	n := d.count(minCmdID)
	if n == 0 {
		return nil
	}
	cs := make([]CmdID, n)
	for i := range cs {
		cs[i] = d.cmdID()
	}
	return cs
}

func (d *decoder) slotOfs() []SlotOf {
	n := d.count(minSlotOf)
	if n == 0 {
		return nil
	}
	ss := make([]SlotOf, n)
	for i := range ss {
		ss[i] = SlotOf{Cmd: d.cmdID(), Slot: d.slot(), Refused: d.bool()}
	}
	return ss
}

func (d *decoder) entries() []Entry {
	n := d.count(minEntry)
	if n == 0 {
		return nil
	}
	es := make([]Entry, n)
	d.alias = true
	for i := range es {
		es[i] = Entry{Slot: d.slot(), Ballot: d.ballot(), Cmd: d.cmdID(), Command: d.command(),
			Level: d.level(), CausalDep: d.seq(), AckUpTo: d.seq()}
	}
	d.alias = false
	detach(n, func(i int) *kvs.Value { return &es[i].Command.Value })
	return es
}

func (d *decoder) records() []Record {
	n := d.count(minRecord)
	if n == 0 {
		return nil
	}
	rs := make([]Record, n)
	d.alias = true
	for i := range rs {
		rs[i] = Record{Cmd: d.cmdID(), Command: d.command(), Level: d.level(), Accepted: d.bool(),
			Ballot: d.ballot(), Arrival: d.uvarint(), CausalDep: d.seq(), Age: d.uvarint()}
	}
	d.alias = false
	detach(n, func(i int) *kvs.Value { return &rs[i].Command.Value })
	return rs
}

func (d *decoder) items() []kvs.Item {
	n := d.count(minItem)
	if n == 0 {
		return nil
	}
	is := make([]kvs.Item, n)
	d.alias = true
	for i := range is {
		is[i] = kvs.Item{Key: kvs.Key(d.varint()), Value: d.value(), Version: d.slot()}
	}
	d.alias = false
	detach(n, func(i int) *kvs.Value { return &is[i].Value })
	return is
}

func (d *decoder) sessions() []SessionState {
	n := d.count(minSession)
	if n == 0 {
		return nil
	}
	ss := make([]SessionState, n)
	for i := range ss {
		ss[i] = SessionState{Client: ClientID(d.uvarint()), Floor: d.seq(), WeakCommittedSeq: d.seq()}
		if k := d.count(minResult); k > 0 {
			rs := make([]SessionResult, k)
			for j := range rs {
				rs[j] = SessionResult{Seq: d.seq(), Slot: d.slot(), Refused: d.bool(), Value: d.value(), Version: d.slot(),
					Items: d.items()}
			}
			ss[i].Results = rs
		}
		ss[i].Ended = d.slot()
	}
	return ss
}

func (d *decoder) uvarints() []uint64 {
	n := d.count(1)
	if n == 0 {
		return nil
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = d.uvarint()
	}
	return out
}
