package check

import (
	"slices"
	"strconv"

	"swiftpaxos/kvs"
)

// Every rule but linearizability works on parts: one read or one write of
// one key, the register operations PROTOCOL.md section 2 is written for.
// An operation is lowered to its parts here (doc.go, "Operations as reads
// and writes"); linearizability decides the operations themselves with
// their full semantics (lin_model.go).
//
//	GET     a read of its key: its value, or absent
//	PUT     a write of its value
//	DELETE  a write of absent (its "existed" is left to linearizability)
//	CAS     applied: a write of its value, or of absent if it deletes;
//	        not applied: a read of the state it returned
//	INCR    no error: a write of its result, a counter value that need
//	        not be unique; an error: a read of the state it returned
//	SCAN    a read of every key of the history in the range it covered:
//	        the items' values, absent for the other keys
//
// A pending operation has only its write parts (a pending INCR writes an
// unknown value); a read that never returned constrains nothing.

// writtenKeys returns the keys some operation of h may write, sorted.
func writtenKeys(h []Op) []kvs.Key {
	seen := map[kvs.Key]bool{}
	var out []kvs.Key
	for _, o := range h {
		if o.Kind != Get && o.Kind != Scan && !seen[o.Key] {
			seen[o.Key] = true
			out = append(out, o.Key)
		}
	}
	slices.Sort(out)
	return out
}

// covered returns the range a completed SCAN read, [lo, hi) with hi ""
// for no end, and whether hi is included: up to End when it returned
// everything, up to its last item when it says more exist.
func covered(o *Op) (lo, hi kvs.Key, incl bool) {
	switch {
	case o.More && o.Through != "":
		return o.Key, o.Through, true
	case o.More && len(o.Items) > 0:
		return o.Key, o.Items[len(o.Items)-1].Key, true
	}
	return o.Key, o.End, false
}

// lower appends the parts of operation i of h to parts; keys are the
// written keys, sorted.
func lower(parts []part, h []Op, i int32, keys []kvs.Key) []part {
	o := &h[i]
	p := part{Session: o.Session, Seq: o.Seq, Level: o.Level, Key: o.Key, InvokeNS: o.InvokeNS,
		ReturnNS: o.ReturnNS, OK: o.OK, Path: o.Path, cmd: i}
	read := func(v string, found bool) []part {
		p.Kind, p.Value, p.Found = Get, v, found
		if !found {
			p.Value = ""
		}
		return append(parts, p)
	}
	write := func(v string, found bool) []part {
		p.Kind, p.Value, p.Found = Put, v, found
		return append(parts, p)
	}
	switch o.Kind {
	case Get:
		return read(o.Ret, o.Found && o.OK)
	case Put:
		return write(o.Value, true)
	case Delete:
		return write("", false)
	case CAS:
		switch {
		case o.OK && !o.Applied && o.FoundUnknown:
			return parts // it wrote nothing, and what it read is not known
		case o.OK && !o.Applied:
			return read(o.Ret, o.Found)
		case o.Delete:
			return write("", false)
		}
		return write(o.Value, true)
	case Incr:
		switch {
		case !o.OK:
			p.unknown, p.counter = true, true
			return write("", true)
		case o.Err != "":
			return read(o.Ret, o.Found)
		}
		p.counter = true
		return write(o.Ret, true)
	case Scan:
		if !o.OK {
			return parts
		}
		p.Kind, p.Scan = Get, true
		lo, hi, incl := covered(o)
		at := func(k kvs.Key) {
			q := p
			q.Key = k
			if v, ok := itemOf(o.Items, k); ok {
				q.Value, q.Found = v, true
			}
			parts = append(parts, q)
		}
		j, _ := slices.BinarySearch(keys, lo)
		for ; j < len(keys) && (hi == "" || keys[j] < hi || incl && keys[j] == hi); j++ {
			at(keys[j])
		}
		for _, it := range o.Items { // a key no operation writes: read-never-written
			if _, w := slices.BinarySearch(keys, it.Key); !w {
				at(it.Key)
			}
		}
		return parts
	}
	return parts
}

// itemOf returns the value of k among a SCAN's items.
func itemOf(items []Item, k kvs.Key) (string, bool) {
	i, ok := slices.BinarySearchFunc(items, k, func(it Item, k kvs.Key) int {
		switch {
		case it.Key < k:
			return -1
		case it.Key > k:
			return 1
		}
		return 0
	})
	if !ok {
		return "", false
	}
	return items[i].Value, true
}

// isInteger reports whether v is a value an INCR could have written.
func isInteger(v string) bool {
	_, err := strconv.ParseInt(v, 10, 64)
	return err == nil
}
