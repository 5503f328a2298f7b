package disk

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/storage"
	"swiftpaxos/wire"
)

// TestCorruptTableNamesTheFile: a flipped byte in one of pebble's tables
// makes Open fail with an error naming the table, where pebble's default
// would panic the process.
func TestCorruptTableNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	s, _, err := Open(dir, testCluster, nil)
	require.NoError(t, err)
	ent := func(s kvs.Slot) wire.Entry {
		return wire.Entry{Slot: s, Ballot: 1, Cmd: wire.CmdID{Client: 1, Seq: wire.Seq(s)}, Command: kvs.Command{Op: kvs.OpGet, Key: testKey(1)}, Level: wire.Strong}
	}
	require.NoError(t, s.Write([]*storage.Batch{{Hard: &storage.HardState{Ballot: 1, Vote: 0, Member: true}, Entries: []wire.Entry{ent(1), ent(2), ent(3)}}}))
	require.NoError(t, s.db.Flush())
	require.NoError(t, s.Close())

	tables, err := filepath.Glob(filepath.Join(dir, "db", "*.sst"))
	require.NoError(t, err)
	require.NotEmpty(t, tables)
	newest := tables[len(tables)-1] // the one with the entries
	b, err := os.ReadFile(newest)
	require.NoError(t, err)
	for i := range 16 {
		b[10+i] ^= 0xff
	}
	require.NoError(t, os.WriteFile(newest, b, 0o644))

	_, _, err = Open(dir, testCluster, nil)
	require.ErrorContains(t, err, newest+" is corrupt")
}

// TestCorruptLogIsAnError: bytes flipped in the middle of the log, with
// synced batches after them, are corruption: Open fails and names the
// database, where a torn tail (TestTornTailIsCut) is cut. Without log
// chunks that carry the synced offset the two look alike, and everything
// after the flipped bytes, acknowledged, would be dropped in silence.
func TestCorruptLogIsAnError(t *testing.T) {
	dir := t.TempDir()
	s, _, err := Open(dir, testCluster, zaptest.NewLogger(t))
	require.NoError(t, err)
	requireMidLogCorruptionFails(t, s, dir)
}

// TestUpgradedStoreGetsSyncedOffsets: a store an older build wrote, at
// pebble's oldest format, is moved to FormatWALSyncChunks by Open, and
// the log file Open started for it then has no synced offsets: Open
// starts another, so that corruption in the middle of the log written
// after the upgrade is an error too.
func TestUpgradedStoreGetsSyncedOffsets(t *testing.T) {
	dir := t.TempDir()
	old, err := pebble.Open(filepath.Join(dir, "db"), &pebble.Options{FormatMajorVersion: pebble.FormatMinSupported})
	require.NoError(t, err)
	require.NoError(t, old.Set([]byte{prefixCluster}, encodeCluster(testCluster), pebble.Sync))
	require.NoError(t, old.Close())

	s, _, err := Open(dir, testCluster, zaptest.NewLogger(t))
	require.NoError(t, err)
	require.Equal(t, pebble.FormatWALSyncChunks, s.db.FormatMajorVersion())
	requireMidLogCorruptionFails(t, s, dir)
}

// requireMidLogCorruptionFails writes 600 synced batches to s (open on
// dir), copies dir as a crash leaves it, closes s, flips bytes in the
// middle of the copy's log and requires Open to fail naming the database.
func requireMidLogCorruptionFails(t *testing.T, s *Store, dir string) {
	t.Helper()
	h := newHistory(3)
	for range 600 {
		b := h.next()
		b.Snapshot, b.Installed = nil, false
		require.NoError(t, s.Write([]*storage.Batch{b}))
	}
	crashed := t.TempDir()
	copyDir(t, dir, crashed)
	require.NoError(t, s.Close())
	flipInLog(t, crashed)
	_, _, err := Open(crashed, testCluster, zaptest.NewLogger(t))
	require.ErrorContains(t, err, filepath.Join(crashed, "db")+" is corrupt")
}

// TestCorruptionAfterOpenBreaksTheStore: a corrupt file pebble finds once
// the replica runs (a compaction reads a table) is said on Broken, once,
// naming the file: the replica stops instead of running on a disk that no
// longer holds what it acknowledged.
func TestCorruptionAfterOpenBreaksTheStore(t *testing.T) {
	s, _, err := Open(t.TempDir(), testCluster, nil)
	require.NoError(t, err)
	defer s.Close()
	s.corruption(pebble.DataCorruptionInfo{Path: "db/000009.sst", Details: errors.New("checksum mismatch")})
	s.corruption(pebble.DataCorruptionInfo{Path: "db/000009.sst", Details: errors.New("checksum mismatch")})
	select {
	case err := <-s.Broken():
		require.ErrorContains(t, err, "db/000009.sst is corrupt: checksum mismatch")
	default:
		t.Fatal("nothing on Broken")
	}
	require.Empty(t, s.Broken(), "said once")
}

// flipInLog flips 8 bytes a quarter into the newest log file of the store
// in dir, which must span a few of the log's 32 KiB blocks after them.
func flipInLog(t *testing.T, dir string) {
	t.Helper()
	newest, data, end := newestLog(t, dir)
	require.Greater(t, end, 3*32<<10, "the log spans blocks after the flipped bytes")
	for i := range 8 {
		data[end/4+i] ^= 0xff
	}
	require.NoError(t, os.WriteFile(newest, data, 0o644))
}

// newestLog reads the newest log file of the store in dir: its path, its
// bytes, and where the data ends (pebble writes zeros ahead of it).
func newestLog(t *testing.T, dir string) (string, []byte, int) {
	t.Helper()
	wals, err := filepath.Glob(filepath.Join(dir, "db", "*.log"))
	require.NoError(t, err)
	require.NotEmpty(t, wals)
	newest := wals[len(wals)-1]
	data, err := os.ReadFile(newest)
	require.NoError(t, err)
	return newest, data, len(bytes.TrimRight(data, "\x00"))
}
