package check

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// writeDir writes the given files (name -> content) into a new temporary
// directory and returns it.
func writeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	return dir
}

func historyText(t *testing.T, ops ...Op) string {
	var b bytes.Buffer
	require.NoError(t, WriteHistory(&b, ops))
	return b.String()
}

func logText(t *testing.T, ops ...Op) string {
	var b bytes.Buffer
	require.NoError(t, WriteLog(&b, logOf(ops...)))
	return b.String()
}

// concurrentOps returns n strong puts and n strong gets of key 7, all
// overlapping, each get returning a different put: linearizable, and hard
// for a search over orders.
func concurrentOps(n int) []Op {
	var ops []Op
	for i := range n {
		v := fmt.Sprintf("x%d", i)
		ops = append(ops, sPut(fmt.Sprintf("p%d", i), 1, 7, v, 0, 100), sGet(fmt.Sprintf("g%d", i), 1, 7, v, 0, 100))
	}
	return ops
}

func TestRunCommand(t *testing.T) {
	ax, ay := wPut("a", 1, 1, "x1", 0, 10), wPut("a", 2, 2, "y1", 20, 30)
	by, bx := wGet("b", 1, 2, "y1", 40, 50), wGet("b", 2, 1, "", 60, 70)
	cases := []struct {
		name  string
		files map[string]string
		path  string // relative to the directory; "" is the directory
		opts  Options
		code  int
		out   []string // fragments of stdout lines, in order
		last  string   // the last line of stdout
		err   string   // fragment of stderr
	}{{
		name: "valid directory with logs",
		files: map[string]string{
			"history-0.jsonl": historyText(t, ax, ay), "history-1.jsonl": historyText(t, by),
			"log-r0.jsonl": logText(t, ax, ay), "log-r1.jsonl": logText(t, ax),
		},
		code: ExitOK,
		last: "checked 3 operations: OK",
	}, {
		name:  "history file alone: rules needing logs are listed",
		files: map[string]string{"h.jsonl": historyText(t, ax, ay, by)},
		path:  "h.jsonl",
		code:  ExitOK,
		out:   []string{"[cc-vis not checked] partly", "[cc-arb not checked]", "[strong-write-order not checked]", "[strong-read-order not checked]"},
		last:  "checked 3 operations: OK",
	}, {
		name:  "causal anomaly",
		files: map[string]string{"history.jsonl": historyText(t, ax, ay, by, bx), "log-r0.jsonl": logText(t, ax, ay)},
		code:  ExitViolation,
		out:   []string{"[cc-vis] b#2"},
		last:  "checked 4 operations: 1 violations",
	}, {
		name:  "replica names come from the log file names",
		files: map[string]string{"history.jsonl": historyText(t, ax, ay), "log-east-1.jsonl": logText(t, ay, ax)},
		code:  ExitViolation,
		out:   []string{"[cc-arb]", "replica east-1"},
		last:  "checked 2 operations: 1 violations",
	}, {
		name: "linearizability failure writes the visualization next to the history",
		files: map[string]string{"history.jsonl": historyText(t,
			sPut("a", 1, 7, "x1", 0, 10), sGet("b", 1, 7, "", 20, 30))},
		code: ExitViolation,
		out:  []string{"[linearizability]", "visualization: ", "linearizability-key-7.html"},
		last: "checked 2 operations: 1 violations",
	}, {
		name:  "a hot key with many concurrent operations is decided",
		files: map[string]string{"history.jsonl": historyText(t, concurrentOps(40)...)},
		code:  ExitOK,
		last:  "checked 80 operations: OK",
	}, {
		name: "scans in the history and the logs",
		files: map[string]string{
			"history.jsonl": historyText(t, ax, scanOp("b", 1, Strong, "0", "3", 5, 20, 30, "1", "x1")),
			"log-r0.jsonl":  logText(t, ax, scanOp("b", 1, Strong, "0", "3", 5, 20, 30, "1", "x1")),
		},
		code: ExitOK,
		last: "checked 2 operations: OK",
	}, {
		name: "strong reads against the log order",
		files: map[string]string{
			"history.jsonl": historyText(t, sPut("a", 1, 7, "a1", 0, 10), sPut("b", 1, 7, "b1", 5, 30), sGet("c", 1, 7, "b1", 40, 50)),
			"log-r0.jsonl":  logText(t, sPut("b", 1, 7, "b1", 5, 30), sPut("a", 1, 7, "a1", 0, 10), sGet("c", 1, 7, "b1", 40, 50)),
		},
		code: ExitViolation,
		out:  []string{"[strong-read-order] c#1"},
		last: "checked 3 operations: 1 violations",
	}, {
		name:  "bad record",
		files: map[string]string{"history.jsonl": historyText(t, ax) + `{"session":"b","seq":1}` + "\n"},
		code:  ExitBadInput,
		err:   "history.jsonl:2: missing member(s)",
	}, {
		name:  "bad log record",
		files: map[string]string{"history.jsonl": historyText(t, ax), "log-r0.jsonl": "{\"slot\":1}\n"},
		code:  ExitBadInput,
		err:   "log-r0.jsonl:1:",
	}, {
		name:  "an empty history file",
		files: map[string]string{"history.jsonl": ""},
		path:  "history.jsonl",
		code:  ExitBadInput,
		err:   "history.jsonl: no operation recorded",
	}, {
		name:  "a directory of empty histories",
		files: map[string]string{"history-0.jsonl": "", "history-1.jsonl": "", "log-r0.jsonl": logText(t, ax)},
		code:  ExitBadInput,
		err:   "no operation recorded: an empty history proves nothing",
	}, {
		name:  "no history in the directory",
		files: map[string]string{"log-r0.jsonl": logText(t, ax)},
		code:  ExitBadInput,
		err:   "no history*.jsonl file",
	}, {
		name: "missing path",
		path: "nothing-here.jsonl",
		code: ExitBadInput,
		err:  "nothing-here.jsonl",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeDir(t, tc.files)
			var stdout, stderr bytes.Buffer
			code := RunCommand(filepath.Join(dir, tc.path), tc.opts, &stdout, &stderr)
			out := stdout.String()
			require.Equal(t, tc.code, code, "stdout:\n%s\nstderr:\n%s", out, stderr.String())
			if tc.err != "" {
				require.True(t, strings.HasPrefix(stderr.String(), "swiftpaxos: check: "), stderr.String())
				require.Contains(t, stderr.String(), tc.err)
				require.Empty(t, out)
				return
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			require.True(t, strings.HasPrefix(lines[len(lines)-1], tc.last), "last line of:\n%s", out)
			rest := out
			for _, f := range tc.out {
				i := strings.Index(rest, f)
				require.GreaterOrEqual(t, i, 0, "%q not found in order in:\n%s", f, out)
				rest = rest[i+len(f):]
			}
			if strings.Contains(out, "visualization: ") {
				require.FileExists(t, filepath.Join(dir, "linearizability-key-7.html"))
			}
		})
	}
}
