package bench

import (
	"fmt"

	"swiftpaxos/check"
	"swiftpaxos/client"
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// historyRecorder collects one benchmark thread's history (check mode):
// one record per operation, filled by check.Record from the command and
// its result (check/doc.go, "History records").
type historyRecorder struct {
	session check.SessionID
	ops     []check.Op
}

func (h *historyRecorder) record(seq wire.Seq, op client.Op, invokeNS, returnNS int64, r client.Result, ok bool) {
	if rec, keep := h.op(seq, op, invokeNS, returnNS, r, ok); keep {
		h.ops = append(h.ops, rec)
	}
}

// op is the record of one operation; false for one the history leaves
// out (a no-op).
func (h *historyRecorder) op(seq wire.Seq, op client.Op, invokeNS, returnNS int64, r client.Result, ok bool) (check.Op, bool) {
	if op.Command.Op == kvs.OpNoop || !op.Command.Op.Valid() {
		return check.Op{}, false
	}
	level := check.Strong
	if op.Level == wire.Weak {
		level = check.Weak
	}
	base := check.Op{Session: h.session, Seq: seq, Level: level, InvokeNS: invokeNS, OK: ok}
	if ok {
		base.ReturnNS = returnNS
	}
	switch r.Path {
	case client.PathFast:
		base.Path = "fast"
	case client.PathSlow:
		base.Path = "slow"
	}
	res := kvs.Result{Value: r.Value, Found: r.Found, Version: r.Version, Items: r.Items, More: r.More,
		Applied: r.Applied, Err: r.Code}
	rec := check.Record(base, op.Command, res)
	if ok && r.More {
		rec.Through = r.Through
	}
	if ok && !r.Known && op.Command.Op == kvs.OpDelete {
		// A weak DELETE acknowledged before it executed: whether the key
		// existed is not known, and the checker must not be told it was.
		rec.Found, rec.FoundUnknown = false, true
	}
	return rec, true
}

func writeHistory(path string, recs []*historyRecorder) error {
	var parts [][]check.Op
	for _, h := range recs {
		if h != nil {
			parts = append(parts, h.ops)
		}
	}
	if err := check.WriteHistoryFile(path, parts...); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}
