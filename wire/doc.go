// Package wire owns the messages that replicas and clients exchange and their
// binary encoding: the typed identifiers (ids.go), the message structs
// (messages.go, messages_client.go, messages_peer.go: one per message of
// PROTOCOL.md sections 3.8, 4.2, 5.2 and 6), and the codec that turns them
// into frames and back (encode.go, decode.go, decoder.go, reader.go). It
// does no networking beyond reading frames from an io.Reader and knows
// nothing about protocol state.
//
// PROTOCOL.md section 3.8 leaves the encoding to the implementation. This
// comment is the specification of the one used here.
//
// # Frames
//
// A connection carries a sequence of frames, with no other header or padding:
//
//	offset 0..3  body length n, uint32 little-endian (the type byte not counted)
//	offset 4     message type, one byte (the MsgType constants; 0 is invalid)
//	offset 5..   body, exactly n bytes, laid out as below for that type
//
// n must not exceed MaxFrame (a Reader may be given a smaller limit). The
// first frame on every connection is a Hello.
//
// # Primitives
//
//	uvarint  unsigned LEB128 as written by binary.AppendUvarint, at most 10
//	         bytes, in its shortest form (a multi-byte varint whose last byte
//	         is 0x00 is rejected)
//	varint   a signed integer as written by binary.AppendVarint: zigzag, then
//	         uvarint (so shortest form too)
//	u8       one byte
//	bool     u8: 0 = false, 1 = true; anything else is malformed
//	bytes    uvarint length m, then m bytes; m is at most kvs.MaxValueLimit
//	         for a value, kvs.MaxKeyLimit for a key
//	list(T)  uvarint count k, then k encodings of T
//
// Typed fields map onto primitives as follows:
//
//	ClientID, Seq, kvs.Slot, Arrival   uvarint
//	Ballot                             uvarint, at most 2^32-1
//	ReplicaID                          varint, within int32 (NoReplica is -1)
//	kvs.Key, kvs.Value                 bytes
//	kvs.Op                             u8, 1..7 (GET, PUT, SCAN, NOOP,
//	                                   DELETE, CAS, INCR)
//	kvs.Expect                         u8, 1..3 (absent, value, version)
//	Level                              u8, 1 (Strong) or 2 (Weak)
//	PeerKind                           u8, 1 (replica), 2 (client) or 3
//	                                   (the sessions of a client process)
//	ReadDepKind                        u8, 0 (NONE), 1 (ONE) or 2 (MULTI)
//
// Composite fields, each field in order (minimum sizes in brackets; a
// decoder rejects a list count larger than the remaining bytes divided by the
// element's minimum size before allocating):
//
//	CmdID    [2]  Client uvarint, Seq uvarint
//	Command  [1]  Op u8, then the fields the Op uses:
//	              GET, DELETE  Key
//	              PUT          Key, Value
//	              SCAN         Key (start), End Key, Limit uvarint (< 2^63)
//	              CAS          Key, Expect, then ExpectValue bytes (value)
//	                           or ExpectVersion uvarint (version) or
//	                           nothing (absent), Delete bool, then Value
//	                           bytes unless Delete
//	              INCR         Key, Delta varint
//	              NOOP         nothing
//	ReadDep  [1]  Kind u8, then Cmd CmdID only if Kind is ONE
//	              (for NONE and MULTI the Cmd is not sent and decodes as zero)
//	Entry    [8]  Slot uvarint, Ballot, Cmd CmdID, Command, Level u8,
//	              CausalDep uvarint, AckUpTo uvarint
//	Record   [9]  Cmd CmdID, Command, Level u8, Accepted bool, Ballot,
//	              Arrival uvarint, CausalDep uvarint, Age uvarint
//	SlotOf   [4]  Cmd CmdID, Slot uvarint, Refused bool
//	Item     [4]  Key, Value bytes, Found bool, Version uvarint (kvs.Item)
//	Outcome  [5]  Flags u8 (1 Found, 2 More, 4 Applied; other bits 0),
//	              Err u8 (0..2), Value bytes, Version uvarint, Items
//	              list(Item) (kvs.Result)
//	Result   [8]  Seq, Slot, Refused bool, Result Outcome
//	Session  [5]  Client uvarint, Floor Seq, WeakCommittedSeq Seq,
//	              Results list(Result), Ended Slot
//
// # Bodies
//
// Each body is its struct's fields in declaration order:
//
//	 1 Hello             Kind u8, Replica varint, Client uvarint, Alias bytes, Sessions uvarint,
//	                     Protocol bytes, Durable bool, Leases bool
//	                     (at most MaxAliasLen and MaxProtocolLen bytes)
//	                     (both ids and Sessions are sent whatever the Kind)
//	 2 Propose           Cmd, Command, AckUpTo, WeakDep, LeaderRead bool
//	 3 LeaderReply       Replica, Ballot, Cmd, Ok bool, Retry bool,
//	                     Result Outcome, Slot, ReadDep, Lives list(uvarint)
//	 4 RecordAck         Replica, Ballot, Cmd, Ok bool,
//	                     CausalDeps list(CmdID), DepCommittedSeq, ReadDep,
//	                     Life uvarint
//	 5 SyncReply         Replica, Ballot, Cmd, Result Outcome, Slot,
//	                     WeakCommittedSeq, Refused bool
//	 6 Sync              Cmd
//	 7 Accept            Ballot, Leader, PrevSlot, PrevBallot,
//	                     Entries list(Entry), LeaderCommit, Round uvarint,
//	                     Life uvarint
//	 8 AcceptAck         Ballot, Replica, Success bool, MatchSlot, Learner bool,
//	                     Round uvarint
//	 9 Commit            Ballot, CommitIndex
//	10 NotLeader         Ballot, Leader, Cmd
//	11 WitnessSync       Records list(Record)
//	12 WeakPropose       Cmd, Command, CausalDep, AckUpTo
//	13 WeakReply         Replica, Ballot, Cmd, Slot, Committed bool,
//	                     Refused bool
//	14 WeakCommit        Ballot, Commits list(SlotOf)
//	15 WeakRead          Cmd, Command, MinSlot, Ballot, Attempt uvarint
//	                     (at most 2^32-1)
//	16 WeakReadReply     Replica, Ballot, Cmd, Attempt, Retry bool,
//	                     Result Outcome, AppliedIndex, WeakApplied Seq
//	17 CausalPropose     Cmd, Command, CausalDep, Bound, AckUpTo
//	18 CausalReply       Replica, Ballot, Cmd
//	19 RequestVote       Ballot, Candidate, LastSlot, LastBallot
//	20 RequestVoteReply  Ballot, Replica, Granted bool, Lives list(uvarint)
//	21 Collect           Ballot
//	22 CollectReply      Ballot, Replica, Records list(Record), LastSlot,
//	                     LastBallot
//	23 NewView           Ballot, Leader, ViewStart, Committed bool
//	24 PreVote           Ballot, Candidate, LastSlot, LastBallot
//	25 PreVoteReply      Ballot, PreBallot Ballot, Replica, Granted bool,
//	                     Lives list(uvarint)
//	26 InstallSnapshot   Ballot, Leader, LastSlot, LastBallot, Chunk uvarint
//	                     (32 bits), Done bool, Sessions list(Session),
//	                     Items list(Item)
//	27 InstallSnapshotAck Ballot, Replica, LastSlot, Chunk
//	28 Join              Replica, Incarnation uvarint
//	29 JoinReply         Ballot, Replica, Leader, LastSlot, Member bool, Mark,
//	                     Incarnation uvarint, Founders list(uvarint),
//	                     ClusterNew bool, PreGranted Ballot,
//	                     Lives list(uvarint)
//	30 EndSession        Client uvarint
//
// For example a Sync for CmdID{Client: 5, Seq: 300} is the 8 bytes
// 03 00 00 00 06 05 ac 02.
//
// # Invariants
//
//   - Canonical: Decode accepts exactly the byte strings AppendFrame produces,
//     so a decoded message re-encodes to the same bytes. Trailing bytes after
//     a body, truncated input, non-shortest varints, out-of-range ids, an
//     unknown type byte and an invalid Op, Level, PeerKind, ReadDepKind or
//     bool are all errors wrapping ErrMalformed.
//   - Nil and empty are the same: an empty kvs.Value and an empty list are
//     encoded like nil ones and always decode as nil. (Nothing is lost:
//     whether a key holds a value is said by Found, not by the value.)
//   - No aliasing: decoded messages copy every byte string out of the input,
//     so they may be kept after the input buffer is reused. The keys and
//     values of one list (Accept.Entries, Records, Items), or of one command,
//     share one new array, one allocation per
//     list; each has capacity equal to its length, so appending to one
//     cannot clobber another.
//   - Bounded decoding: no input, however crafted, makes the decoder panic or
//     allocate more than the message struct (under 160 bytes) plus 21 bytes
//     per input byte. The worst case is a list of minimal 8-byte Entries
//     (NOOPs), each decoding into a 168-byte struct; list counts are checked against
//     the minimum sizes above before any slice is made. A Reader never
//     allocates for a frame longer than its limit, and grows its buffer only
//     as body bytes actually arrive.
//   - AppendFrame does not validate. Sending an invalid Op, Level, PeerKind
//     or ReadDepKind, a value over kvs.MaxValueLimit bytes, or a body
//     larger than MaxFrame is a bug of the sender; the receiver rejects the
//     frame. In particular no-op log entries must carry a Level.
//   - Type numbers and field order are the wire format: append new types
//     before typeEnd and never reorder; TestEveryTypeHasACase and the golden
//     seed corpus (testdata/fuzz/FuzzDecode/seed-*) catch accidental changes.
//
// # Thread safety
//
// AppendFrame and Decode are pure functions of their arguments and may be
// called from any number of goroutines at once (AppendFrame writes only into
// the dst it is given, and the message must not be modified concurrently).
// A Reader belongs to one goroutine, the one that drains its connection;
// that goroutine delivers messages in order (PROTOCOL.md section 1.1 FIFO).
package wire
