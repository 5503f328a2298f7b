package client

import (
	"fmt"

	"swiftpaxos/check"
	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
)

// historyRecorder collects one benchmark thread's history (check mode). A
// SCAN is recorded as one get per key of its range (check.ScanRecords,
// PROTOCOL.md 2.6 item 8).
type historyRecorder struct {
	session check.SessionID
	ops     []check.Op
}

func (h *historyRecorder) record(seq wire.Seq, op Op, invokeNS, returnNS int64, r Result, ok bool) {
	var kind check.OpKind
	switch op.Command.Op {
	case kvs.OpPut:
		kind = check.Put
	case kvs.OpGet, kvs.OpScan:
		kind = check.Get
	default:
		return
	}
	level := check.Strong
	if op.Level == wire.Weak {
		level = check.Weak
	}
	rec := check.Op{Session: h.session, Seq: seq, Level: level, Kind: kind, Key: op.Command.Key, InvokeNS: invokeNS, OK: ok}
	if ok {
		rec.ReturnNS = returnNS
	}
	switch {
	case kind == check.Put:
		rec.Value = string(op.Command.Value)
	case ok:
		rec.Value = string(r.Value)
	}
	switch r.Path {
	case PathFast:
		rec.Path = "fast"
	case PathSlow:
		rec.Path = "slow"
	}
	if op.Command.Op == kvs.OpScan {
		rec.Value = ""
		h.ops = append(h.ops, check.ScanRecords(rec, op.Command, r.Items)...)
		return
	}
	h.ops = append(h.ops, rec)
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
