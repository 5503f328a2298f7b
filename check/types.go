package check

import (
	"swiftpaxos/kvs"
	"swiftpaxos/replica/applog"
	"swiftpaxos/replica/wire"
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
	// OpKind is the kind of a recorded operation (Put or Get) or of an
	// applied log entry (also Noop or Snapshot).
	OpKind = applog.Kind
	// LogEntry is one line of a replica's applied log.
	LogEntry = applog.Entry
)

// The kinds of operations and log entries.
const (
	Put      = applog.Put
	Get      = applog.Get
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

// Op is one record of a history: one invoked operation (PROTOCOL.md section
// 2.1). The JSON field names are the on-disk format.
type Op struct {
	Session SessionID `json:"session"`
	Seq     wire.Seq  `json:"seq"`
	Level   Level     `json:"level"`
	Kind    OpKind    `json:"op"`
	Key     kvs.Key   `json:"key"`
	// Value is the written value of a Put and the returned value of a
	// completed Get; "" means absent (NIL).
	Value string `json:"value"`
	// InvokeNS and ReturnNS are instants on the one clock all clients
	// share. ReturnNS is meaningless unless OK.
	InvokeNS int64 `json:"invoke_ns"`
	ReturnNS int64 `json:"return_ns"`
	// OK reports that the operation completed and its result is known.
	// An operation that never completed, or failed with an unknown
	// outcome, has OK false and is treated as pending (resp = +infinity).
	OK bool `json:"ok"`
	// Path is "fast", "slow" or empty; informational only.
	Path string `json:"path,omitempty"`
	// Scan marks one record of a SCAN: a SCAN of the key range [k, k+c]
	// is recorded as one Get per key of the range, each with its own Key
	// and Value, all sharing everything else (PROTOCOL.md 2.6 item 8;
	// ScanRecords builds them).
	Scan bool `json:"scan,omitempty"`
}

// ID returns the operation's CmdId.
func (o Op) ID() OpID { return OpID{Session: o.Session, Seq: o.Seq} }
