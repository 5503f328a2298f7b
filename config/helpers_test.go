package config

import (
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// hostLines are lines 1..6 of most test files, so that the first extra line
// of a test is line 7.
var hostLines = []string{
	"-- Replicas --",     // 1
	"replica0 127.0.0.1", // 2
	"replica1 127.0.0.2", // 3
	"replica2 127.0.0.3", // 4
	"-- Clients --",      // 5
	"client0 127.0.0.4",  // 6
}

// withHosts returns hostLines, then extra from line 7 on, then a protocol
// line at the very end (after a "---" so it is a global key wherever the
// extra lines left off).
func withHosts(extra ...string) string {
	lines := append(append(append([]string(nil), hostLines...), extra...), "---", "protocol: curpht")
	return strings.Join(lines, "\n") + "\n"
}

// hostsOnly is withHosts without the protocol line.
func hostsOnly(extra ...string) string {
	lines := append(append([]string(nil), hostLines...), extra...)
	return strings.Join(lines, "\n") + "\n"
}

// noDisk keeps tests and the fuzz target from reading files named in the
// input.
func noDisk(path string) (io.ReadCloser, error) {
	return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
}

func parseString(t *testing.T, text string) (*Config, error) {
	t.Helper()
	return parse("f.conf", strings.NewReader(text), noDisk)
}

func mustParse(t *testing.T, text string) *Config {
	t.Helper()
	c, err := parseString(t, text)
	require.NoError(t, err)
	return c
}

// issueStrings returns the formatted issues of a parse failure.
func issueStrings(t *testing.T, err error) []string {
	t.Helper()
	require.Error(t, err)
	var es *Errors
	require.True(t, errors.As(err, &es), "error is %T, want *Errors", err)
	require.NotEmpty(t, es.Issues)
	out := make([]string, len(es.Issues))
	for i, is := range es.Issues {
		out[i] = is.String()
	}
	require.Equal(t, strings.Join(out, "\n"), err.Error())
	return out
}
