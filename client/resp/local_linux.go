package resp

import (
	"fmt"
	"os"
	"sync/atomic"
)

var localSeq atomic.Uint64

// LocalAddr returns a Unix socket address for the replica alias of this
// process to listen on (server.Options.LocalAddr) and its front-end to
// reach it at (Options.LocalAddr): in Linux's abstract namespace, so that
// no file is left behind, and unique to the process and the call, so that
// replicas run in one process (tests) do not share one.
func LocalAddr(alias string) string {
	return fmt.Sprintf("@swiftpaxos/%d/%s/%d", os.Getpid(), alias, localSeq.Add(1))
}
