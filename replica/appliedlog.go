package replica

import (
	"fmt"

	"swiftpaxos/client/check"
	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
)

// recordExecuted keeps an executed entry for the applied-log dump (check
// mode only); it runs on the event loop. Sessions are named by their
// client id in hex, as the clients' histories name them.
func (s *server) recordExecuted(e *wire.Entry, res kvs.Result) {
	if s.o.AppliedLogPath == "" {
		return
	}
	session := check.SessionID(fmt.Sprintf("%x", uint64(e.Cmd.Client)))
	s.applied = append(s.applied, check.LogEntriesOf(e.Slot, session, e.Cmd.Seq, e.Command, res)...)
}
