package check

import (
	"fmt"

	"swiftpaxos/kvs"
)

// A SCAN is recorded as one read per key of its range (PROTOCOL.md section
// 2.6 item 8): in the history, one Get record per key with Scan set,
// sharing the SCAN's CmdId, level, instants, outcome and path; in an
// applied log, one Get line per key with Scan set, sharing the slot and
// CmdId. Every rule then sees the parts as reads of their keys, with the
// reads-from edges they create. doc.go ("Scans") lists what is specific
// to them.

// ScanRecords returns the history records of a SCAN the client invoked:
// base carries the Session, Seq, Level, instants, OK and Path; one Get
// record per key of cmd.KeyRange() follows, in key order, with the value
// items (the store's per-key SCAN result, sorted by key) give it, NIL for
// a key not listed, and NIL everywhere when the SCAN did not complete
// (base.OK false). It returns nil if cmd is not a SCAN.
func ScanRecords(base Op, cmd kvs.Command, items []kvs.Item) []Op {
	if cmd.Op != kvs.OpScan {
		return nil
	}
	lo, hi := cmd.KeyRange()
	out := make([]Op, 0, uint64(hi)-uint64(lo)+1)
	for k := range cmd.Keys() {
		o := base
		o.Kind, o.Key, o.Value, o.Scan = Get, k, "", true
		if base.OK {
			v, _ := kvs.ItemOf(items, k)
			o.Value = string(v)
		}
		out = append(out, o)
	}
	return out
}

// partID names one part of a scan: its CmdId and key.
type partID struct {
	id  OpID
	key kvs.Key
}

// scanGroup is the set of records of one scan in a history.
type scanGroup struct {
	first  int32 // the first record, which the others must match
	lo, hi kvs.Key
	n      uint64
}

// joinScan adds record i to the scan of its first record j (same CmdId),
// or says why it cannot: only the records of one scan share a CmdId, and
// they differ in key and value only.
func (x *history) joinScan(j, i int32) string {
	a, b := &x.ops[j], &x.ops[i]
	if !a.Scan || !b.Scan {
		return fmt.Sprintf("reuses the (session, seq) of record %d; every operation needs its own seq, only the records of one scan share theirs", j+1)
	}
	var diff string
	switch {
	case a.Level != b.Level:
		diff = "level"
	case a.InvokeNS != b.InvokeNS:
		diff = "invoke_ns"
	case a.OK != b.OK:
		diff = "ok"
	case a.OK && a.ReturnNS != b.ReturnNS:
		diff = "return_ns"
	case a.Path != b.Path:
		diff = "path"
	}
	if diff != "" {
		return fmt.Sprintf("differs in %s from record %d of the same scan; the records of a scan share everything but key and value", diff, j+1)
	}
	p := partID{b.ID(), b.Key}
	if k, dup := x.scanPart[p]; dup {
		return fmt.Sprintf("repeats key %d of its scan (record %d); a scan has one record per key of its range", b.Key, k+1)
	}
	x.scanPart[p] = i
	g := x.scans[b.ID()]
	g.lo, g.hi, g.n = min(g.lo, b.Key), max(g.hi, b.Key), g.n+1
	return ""
}

// startScan records the first record i of a scan.
func (x *history) startScan(i int32) {
	o := &x.ops[i]
	x.scans[o.ID()] = &scanGroup{first: i, lo: o.Key, hi: o.Key, n: 1}
	x.scanPart[partID{o.ID(), o.Key}] = i
}

// checkScanRanges reports scans whose records do not cover a range of
// consecutive keys: a record is missing.
func (x *history) checkScanRanges(invalid func(i int32, format string, args ...any)) {
	for i := int32(0); int(i) < len(x.ops); i++ {
		if !x.ops[i].Scan {
			continue
		}
		g := x.scans[x.ops[i].ID()]
		if g == nil || g.first != i || uint64(g.hi)-uint64(g.lo) == g.n-1 {
			continue
		}
		invalid(i, "its scan has %d records for keys %d to %d; a scan has one record per key of its range, NIL for a key never written",
			g.n, g.lo, g.hi)
	}
}

// scanPartOf returns the history record of the part of key k of the scan
// with CmdId id, if any.
func (x *history) scanPartOf(id OpID, k kvs.Key) (int32, bool) {
	i, ok := x.scanPart[partID{id, k}]
	return i, ok
}

// describeScanPart names the scan of part i and the part's key and value
// for describe.
func (x *history) describeScanPart(i int32) string {
	o := &x.ops[i]
	scan := fmt.Sprintf("%v scan", o.Level)
	if g := x.scans[o.ID()]; g != nil {
		scan = fmt.Sprintf("%v scan of keys %d to %d", o.Level, g.lo, g.hi)
	}
	switch {
	case !x.completed(i):
		return fmt.Sprintf("%s, part for key %d", scan, o.Key)
	case o.Value == "":
		return fmt.Sprintf("%s, returning NIL for key %d", scan, o.Key)
	}
	return fmt.Sprintf("%s, returning %s for key %d", scan, shortValue(o.Value), o.Key)
}
