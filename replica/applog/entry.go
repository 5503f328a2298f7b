package applog

import (
	"fmt"
	"strconv"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
)

// SessionID names a client session in an applied log and in a client's
// history (PROTOCOL.md section 1.5). It is an opaque string chosen by
// whoever records it.
type SessionID string

// SessionOf names the session of client id as histories, applied logs and
// the session's own log lines do: the id in lower-case hex, which the
// replicas know as well as the client.
func SessionOf(id wire.ClientID) SessionID { return SessionID(strconv.FormatUint(uint64(id), 16)) }

// CmdID identifies one command: the CmdId (session, seq) of PROTOCOL.md
// section 1.5.
type CmdID struct {
	Session SessionID
	Seq     wire.Seq
}

func (id CmdID) String() string { return fmt.Sprintf("%s#%d", id.Session, uint64(id.Seq)) }

// Kind is the kind of an applied-log entry; the checker's history records
// use the same kinds (only Put and Get).
type Kind uint8

const (
	// Put writes a key.
	Put Kind = 1
	// Get reads a key.
	Get Kind = 2
	// Noop changes nothing; it only appears in applied logs (PROTOCOL.md
	// section 6.3).
	Noop Kind = 3
	// Snapshot is an applied-log marker, never an operation: the log goes
	// on after slot Slot, and the slots up to it that the log does not
	// list were installed from a snapshot of the same prefix (doc.go,
	// "Snapshot markers").
	Snapshot Kind = 4
)

func (k Kind) String() string {
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
func (k Kind) MarshalText() ([]byte, error) {
	if k < Put || k > Snapshot {
		return nil, fmt.Errorf("invalid op kind %d", uint8(k))
	}
	return []byte(k.String()), nil
}

// UnmarshalText accepts exactly "put", "get", "noop" or "snapshot" (the
// checker's history records accept only the first two).
func (k *Kind) UnmarshalText(b []byte) error {
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

// Entry is one line of a replica's applied log, in slot order. The JSON
// field names are the on-disk format. No-op entries and snapshot markers
// carry only Slot and Kind. A command is one line, except a SCAN: one Get
// line per key of its range, in key order, with the same Slot, Session
// and Seq and Scan set (EntriesOf builds them).
type Entry struct {
	Slot    kvs.Slot  `json:"slot"`
	Session SessionID `json:"session"`
	Seq     wire.Seq  `json:"seq"`
	Kind    Kind      `json:"op"`
	Key     kvs.Key   `json:"key"`
	Value   string    `json:"value"`
	Scan    bool      `json:"scan,omitempty"`
}

// ID returns the CmdId of the applied command.
func (e Entry) ID() CmdID { return CmdID{e.Session, e.Seq} }

// EntryOf is the applied-log line of an executed command: a put with its
// value, a get with the value it returned, a no-op. It reports false for a
// SCAN, which takes one line per key (EntriesOf).
func EntryOf(slot kvs.Slot, session SessionID, seq wire.Seq, cmd kvs.Command, result kvs.Value) (Entry, bool) {
	le := Entry{Slot: slot, Session: session, Seq: seq, Key: cmd.Key}
	switch cmd.Op {
	case kvs.OpPut:
		le.Kind, le.Value = Put, string(cmd.Value)
	case kvs.OpGet:
		le.Kind, le.Value = Get, string(result)
	case kvs.OpNoop:
		le.Kind = Noop
	default:
		return Entry{}, false
	}
	return le, true
}

// EntriesOf returns the applied-log lines of a command executed at
// slot: one line for a put (with its value), a get (with the value it
// returned, res.Value) or a no-op, and for a SCAN one get line per key of
// its range, in key order, with the value res.Items gives it (NIL for a
// key not listed). It returns nil for an unknown operation.
func EntriesOf(slot kvs.Slot, session SessionID, seq wire.Seq, cmd kvs.Command, res kvs.Result) []Entry {
	if cmd.Op != kvs.OpScan {
		if le, ok := EntryOf(slot, session, seq, cmd, res.Value); ok {
			return []Entry{le}
		}
		return nil
	}
	out := make([]Entry, 0, len(res.Items))
	for _, it := range res.Items {
		out = append(out, Entry{Slot: slot, Session: session, Seq: seq, Kind: Get, Key: it.Key, Value: string(it.Value), Scan: true})
	}
	return out
}
