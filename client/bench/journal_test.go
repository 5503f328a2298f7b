package bench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/check"
	"swiftpaxos/client"
	"swiftpaxos/wire"
)

// TestJournalRecordsBeforeHandover: a thread with a journal has every
// operation's pending record in the file before the operation reaches
// its session (a kill -9 then leaves it pending, never missing), and
// the journal read back is the history the thread recorded.
func TestJournalRecordsBeforeHandover(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal-client0.jsonl")
	j, err := openJournal(path)
	require.NoError(t, err)
	s := &slowHandover{handover: map[wire.Seq]int64{}, out: make(chan client.Result, 64)}
	inFile := map[wire.Seq]bool{}
	h := &historyRecorder{session: "c0"}
	invoked, record := journaled(h, j)
	_, err = runThread(context.Background(), s, loopOptions{
		Reqs: 20, Window: 4, ReplyTimeout: time.Second, Ops: &constOps{},
		Now: func() int64 { return s.wall.Load() }, Wall: func() int64 { return s.wall.Load() },
		Invoked: func(seq wire.Seq, op client.Op, inv int64) error {
			if err := invoked(seq, op, inv); err != nil {
				return err
			}
			ops, err := check.ReadJournalFile(path)
			require.NoError(t, err)
			for _, o := range ops {
				inFile[o.Seq] = true
			}
			require.NotContains(t, s.handover, seq, "operation %d handed over before it was journaled", seq)
			return nil
		},
		Record: record,
	})
	require.NoError(t, err)
	assert.Len(t, inFile, 21, "every operation, the warm-up too, journaled when invoked")

	// Killed now: the last completions are not written yet.
	ops, err := check.ReadJournalFile(path)
	require.NoError(t, err)
	require.Len(t, ops, 21)
	assert.False(t, ops[20].OK, "its completion waits for the next write")
	require.NoError(t, j.close(false))
	ops, err = check.ReadJournalFile(path)
	require.NoError(t, err)
	assert.Equal(t, h.ops, sortedBySeq(ops), "read back, the journal is the history")
	require.NoError(t, j.close(true), "a second close does nothing")
	assert.FileExists(t, path)
}

func sortedBySeq(ops []check.Op) []check.Op {
	out := make([]check.Op, len(ops))
	for _, o := range ops {
		out[o.Seq-1] = o
	}
	return out
}

func TestJournalIsRemovedOnceTheHistoryIsWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := openJournal(path)
	require.NoError(t, err)
	require.NoError(t, j.invoked(check.Op{Session: "s", Seq: 1, Level: check.Weak, Kind: check.Get, Key: "k", InvokeNS: 5}))
	require.NoError(t, j.close(true))
	assert.NoFileExists(t, path)

	require.NoError(t, os.WriteFile(path, nil, 0o644))
	_, err = openJournal(path)
	assert.ErrorIs(t, err, os.ErrExist, "one journal per process lifetime")
}

// TestJournalFailureStopsTheThread: an operation that could not be
// journaled is not sent.
func TestJournalFailureStopsTheThread(t *testing.T) {
	s := &slowHandover{handover: map[wire.Seq]int64{}, out: make(chan client.Result, 64)}
	_, err := runThread(context.Background(), s, loopOptions{
		Reqs: 5, Window: 2, ReplyTimeout: time.Second, Ops: &constOps{},
		Now:     func() int64 { return s.wall.Load() },
		Invoked: func(wire.Seq, client.Op, int64) error { return errors.New("disk full") },
	})
	require.ErrorContains(t, err, "disk full")
	assert.Empty(t, s.handover)
}
