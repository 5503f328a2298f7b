package kvcli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The same lines typed at a terminal and run as a script: both go on past
// a mistyped line, a bad key and an operation that fails, and stop at
// quit. A person gets a prompt, errors without line numbers and status 0
// (each error was told as it came); a script gets the line numbers and
// its worst line's status.
func TestMistypedLineAtATerminalAndInAScript(t *testing.T) {
	const in = "frob 1\nget \"\"\nput 1 x\nhelp\n\nquit\nget 1\n"
	const help = usage + "\n"
	for _, c := range []struct {
		name        string
		interactive bool
		code        int
		out         string
		lines       []string // what each error starts with after "swiftpaxos: "
	}{
		{"terminal", true, OK, "kv> kv> kv> kv> " + help + "kv> kv> ", []string{"", "", ""}},
		{"script", false, Usage, help, []string{"line 1: ", "line 2: ", "line 3: "}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			o := Options{Config: frozenCluster(t), Policy: newPolicy,
				Timeout: 100 * time.Millisecond, Interactive: c.interactive, In: strings.NewReader(in), Out: &out, Err: &errb}
			code := Run(context.Background(), o, nil)
			assert.Equal(t, c.code, code)
			assert.Equal(t, c.out, out.String())
			errs := strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n")
			require.Len(t, errs, 3, errb.String())
			at := func(n int) string { return "swiftpaxos: " + c.lines[n-1] }
			assert.Equal(t, at(1)+"frob: unknown command; "+usage, errs[0])
			assert.Equal(t, at(2)+"get: kvs: invalid command: GET: an empty key", errs[1])
			assert.True(t, strings.HasPrefix(errs[2], at(3)+"put 1 x: no reply within 100ms"), errs[2])
		})
	}
}
