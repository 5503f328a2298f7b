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

// TestPeersWeakMisses feeds scripts/peers/misses.awk, which tells run.sh
// whether a weak workload D run failed only by reads that found no key:
// it counts them then, and says "no" for any other failure, for counts
// that disagree, for operations missing from the count, for a phase
// without a summary and for one without failures.
func TestPeersWeakMisses(t *testing.T) {
	awk, err := exec.LookPath("awk")
	require.NoError(t, err, "run.sh needs awk")
	const (
		progress = "READ_ERROR - Takes(s): 1.0, Count: 9, OPS: 9.0, Avg(us): 400\n"
		finished = "Run finished, takes 2.5s\n"
		read     = "READ   - Takes(s): 2.5, Count: 46894, OPS: 18365.5, Avg(us): 791\n"
		insert   = "INSERT - Takes(s): 2.5, Count: 2500, OPS: 980.5, Avg(us): 938\n"
		readErr  = "READ_ERROR - Takes(s): 2.5, Count: 2, OPS: 0.8, Avg(us): 491\n"
		nilRead  = "operation err: redis: nil\n"
	)
	// 49,394 successful operations and 2 misses of a 49,396-operation phase.
	const n, ops = "49394", "49396"
	for _, c := range []struct {
		name, out, ops, want string
	}{
		{"misses only", nilRead + progress + nilRead + finished + insert + read + readErr, ops, "2"},
		{"another error", nilRead + "operation err: dial tcp: connection refused\n" + finished + read + readErr, ops, "no"},
		{"another kind", nilRead + nilRead + finished + read + readErr + "INSERT_ERROR - Takes(s): 2.5, Count: 1, OPS: 0.4\n", ops, "no"},
		{"counts disagree", nilRead + finished + read + readErr, ops, "no"},
		{"operations missing", nilRead + nilRead + finished + insert + read + readErr, "50000", "no"},
		{"no summary", nilRead + nilRead + progress, ops, "no"},
		{"no failure", finished + insert + read, ops, "no"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "d-run.out")
			require.NoError(t, os.WriteFile(f, []byte(c.out), 0o644))
			got, err := exec.Command(awk, "-v", "n="+n, "-v", "want="+c.ops, "-f", "../peers/misses.awk", f).Output()
			require.NoError(t, err)
			assert.Equal(t, c.want+"\n", string(got))
		})
	}
}
