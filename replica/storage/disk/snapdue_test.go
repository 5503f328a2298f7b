package disk

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/storage"
	"swiftpaxos/wire"
)

// TestSnapshotDueAfterALogWorth: a snapshot the replica took is worth
// writing once the log written since the snapshot on disk is as large as
// that snapshot, also after a restart (which knows the file's size).
func TestSnapshotDueAfterALogWorth(t *testing.T) {
	dir := t.TempDir()
	s, _, err := Open(dir, testCluster, zaptest.NewLogger(t))
	require.NoError(t, err)
	require.True(t, s.SnapshotDue(), "no snapshot on disk yet")

	store := kvs.NewStore()
	for k := 1; k <= 500; k++ {
		store.Apply(kvs.Slot(k), kvs.Command{Op: kvs.OpPut, Key: testKey(k), Value: kvs.Value("value-of-some-length")})
	}
	require.NoError(t, s.SaveSnapshot(&storage.Snapshot{LastSlot: 500, LastBallot: 0, Store: store.Snapshot()}))
	require.False(t, s.SnapshotDue(), "nothing logged since")

	slot := kvs.Slot(500)
	logged := func(n int) {
		for range n {
			slot++
			require.NoError(t, s.Write([]*storage.Batch{{Entries: []wire.Entry{{Slot: slot, Cmd: wire.CmdID{Client: 1, Seq: wire.Seq(slot)},
				Level: wire.Strong, Command: kvs.Command{Op: kvs.OpPut, Key: testKey(1), Value: kvs.Value("v")}}}}}))
		}
	}
	logged(10)
	require.False(t, s.SnapshotDue(), "a little log is cheaper to keep than the snapshot to write")
	for !s.SnapshotDue() {
		logged(10)
		require.Less(t, slot, kvs.Slot(100000), "never due")
	}
	require.NoError(t, s.Close())

	s, _, err = Open(dir, testCluster, zaptest.NewLogger(t))
	require.NoError(t, err)
	defer s.Close()
	require.False(t, s.SnapshotDue(), "the file on disk is known after a restart")
}
