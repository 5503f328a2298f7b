package check

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// opID names the operation (session, seq).
func opID(session string, seq uint64) OpID {
	return OpID{Session: SessionID(session), Seq: wire.Seq(seq)}
}

// key names key number n: its decimal digits, as bytes.
func key(n int) kvs.Key { return kvs.Key(strconv.Itoa(n)) }

// op builds a completed history record of a put, or of a get that
// returned value ("" for absent: these tests never write the empty value).
func op(session string, seq uint64, lvl Level, kind OpKind, k int, value string, inv, ret int64) Op {
	o := Op{Session: SessionID(session), Seq: wire.Seq(seq), Level: lvl, Kind: kind, Key: key(k),
		InvokeNS: inv, ReturnNS: ret, OK: true}
	if kind == Get {
		o.Ret, o.Found = value, value != ""
	} else {
		o.Value = value
	}
	return o
}

func sPut(s string, seq uint64, key int, v string, inv, ret int64) Op {
	return op(s, seq, Strong, Put, key, v, inv, ret)
}
func wPut(s string, seq uint64, key int, v string, inv, ret int64) Op {
	return op(s, seq, Weak, Put, key, v, inv, ret)
}
func sGet(s string, seq uint64, key int, v string, inv, ret int64) Op {
	return op(s, seq, Strong, Get, key, v, inv, ret)
}
func wGet(s string, seq uint64, key int, v string, inv, ret int64) Op {
	return op(s, seq, Weak, Get, key, v, inv, ret)
}

// pending turns a record into one that never completed.
func pending(o Op) Op {
	o.OK, o.ReturnNS = false, 0
	o.Ret, o.Found, o.Applied, o.Items, o.More = "", false, false, nil, false
	return o
}

// logOf builds an applied log holding the operations of ops in order,
// from slot 1, as a replica that applied them would write it.
func logOf(ops ...Op) []LogEntry {
	out := make([]LogEntry, len(ops))
	for i, o := range ops {
		out[i] = entryOf(kvs.Slot(i+1), o)
	}
	return out
}

// entryOf is the applied-log line of operation o at slot.
func entryOf(slot kvs.Slot, o Op) LogEntry {
	e := LogEntry{Slot: slot, Session: o.Session, Seq: o.Seq, Kind: o.Kind, Key: o.Key, End: o.End, Limit: o.Limit,
		Value: o.Value, Delete: o.Delete, Delta: o.Delta, Ret: o.Ret, Found: o.Found, Applied: o.Applied, More: o.More, Items: len(o.Items)}
	if o.Kind == Incr {
		e.Applied = o.Err == ""
	}
	return e
}

func requireOK(t *testing.T, r Report) {
	t.Helper()
	require.True(t, r.OK(), "expected OK, got:\n%s", r)
}

// requireViolation asserts that r holds a violation of rule whose message
// contains every fragment, and returns it.
func requireViolation(t *testing.T, r Report, rule Rule, fragments ...string) Violation {
	t.Helper()
	for _, v := range r.Violations {
		if v.Rule != rule {
			continue
		}
		ok := true
		for _, f := range fragments {
			ok = ok && strings.Contains(v.Message, f)
		}
		if ok {
			return v
		}
	}
	require.Failf(t, "missing violation", "no %s violation mentioning %q in:\n%s", rule, fragments, r)
	return Violation{}
}

// requireOnly asserts that every violation in r is of one of the rules.
func requireOnly(t *testing.T, r Report, rules ...Rule) {
	t.Helper()
	for _, v := range r.Violations {
		require.Contains(t, rules, v.Rule, "unexpected violation: %s", v)
	}
}

// scanOp builds a completed SCAN of [start, end) with limit that returned
// the items given as key, value pairs (more: false).
func scanOp(session string, seq uint64, lvl Level, start, end kvs.Key, limit int64, inv, ret int64, kv ...string) Op {
	o := Op{Session: SessionID(session), Seq: wire.Seq(seq), Level: lvl, Kind: Scan, Key: start, End: end, Limit: limit,
		InvokeNS: inv, ReturnNS: ret, OK: true}
	for i := 0; i+1 < len(kv); i += 2 {
		o.Items = append(o.Items, Item{Key: kvs.Key(kv[i]), Value: kv[i+1]})
	}
	return o
}

// asReads turns the gets of a history written with the value a get
// returned in Value ("" for absent), as the random generators build them,
// into records with Ret and Found.
func asReads(h []Op) []Op {
	out := make([]Op, len(h))
	for i, o := range h {
		if o.Kind == Get {
			o.Ret, o.Found, o.Value = o.Value, o.OK && o.Value != "", ""
			if !o.Found {
				o.Ret = ""
			}
		}
		out[i] = o
	}
	return out
}

// returns makes get o return v ("" for absent).
func returns(o *Op, v string) { o.Ret, o.Found = v, v != "" }
