package main

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// isTerminal reports whether r is a terminal, where kv prompts and takes
// its lines as a person's (kvcli.Options.Interactive). It asks for the
// terminal's settings: a character device is not enough, since /dev/null
// is one and a script run with it as input is not a person.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	// Through SyscallConn: Fd would put the file in blocking mode.
	sc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	var terr error
	if err := sc.Control(func(fd uintptr) { _, terr = unix.IoctlGetTermios(int(fd), unix.TCGETS) }); err != nil {
		return false
	}
	return terr == nil
}
