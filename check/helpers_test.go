package check

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
)

// opID names the operation (session, seq).
func opID(session string, seq uint64) OpID {
	return OpID{Session: SessionID(session), Seq: wire.Seq(seq)}
}

// op builds a completed history record.
func op(session string, seq uint64, lvl Level, kind OpKind, key kvs.Key, value string, inv, ret int64) Op {
	return Op{Session: SessionID(session), Seq: wire.Seq(seq), Level: lvl, Kind: kind, Key: key,
		Value: value, InvokeNS: inv, ReturnNS: ret, OK: true}
}

func sPut(s string, seq uint64, key kvs.Key, v string, inv, ret int64) Op {
	return op(s, seq, Strong, Put, key, v, inv, ret)
}
func wPut(s string, seq uint64, key kvs.Key, v string, inv, ret int64) Op {
	return op(s, seq, Weak, Put, key, v, inv, ret)
}
func sGet(s string, seq uint64, key kvs.Key, v string, inv, ret int64) Op {
	return op(s, seq, Strong, Get, key, v, inv, ret)
}
func wGet(s string, seq uint64, key kvs.Key, v string, inv, ret int64) Op {
	return op(s, seq, Weak, Get, key, v, inv, ret)
}

// pending turns a record into one that never completed.
func pending(o Op) Op {
	o.OK, o.ReturnNS = false, 0
	if o.Kind == Get {
		o.Value = ""
	}
	return o
}

// logOf builds an applied log holding the puts and gets of ops in order,
// from slot 1.
func logOf(ops ...Op) []LogEntry {
	out := make([]LogEntry, len(ops))
	for i, o := range ops {
		out[i] = LogEntry{Slot: kvs.Slot(i + 1), Session: o.Session, Seq: o.Seq, Kind: o.Kind, Key: o.Key, Value: o.Value}
	}
	return out
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
