package resp

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sync/atomic"
)

var localSeq atomic.Uint64

// LocalAddr returns a Unix socket address for the replica of this process
// to listen on (server.Options.LocalAddr) and its front-end to reach it at
// (Options.LocalAddr). It is in Linux's abstract namespace, so that no
// file is left behind, and unique to the process and the call, so that
// replicas run in one process (tests) do not share one. The abstract
// namespace is shared by every process of the network namespace: the
// random part keeps another process, in another PID namespace or hostile,
// from holding the name first. It names no alias: an alias may be long,
// and the name must fit in 108 bytes.
func LocalAddr() string {
	return fmt.Sprintf("@swiftpaxos/%d/%d/%016x", os.Getpid(), localSeq.Add(1), rand.Uint64())
}
