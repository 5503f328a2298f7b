package disk

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/storage"
	"swiftpaxos/wire"
)

// TestRecycledLogReadsBack: after memtable flushes pebble writes its log
// into an old log file it recycles (walFS.ReuseForWrite, zeros ahead of
// the new data, the old data past them); the store reads back what was
// written, before and after a crash.
func TestRecycledLogReadsBack(t *testing.T) {
	dir := t.TempDir()
	s, _, err := Open(dir, testCluster, zaptest.NewLogger(t))
	require.NoError(t, err)
	h, mem := newHistory(5), storage.NewMem()
	write := func(n int) {
		for range n {
			b := h.next()
			b.Snapshot, b.Installed = nil, false
			mem.Apply(b)
			require.NoError(t, s.Write([]*storage.Batch{b}))
		}
	}
	// Pebble recycles a log once a flush made it obsolete and its
	// cleanup ran, which may finish after Flush returns: flush again
	// until a new log went into a recycled file.
	for round := 0; s.reused.Load() == 0; round++ {
		require.Less(t, round, 50, "no log was recycled")
		write(20)
		require.NoError(t, s.db.Flush())
	}
	write(20)
	requireReadsBack(t, s, dir, mem)
}

// TestLogLongerThanItsZeros: a log that outgrows the zeros written ahead
// of it (walFile's zeroChunk) several times reads back whole, also from
// a crash.
func TestLogLongerThanItsZeros(t *testing.T) {
	dir := t.TempDir()
	s, _, err := Open(dir, testCluster, zaptest.NewLogger(t))
	require.NoError(t, err)
	mem := storage.NewMem()
	value := bytes.Repeat([]byte("v"), 8<<10)
	for slot := kvs.Slot(1); slot <= 400; slot++ {
		b := &storage.Batch{Seq: uint64(slot), Entries: []wire.Entry{{Slot: slot, Cmd: wire.CmdID{Client: 1, Seq: wire.Seq(slot)},
			Level: wire.Strong, Command: kvs.Command{Op: kvs.OpPut, Key: testKey(int(slot)), Value: value}}}}
		mem.Apply(b)
		require.NoError(t, s.Write([]*storage.Batch{b}))
	}
	requireReadsBack(t, s, dir, mem)
}

// TestLogHoldsTheDiskItWrote: a log file takes the disk of what it holds,
// pebble's data and the zeros ahead of it, not the 35 MiB pebble asks to
// preallocate for it (fallocate past the file's size, which du counts and
// ls does not).
func TestLogHoldsTheDiskItWrote(t *testing.T) {
	dir := t.TempDir()
	s, _, err := Open(dir, testCluster, zaptest.NewLogger(t))
	require.NoError(t, err)
	defer s.Close()
	h := newHistory(5)
	for range 20 { // pebble preallocates at a log's second write
		b := h.next()
		b.Snapshot, b.Installed = nil, false
		require.NoError(t, s.Write([]*storage.Batch{b}))
	}
	logs, err := filepath.Glob(filepath.Join(dir, "db", "*.log"))
	require.NoError(t, err)
	require.NotEmpty(t, logs)
	for _, l := range logs {
		fi, err := os.Stat(l)
		require.NoError(t, err)
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			t.Skip("no block count on this system")
		}
		// A file system may round up to its blocks, and allocate a
		// little ahead of a file that grows.
		require.LessOrEqual(t, st.Blocks*512, fi.Size()+1<<20, "%s: %d bytes long, %d allocated", l, fi.Size(), st.Blocks*512)
	}
}

// requireReadsBack requires mem's state from the store in dir, both as a
// crash leaves it (a copy taken while s is open) and once s is closed.
func requireReadsBack(t *testing.T, s *Store, dir string, mem *storage.Mem) {
	t.Helper()
	crashed := t.TempDir()
	copyDir(t, dir, crashed)
	require.NoError(t, s.Close())
	want, err := mem.State()
	require.NoError(t, err)
	for _, d := range []string{dir, crashed} {
		s, st, err := Open(d, testCluster, zaptest.NewLogger(t))
		require.NoError(t, err)
		requireSame(t, want, st)
		require.NoError(t, s.Close())
	}
}
