package replica

import (
	"bufio"
	"fmt"
	"os"

	"swiftpaxos/client/check"
	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
)

// recordExecuted keeps an executed entry for the applied-log dump (check
// mode only); it runs on the event loop.
func (s *server) recordExecuted(e *wire.Entry, res kvs.Result) {
	if s.o.AppliedLogPath == "" {
		return
	}
	le := check.LogEntry{Slot: e.Slot, Session: check.SessionID(fmt.Sprintf("%x", uint64(e.Cmd.Client))), Seq: e.Cmd.Seq, Key: e.Command.Key}
	switch e.Command.Op {
	case kvs.OpPut:
		le.Kind, le.Value = check.Put, string(e.Command.Value)
	case kvs.OpGet:
		le.Kind, le.Value = check.Get, string(res.Value)
	default:
		return // SCANs are outside the checker's model
	}
	s.applied = append(s.applied, le)
}

func writeAppliedLog(path string, entries []check.LogEntry) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("applied log: %w", err)
	}
	w := bufio.NewWriter(f)
	if err := check.WriteLog(w, entries); err != nil {
		f.Close()
		return fmt.Errorf("applied log %s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("applied log %s: %w", path, err)
	}
	return f.Close()
}
