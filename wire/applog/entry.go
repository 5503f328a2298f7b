package applog

import (
	"fmt"
	"strconv"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
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

// Entry is one line of a replica's applied log: one executed command, in
// slot order (doc.go lists the members each kind writes). No-op entries and
// snapshot markers carry only Slot and Kind.
type Entry struct {
	Slot    kvs.Slot
	Session SessionID
	Seq     wire.Seq
	Kind    Kind
	// Key is the command's key; a SCAN's start.
	Key kvs.Key
	// End and Limit are a SCAN's (End "": past the last key).
	End   kvs.Key
	Limit int64
	// Value is the value a PUT or a CAS writes.
	Value string
	// Delete: the CAS deletes the key rather than writing Value.
	Delete bool
	// Delta is an INCR's.
	Delta int64
	// Ret and Found are the key's state the result reports: a GET's value,
	// a CAS's or an INCR's state after it; for a DELETE, Found is whether
	// the key held a value before.
	Ret   string
	Found bool
	// Applied: a CAS applied, an INCR wrote (no error result).
	Applied bool
	// Items and More are a SCAN's: how many keys it returned, and whether
	// more exist.
	Items int
	More  bool
}

// ID returns the CmdId of the applied command.
func (e Entry) ID() CmdID { return CmdID{e.Session, e.Seq} }

// Writes reports whether the command wrote the store: a PUT, a DELETE, an
// applied CAS, an INCR without error.
func (e Entry) Writes() bool {
	return e.Kind == Put || e.Kind == Delete || (e.Kind == CAS || e.Kind == Incr) && e.Applied
}

// kindOf maps the store's operations to entry kinds.
var kindOf = [...]Kind{kvs.OpGet: Get, kvs.OpPut: Put, kvs.OpScan: Scan, kvs.OpNoop: Noop,
	kvs.OpDelete: Delete, kvs.OpCAS: CAS, kvs.OpIncr: Incr}

// EntryOf is the applied-log line of a command executed at slot with
// result res. It reports false for an unknown operation.
func EntryOf(slot kvs.Slot, session SessionID, seq wire.Seq, cmd kvs.Command, res kvs.Result) (Entry, bool) {
	if !cmd.Op.Valid() {
		return Entry{}, false
	}
	e := Entry{Slot: slot, Kind: kindOf[cmd.Op]}
	if e.Kind == Noop {
		return e, true
	}
	e.Session, e.Seq, e.Key = session, seq, cmd.Key
	switch e.Kind {
	case Get:
		e.Ret, e.Found = string(res.Value), res.Found
	case Put:
		e.Value = string(cmd.Value)
	case Delete:
		e.Found = res.Found
	case CAS:
		e.Value, e.Delete = string(cmd.Value), cmd.Delete
		e.Ret, e.Found, e.Applied = string(res.Value), res.Found, res.Applied
	case Incr:
		e.Delta = cmd.Delta
		e.Ret, e.Found, e.Applied = string(res.Value), res.Found, res.Err == kvs.ErrNone
	case Scan:
		e.End, e.Limit, e.Items, e.More = cmd.End, cmd.Limit, len(res.Items), res.More
	}
	return e, true
}

// EntriesOf returns the applied-log lines of a command executed at slot:
// one line (EntryOf), none for an unknown operation. The replica calls it
// for every command it executes.
func EntriesOf(slot kvs.Slot, session SessionID, seq wire.Seq, cmd kvs.Command, res kvs.Result) []Entry {
	if e, ok := EntryOf(slot, session, seq, cmd, res); ok {
		return []Entry{e}
	}
	return nil
}
