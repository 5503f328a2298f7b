package disk

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A paced file holds exactly what was written to it, and every whole
// pacedBytes of it had its writeback started before the next write.
func TestPacedWriterWritesEverythingAndStartsEachRange(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "paced"))
	require.NoError(t, err)
	defer f.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	want := make([]byte, 3*pacedBytes+12345)
	for i := range want {
		want[i] = byte(rng.Uint32())
	}
	w := &pacedWriter{f: f}
	for rest := want; len(rest) > 0; {
		n := min(len(rest), 1+rng.IntN(1<<16))
		k, err := w.Write(rest[:n])
		require.NoError(t, err)
		require.Equal(t, n, k)
		rest = rest[n:]
		require.Less(t, w.written-w.started, int64(pacedBytes), "a whole range written and not started")
	}
	require.Equal(t, int64(len(want)), w.written)
	require.NoError(t, f.Sync())
	got, err := os.ReadFile(f.Name())
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, got), "the file differs from what was written")
}
