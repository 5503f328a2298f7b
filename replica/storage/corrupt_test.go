package storage

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
)

// TestCorruptTableNamesTheFile: a flipped byte in one of pebble's tables
// makes Open fail with an error naming the table, where pebble's default
// would panic the process.
func TestCorruptTableNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	s, _, err := Open(dir, testCluster, nil)
	require.NoError(t, err)
	ent := func(s kvs.Slot) wire.Entry {
		return wire.Entry{Slot: s, Ballot: 1, Cmd: wire.CmdID{Client: 1, Seq: wire.Seq(s)}, Command: kvs.Command{Op: kvs.OpGet, Key: 1}, Level: wire.Strong}
	}
	require.NoError(t, s.Write([]*Batch{{Hard: &HardState{Ballot: 1, Vote: 0, Member: true}, Entries: []wire.Entry{ent(1), ent(2), ent(3)}}}))
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
// after the flipped bytes, acknowledged, was silently dropped.
func TestCorruptLogIsAnError(t *testing.T) {
	dir := t.TempDir()
	s, _, err := Open(dir, testCluster, zaptest.NewLogger(t))
	require.NoError(t, err)
	h := newHistory(3)
	for range 600 {
		b := h.next()
		b.Snapshot, b.Installed = nil, false
		require.NoError(t, s.Write([]*Batch{b}))
	}
	crashed := t.TempDir()
	copyDir(t, dir, crashed)
	require.NoError(t, s.Close())

	wals, err := filepath.Glob(filepath.Join(crashed, "db", "*.log"))
	require.NoError(t, err)
	newest := wals[len(wals)-1]
	data, err := os.ReadFile(newest)
	require.NoError(t, err)
	end := len(bytes.TrimRight(data, "\x00"))
	require.Greater(t, end, 3*32<<10, "the log spans blocks after the flipped bytes")
	for i := range 8 {
		data[end/4+i] ^= 0xff
	}
	require.NoError(t, os.WriteFile(newest, data, 0o644))
	_, _, err = Open(crashed, testCluster, zaptest.NewLogger(t))
	require.ErrorContains(t, err, filepath.Join(crashed, "db")+" is corrupt")
}
