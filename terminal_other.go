//go:build !linux

package main

import (
	"io"
	"os"
)

// isTerminal reports whether r is a terminal, where kv prompts and takes
// its lines as a person's (kvcli.Options.Interactive): here, a character
// device, which also takes /dev/null for one.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
