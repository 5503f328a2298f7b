package disk

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A paced file holds exactly what was written to it; the ranges whose
// writeback was started follow one another from the start of the file,
// each of at least pacedBytes, each waiting for the one before; and the
// platform's writeback succeeds on a real file.
func TestPacedWriterStartsEveryRangeInOrder(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "paced"))
	require.NoError(t, err)
	defer f.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	want := make([]byte, 4*pacedBytes+12345)
	for i := range want {
		want[i] = byte(rng.Uint32())
	}
	type call struct{ prev, off, n int64 }
	var calls []call
	w := newPacedWriter(f)
	w.writeback = func(f *os.File, prev, off, n int64) error {
		calls = append(calls, call{prev, off, n})
		return writeback(f, prev, off, n)
	}
	for rest := want; len(rest) > 0; {
		n := min(len(rest), 1+rng.IntN(1<<16))
		k, err := w.Write(rest[:n])
		require.NoError(t, err)
		require.Equal(t, n, k)
		rest = rest[n:]
	}
	require.GreaterOrEqual(t, len(calls), 3)
	var prev, end int64
	for _, c := range calls {
		require.Equal(t, call{prev, end, c.n}, c, "a range that does not follow the one before")
		require.GreaterOrEqual(t, c.n, int64(pacedBytes))
		prev, end = c.off, c.off+c.n
	}
	require.Less(t, int64(len(want))-end, int64(pacedBytes), "a whole range left unstarted")
	require.NoError(t, f.Sync())
	got, err := os.ReadFile(f.Name())
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, got), "the file differs from what was written")
}

// A failed writeback fails the write, and with it the snapshot: its error
// may not reach the fsync.
func TestPacedWriterReturnsTheWritebacksError(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "paced"))
	require.NoError(t, err)
	defer f.Close()
	eio := errors.New("injected EIO")
	w := newPacedWriter(f)
	w.writeback = func(*os.File, int64, int64, int64) error { return eio }
	_, err = w.Write(make([]byte, pacedBytes-1))
	require.NoError(t, err)
	_, err = w.Write(make([]byte, 1))
	require.ErrorIs(t, err, eio)
}
