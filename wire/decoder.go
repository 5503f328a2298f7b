package wire

import (
	"encoding/binary"
	"fmt"
	"math"

	"swiftpaxos/kvs"
)

// The decoder's primitives (doc.go, "Primitives") and the lists built
// from them.

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

func (d *decoder) joinState() JoinState {
	s := JoinState(d.u8())
	if s > JoinLearner {
		d.fail("join state out of range")
	}
	return s
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
	if k != PeerReplica && k != PeerClient && k != PeerSessions {
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
	detach(n, func(i int) (*kvs.Key, *kvs.Value) { return &es[i].Command.Key, &es[i].Command.Value })
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
	detach(n, func(i int) (*kvs.Key, *kvs.Value) { return &rs[i].Command.Key, &rs[i].Command.Value })
	return rs
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
				rs[j] = SessionResult{Seq: d.seq(), Slot: d.slot(), Refused: d.bool(), Result: d.result()}
			}
			ss[i].Results = rs
		}
		ss[i].Ended = d.slot()
	}
	return ss
}

func (d *decoder) uvarints() []uint64 { return d.uvarintsIn(nil) }

// uvarintsIn is uvarints, in buf's array when it has room.
func (d *decoder) uvarintsIn(buf []uint64) []uint64 {
	n := d.count(1)
	if n == 0 {
		return nil
	}
	out := buf[:0]
	if n > cap(buf) {
		out = make([]uint64, 0, n)
	}
	for range n {
		out = append(out, d.uvarint())
	}
	return out[:n:n]
}

// leaderReplyLives is a decoded LeaderReply with room for the Lives of up
// to seven replicas, in one allocation: a session decodes one reply per
// strong operation.
type leaderReplyLives struct {
	m     LeaderReply
	lives [7]uint64
}
