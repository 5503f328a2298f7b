package bench

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/check"
	"swiftpaxos/client"
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// A SCAN is one record: its range and limit, the items it returned and
// whether more exist (check/doc.go, "History records").
func TestHistoryRecordsScans(t *testing.T) {
	key := NewKeys(10, 0).Of
	h := &historyRecorder{session: "ab"}
	scan := client.Op{Level: wire.Weak, Command: kvs.Command{Op: kvs.OpScan, Key: key(4), End: key(7), Limit: 3}}
	h.record(3, scan, 10, 20, client.Result{Known: true, Items: []kvs.Item{{Key: key(5), Value: kvs.Value("v5"), Found: true, Version: 2}}, More: true, Path: client.PathWeak}, true)
	require.Len(t, h.ops, 1)
	o := h.ops[0]
	assert.Equal(t, check.Scan, o.Kind)
	assert.Equal(t, wire.Seq(3), o.Seq)
	assert.Equal(t, key(4), o.Key)
	assert.Equal(t, key(7), o.End)
	assert.Equal(t, int64(3), o.Limit)
	assert.True(t, o.More)
	assert.Equal(t, []check.Item{{Key: key(5), Value: "v5"}}, o.Items)
}

// A weak DELETE acknowledged before it executed is recorded with an
// unknown "existed", never a made-up one.
func TestHistoryRecordsUnknownExisted(t *testing.T) {
	key := NewKeys(10, 0).Of
	h := &historyRecorder{session: "ab"}
	del := client.Op{Level: wire.Weak, Command: kvs.Command{Op: kvs.OpDelete, Key: key(1)}}
	h.record(1, del, 10, 20, client.Result{Path: client.PathWeak}, true)
	require.Len(t, h.ops, 1)
	assert.True(t, h.ops[0].FoundUnknown)
	assert.False(t, h.ops[0].Found)
}
