package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kv takes its input for a person's only from a terminal: not from a pipe,
// a file, /dev/null (a character device too) or a reader that is no file.
func TestIsTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	assert.False(t, isTerminal(r), "a pipe")

	f, err := os.Create(filepath.Join(t.TempDir(), "script"))
	require.NoError(t, err)
	defer f.Close()
	assert.False(t, isTerminal(f), "a file")

	null, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer null.Close()
	assert.False(t, isTerminal(null), "/dev/null")

	assert.False(t, isTerminal(strings.NewReader("get 1\n")), "not a file")

	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal to open: %v", err)
	}
	defer pty.Close()
	assert.True(t, isTerminal(pty), "a pseudo-terminal")
}
