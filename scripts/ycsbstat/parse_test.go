package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/scripts/internal/ycsbraw"
)

// TestPeersParse feeds scripts/peers/parse.awk, run.sh's reader of a
// phase's output, what this command appends for a raw phase: its p99 is
// the 99th percentile, not the 99.99th whose name ends the same way.
func TestPeersParse(t *testing.T) {
	awk, err := exec.LookPath("awk")
	require.NoError(t, err, "run.sh needs awk")
	// READ: 1..1000 µs, one each, so that the 50th, 99th, 99.9th and
	// 99.99th percentiles all differ; UPDATE: 1500 µs, once.
	var raw strings.Builder
	raw.WriteString(ycsbraw.Header + "\n")
	for i := 1; i <= 1000; i++ {
		raw.WriteString("READ,1000000," + strconv.Itoa(i) + "\n")
	}
	raw.WriteString("UPDATE,1000000,1500\n")
	dir := t.TempDir()
	f := filepath.Join(dir, "a.csv")
	require.NoError(t, os.WriteFile(f, []byte(raw.String()), 0o644))
	var summary strings.Builder
	summary.WriteString("Run finished, takes 1.5s\n")
	require.NoError(t, run([]string{f}, &summary))
	require.Contains(t, summary.String(), "99th(us): 990, 99.9th(us): 999, 99.99th(us): 1000")
	out := filepath.Join(dir, "run.out")
	require.NoError(t, os.WriteFile(out, []byte(summary.String()+"operation err: one\n"), 0o644))

	got, err := exec.Command(awk, "-f", "../peers/parse.awk", out).Output()
	require.NoError(t, err)
	// secs n errs, then p50 and p99 of READ UPDATE INSERT SCAN
	// READ_MODIFY_WRITE, then the counts.
	assert.Equal(t, "1.500 1001 1 500 990 1500 1500 - - - - - - READ=1000 UPDATE=1\n", string(got))

	none := filepath.Join(dir, "none.out")
	require.NoError(t, os.WriteFile(none, []byte("create db redis failed\n"), 0o644))
	got, err = exec.Command(awk, "-f", "../peers/parse.awk", none).Output()
	require.NoError(t, err)
	assert.Equal(t, "none\n", string(got))
}
