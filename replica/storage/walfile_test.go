package storage

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
)

// TestRecycledLogReadsBack: after memtable flushes pebble writes its log
// into an old log file it recycles (walFS.ReuseForWrite, zeros ahead of
// the new data, the old data past them); the store reads back what was
// written, before and after a crash.
func TestRecycledLogReadsBack(t *testing.T) {
	dir := t.TempDir()
	s, _, err := Open(dir, testCluster, zaptest.NewLogger(t))
	require.NoError(t, err)
	h, mem := newHistory(5), NewMem()
	write := func(n int) {
		for range n {
			b := h.next()
			b.Snapshot, b.Installed = nil, false
			mem.Apply(b)
			require.NoError(t, s.Write([]*Batch{b}))
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
	mem := NewMem()
	value := bytes.Repeat([]byte("v"), 8<<10)
	for slot := kvs.Slot(1); slot <= 400; slot++ {
		b := &Batch{Seq: uint64(slot), Entries: []wire.Entry{{Slot: slot, Cmd: wire.CmdID{Client: 1, Seq: wire.Seq(slot)},
			Level: wire.Strong, Command: kvs.Command{Op: kvs.OpPut, Key: kvs.Key(slot), Value: value}}}}
		mem.Apply(b)
		require.NoError(t, s.Write([]*Batch{b}))
	}
	requireReadsBack(t, s, dir, mem)
}

// requireReadsBack requires mem's state from the store in dir, both as a
// crash leaves it (a copy taken while s is open) and once s is closed.
func requireReadsBack(t *testing.T, s *Store, dir string, mem *Mem) {
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
