package client

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
)

// TestHistoryRecordsScans: a completed SCAN's records carry the values
// its result gives the keys it lists, all as parts of one scan of the
// session. (How a SCAN's range and its unlisted keys are recorded is the
// checker's format, check.ScanRecords.)
func TestHistoryRecordsScans(t *testing.T) {
	h := &historyRecorder{session: "ab"}
	scan := Op{Level: wire.Weak, Command: kvs.Command{Op: kvs.OpScan, Key: KeyOf(4), End: KeyOf(7), Limit: 3}}
	h.record(3, scan, 10, 20, Result{Known: true, Items: []kvs.Item{{Key: KeyOf(5), Value: kvs.Value("v5"), Found: true, Version: 2}}, Path: PathWeak}, true)
	require.NotEmpty(t, h.ops)
	found := false
	for _, o := range h.ops {
		assert.True(t, o.Scan)
		assert.Equal(t, wire.Seq(3), o.Seq)
		if o.Key == KeyOf(5) {
			found = true
			assert.Equal(t, "v5", o.Value)
		}
	}
	assert.True(t, found, "the listed key is recorded with its value: %+v", h.ops)
}
