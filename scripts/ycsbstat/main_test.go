package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/scripts/internal/ycsbraw"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "a.csv")
	require.NoError(t, os.WriteFile(f, []byte(ycsbraw.Header+"\nREAD,1000000,20\nTOTAL,1000000,20\n"), 0o644))
	var out strings.Builder
	require.NoError(t, run([]string{f}, &out))
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Len(t, lines, 2)
	assert.True(t, strings.HasPrefix(lines[0], "READ   - Takes(s): 0.0, Count: 1, "), lines[0])
	assert.Contains(t, lines[0], "50th(us): 20, ")
	assert.True(t, strings.HasPrefix(lines[1], "TOTAL  - "), lines[1])

	empty := filepath.Join(dir, "empty.csv")
	require.NoError(t, os.WriteFile(empty, []byte(ycsbraw.Header+"\n"), 0o644))
	for _, args := range [][]string{nil, {f, f}, {"-h"}, {empty}, {filepath.Join(dir, "missing")}} {
		assert.Error(t, run(args, &out), args)
	}
}
