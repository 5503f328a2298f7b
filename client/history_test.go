package client

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/check"
	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
)

// TestHistoryRecordsScans: a SCAN is one get record per key of its range
// with the value its result gives the key (NIL for a key it does not
// list), and a pending SCAN is NIL everywhere.
func TestHistoryRecordsScans(t *testing.T) {
	h := &historyRecorder{session: "ab"}
	scan := Op{Level: wire.Weak, Command: kvs.Command{Op: kvs.OpScan, Key: 4, Count: 2}}
	h.record(3, scan, 10, 20, Result{Items: []kvs.Item{{Key: 5, Value: kvs.Value("v5"), Version: 2}}, Path: PathWeak}, true)
	h.record(4, scan, 30, 0, Result{}, false)
	rec := func(seq wire.Seq, key kvs.Key, v string, ret int64, ok bool) check.Op {
		return check.Op{Session: "ab", Seq: seq, Level: check.Weak, Kind: check.Get, Key: key, Value: v,
			InvokeNS: map[wire.Seq]int64{3: 10, 4: 30}[seq], ReturnNS: ret, OK: ok, Scan: true}
	}
	require.Equal(t, []check.Op{
		rec(3, 4, "", 20, true), rec(3, 5, "v5", 20, true), rec(3, 6, "", 20, true),
		rec(4, 4, "", 0, false), rec(4, 5, "", 0, false), rec(4, 6, "", 0, false),
	}, h.ops)
}
