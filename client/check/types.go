package check

import (
	"fmt"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
)

// SessionID names a client session in a history (PROTOCOL.md section 1.5).
// It is an opaque string chosen by whoever records the history.
type SessionID string

// OpID identifies one operation: the CmdId (session, seq) of PROTOCOL.md
// section 1.5.
type OpID struct {
	Session SessionID
	Seq     wire.Seq
}

func (id OpID) String() string { return fmt.Sprintf("%s#%d", id.Session, uint64(id.Seq)) }

// Level is the consistency level of a recorded operation.
type Level uint8

const (
	// Strong operations are linearizable (PROTOCOL.md section 2.3).
	Strong Level = 1
	// Weak operations are causally consistent.
	Weak Level = 2
)

func (l Level) String() string {
	switch l {
	case Strong:
		return "strong"
	case Weak:
		return "weak"
	}
	return fmt.Sprintf("Level(%d)", uint8(l))
}

// MarshalText encodes l as "strong" or "weak".
func (l Level) MarshalText() ([]byte, error) {
	if l != Strong && l != Weak {
		return nil, fmt.Errorf("invalid level %d", uint8(l))
	}
	return []byte(l.String()), nil
}

// UnmarshalText accepts exactly "strong" or "weak".
func (l *Level) UnmarshalText(b []byte) error {
	switch string(b) {
	case "strong":
		*l = Strong
	case "weak":
		*l = Weak
	default:
		return fmt.Errorf("level %q is neither \"strong\" nor \"weak\"", b)
	}
	return nil
}

// OpKind is the kind of a recorded operation or applied log entry.
type OpKind uint8

const (
	// Put writes a key.
	Put OpKind = 1
	// Get reads a key.
	Get OpKind = 2
	// Noop changes nothing; it only appears in applied logs (PROTOCOL.md
	// section 6.3).
	Noop OpKind = 3
	// Snapshot is an applied-log marker, never an operation: the log goes
	// on after slot Slot, and the slots up to it that the log does not
	// list were installed from a snapshot of the same prefix (doc.go,
	// "Logs that start at a snapshot").
	Snapshot OpKind = 4
)

func (k OpKind) String() string {
	switch k {
	case Put:
		return "put"
	case Get:
		return "get"
	case Noop:
		return "noop"
	case Snapshot:
		return "snapshot"
	}
	return fmt.Sprintf("OpKind(%d)", uint8(k))
}

// MarshalText encodes k as "put", "get", "noop" or "snapshot".
func (k OpKind) MarshalText() ([]byte, error) {
	if k < Put || k > Snapshot {
		return nil, fmt.Errorf("invalid op kind %d", uint8(k))
	}
	return []byte(k.String()), nil
}

// UnmarshalText accepts exactly "put", "get", "noop" or "snapshot" (history
// records accept only the first two: validateOp).
func (k *OpKind) UnmarshalText(b []byte) error {
	switch string(b) {
	case "put":
		*k = Put
	case "get":
		*k = Get
	case "noop":
		*k = Noop
	case "snapshot":
		*k = Snapshot
	default:
		return fmt.Errorf("op %q is not one of \"put\", \"get\", \"noop\", \"snapshot\"", b)
	}
	return nil
}

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
func (o Op) ID() OpID { return OpID{o.Session, o.Seq} }

// LogEntry is one line of a replica's applied log, in slot order. The
// JSON field names are the on-disk format. No-op entries and snapshot
// markers carry only Slot and Kind. A command is one line, except a SCAN: one Get line per key of its
// range, in key order, with the same Slot, Session and Seq and Scan set
// (LogEntriesOf builds them).
type LogEntry struct {
	Slot    kvs.Slot  `json:"slot"`
	Session SessionID `json:"session"`
	Seq     wire.Seq  `json:"seq"`
	Kind    OpKind    `json:"op"`
	Key     kvs.Key   `json:"key"`
	Value   string    `json:"value"`
	Scan    bool      `json:"scan,omitempty"`
}

// ID returns the CmdId of the applied command.
func (e LogEntry) ID() OpID { return OpID{e.Session, e.Seq} }
