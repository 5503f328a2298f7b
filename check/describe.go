package check

import (
	"fmt"
	"strings"

	"swiftpaxos/kvs"
	"swiftpaxos/wire/applog"
)

// qk quotes a key for a message: as Go quotes strings, so that binary
// bytes show as escapes.
func qk(k kvs.Key) string { return fmt.Sprintf("%q", string(k)) }

// describeState names a key's state: a value, or absent.
func describeState(v string, found bool) string {
	if !found {
		return "absent"
	}
	return shortValue(v)
}

// describeCmd names operation i of the history for a message: id, level,
// command, result and instants.
func (x *history) describeCmd(i int32) string {
	o := &x.cmds[i]
	return fmt.Sprintf("%v (%v %s, %s)", o.ID(), o.Level, x.what(o), when(o.OK, o.InvokeNS, o.ReturnNS))
}

// what names an operation's command and, if it completed, its result.
func (x *history) what(o *Op) string {
	var cmd, res string
	switch o.Kind {
	case Get:
		cmd, res = "get of key "+qk(o.Key), "returning "+describeState(o.Ret, o.Found)
	case Put:
		cmd = fmt.Sprintf("put of %s to key %s", shortValue(o.Value), qk(o.Key))
	case Delete:
		cmd, res = "delete of key "+qk(o.Key), fmt.Sprintf("existed %v", o.Found)
		if o.FoundUnknown {
			res = "existed unknown"
		}
	case CAS:
		exp := "absent"
		switch o.Expect {
		case kvs.ExpectValue:
			exp = shortValue(o.ExpectValue)
		case kvs.ExpectVersion:
			exp = fmt.Sprintf("version %d", o.ExpectVersion)
		}
		nv := shortValue(o.Value)
		if o.Delete {
			nv = "absent"
		}
		cmd = fmt.Sprintf("cas of key %s from %s to %s", qk(o.Key), exp, nv)
		res = fmt.Sprintf("not applied, finding %s", describeState(o.Ret, o.Found))
		if o.FoundUnknown {
			res = "not applied, finding something else"
		}
		if o.Applied {
			res = "applied"
		}
	case Incr:
		cmd, res = fmt.Sprintf("incr of key %s by %d", qk(o.Key), o.Delta), "returning "+describeState(o.Ret, o.Found)
		if o.Err != "" {
			res = fmt.Sprintf("failing %s on %s", o.Err, describeState(o.Ret, o.Found))
		}
	case Scan:
		end := "the last key"
		if o.End != "" {
			end = qk(o.End)
		}
		cmd = fmt.Sprintf("scan of [%s, %s) limit %d", qk(o.Key), end, o.Limit)
		var ks []string
		for _, it := range o.Items {
			ks = append(ks, qk(it.Key))
		}
		res = fmt.Sprintf("returning keys [%s] more %v", strings.Join(ks, " "), o.More)
	default:
		cmd = fmt.Sprintf("%v of key %s", o.Kind, qk(o.Key))
	}
	if o.OK && res != "" {
		return cmd + " " + res
	}
	return cmd
}

// when names the instants of an operation.
func when(ok bool, inv, ret int64) string {
	switch {
	case ok:
		return fmt.Sprintf("invoked at %d, returned at %d", inv, ret)
	case ret != 0:
		return fmt.Sprintf("invoked at %d, failed at %d with unknown outcome", inv, ret)
	}
	return fmt.Sprintf("invoked at %d, never returned", inv)
}

// describe names part i for a message: its operation, and for a part of
// a scan the key it is about.
func (x *history) describe(i int32) string {
	o := &x.ops[i]
	d := x.describeCmd(o.cmd)
	if o.Scan {
		d += fmt.Sprintf(", which read key %s as %s", qk(o.Key), describeState(o.Value, o.Found))
	}
	return d
}

// scanPartOf returns the part of key k of the scan with CmdId id, if any.
func (x *history) scanPartOf(id OpID, k kvs.Key) (int32, bool) {
	i, ok := x.scanPart[partID{id, k}]
	return i, ok
}

// describeEntry names an applied-log line for a message.
func describeEntry(e LogEntry) string {
	switch e.Kind {
	case Noop:
		return fmt.Sprintf("slot %d: noop", e.Slot)
	case Snapshot:
		return fmt.Sprintf("slot %d: snapshot marker", e.Slot)
	}
	b := applog.AppendLine(nil, e)
	return fmt.Sprintf("slot %d: %v %v %s", e.Slot, e.ID(), e.Kind, strings.TrimSpace(string(b)))
}
