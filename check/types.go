package check

import (
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
	"swiftpaxos/wire/applog"
)

// The checker reads the replicas' applied-log records (package applog)
// and names the sessions and commands of its histories as they do.
type (
	// SessionID names a client session in a history (PROTOCOL.md section
	// 1.5).
	SessionID = applog.SessionID
	// OpID identifies one operation: the CmdId (session, seq) of
	// PROTOCOL.md section 1.5.
	OpID = applog.CmdID
	// OpKind is the kind of a recorded operation or of an applied log
	// entry (also Noop or Snapshot).
	OpKind = applog.Kind
	// LogEntry is one line of a replica's applied log.
	LogEntry = applog.Entry
)

// The kinds of operations and log entries.
const (
	Put      = applog.Put
	Get      = applog.Get
	Delete   = applog.Delete
	CAS      = applog.CAS
	Incr     = applog.Incr
	Scan     = applog.Scan
	Noop     = applog.Noop
	Snapshot = applog.Snapshot
)

// Level is the consistency level of a recorded operation: the wire's,
// written "strong" or "weak".
type Level = wire.Level

const (
	// Strong operations are linearizable (PROTOCOL.md section 2.3).
	Strong = wire.Strong
	// Weak operations are causally consistent.
	Weak = wire.Weak
)

// The error results of an INCR, as a history records them (Op.Err).
const (
	ErrNotInteger = "not-integer"
	ErrOverflow   = "overflow"
)

// Op is one record of a history: one invoked operation (PROTOCOL.md
// section 2.1) with its command and, if it completed, its result. doc.go
// ("History records") says which fields each operation fills at each
// level; the JSON member names are in jsonl.go.
type Op struct {
	Session SessionID
	Seq     wire.Seq
	Level   Level
	Kind    OpKind
	// Key is the command's key; a SCAN's start ("": the first key).
	Key kvs.Key
	// End and Limit are a SCAN's (End "": past the last key).
	End   kvs.Key
	Limit int64
	// Value is what a PUT writes, or a CAS if it applies (unless Delete).
	Value string
	// Delete: the CAS deletes the key instead of writing Value.
	Delete bool
	// Expect, ExpectValue, ExpectVersion are a CAS's expectation.
	Expect        kvs.Expect
	ExpectValue   string
	ExpectVersion kvs.Slot
	// Delta is an INCR's.
	Delta int64
	// Ret and Found are the state the result reports: a GET's value, a
	// CAS's or INCR's state after it (the current one when it did not
	// apply). For a DELETE, Found says whether the key held a value.
	// Ret is meaningless unless Found.
	Ret   string
	Found bool
	// FoundUnknown: the reply does not say Found: a weak DELETE that
	// CURP-HO acknowledges before it executes, or a CAS that did not
	// apply whose reply said only that (a RESP CAS's 0). Such a CAS wrote
	// nothing and read nothing known: it has no parts, so the search and
	// the causal rules leave it out, and only the applied logs check it
	// (their entry of it says it did not apply).
	FoundUnknown bool
	// Applied is a CAS's.
	Applied bool
	// Err is an INCR's error result: "", ErrNotInteger or ErrOverflow.
	Err string
	// Items and More are a SCAN's result: the keys that held a value, in
	// key order, and whether more exist in the range.
	Items []Item
	More  bool
	// Through, for a SCAN with More, is the last key its answer covered
	// when that is past its last item: a weak SCAN's answer merged with
	// the session's own writes may drop keys the session deleted, the
	// last one included. "" means the last item.
	Through kvs.Key
	// InvokeNS and ReturnNS are instants on the one clock all clients
	// share. ReturnNS is meaningless unless OK.
	InvokeNS int64
	ReturnNS int64
	// OK reports that the operation completed and its result is known.
	// An operation that never completed, or failed with an unknown
	// outcome, has OK false and is treated as pending (resp = +infinity).
	OK bool
	// Path is "fast", "slow" or empty; informational only.
	Path string
	// Ordered: the client sent the operation ordered (client.Op.Ordered):
	// it must take effect after every earlier operation of its session
	// that conflicts with it (RuleOrdered).
	Ordered bool
}

// Item is one key of a SCAN result and its value.
type Item struct {
	Key   kvs.Key
	Value string
}

// ID returns the operation's CmdId.
func (o Op) ID() OpID { return OpID{Session: o.Session, Seq: o.Seq} }

// part is what every rule but linearizability works on: one read or one
// write of one key (parts.go lowers each operation to its parts).
// Found is, for a read, whether it found a value, and for a write whether
// it writes one (false: a DELETE's absent).
type part struct {
	Session  SessionID
	Seq      wire.Seq
	Level    Level
	Kind     OpKind // Put or Get
	Key      kvs.Key
	Value    string
	Found    bool
	InvokeNS int64
	ReturnNS int64
	OK       bool
	Path     string
	// Scan: one of the reads of a SCAN, which share the CmdId.
	Scan bool
	// cmd is the index of the operation in the history.
	cmd int32
	// counter: an INCR's write, whose value need not be unique; unknown:
	// a pending INCR's, whose value is not known.
	counter, unknown bool
}

// ID returns the part's CmdId, its operation's.
func (o part) ID() OpID { return OpID{Session: o.Session, Seq: o.Seq} }
