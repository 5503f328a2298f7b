package kvs

import (
	"bytes"
	"math"
	"strconv"
)

// Overlay shadows the store for Eval: the leader passes the writes of its
// log prefix not yet applied this way, to compute speculative results
// against the log rather than the applied state (PROTOCOL.md section 3.5).
type Overlay interface {
	// Lookup returns the overlay's entry for k, if it has one.
	Lookup(k Key) (Entry, bool)
	// Range calls yield, in key order, for each key of [start, end) the
	// overlay has an entry for (end "": no end), until yield returns false.
	Range(start, end Key, yield func(Key, Entry) bool)
}

// Write is a command's effect on the store: the new state of one key.
type Write struct {
	Key Key
	Entry
}

// Eval computes what c does at slot against the store shadowed by over (nil:
// the store alone), without changing anything: its result, and the write it
// makes, if any (ok). Apply performs the write; the leader records it in
// its overlay instead, so that a later command of the log prefix sees it.
// The outcome of CAS and INCR, and so whether they write, depends on the
// state, which is why both paths share this one evaluation.
//
// Eval is total: a command that did not pass Validate gets an outcome
// that depends only on the command and the state (an unknown operation
// does nothing, a SCAN whose end is before its start covers no key, one
// whose limit is out of range is clamped to [0, MaxScanLimit], a CAS with
// an unknown expectation does not apply).
func (s *Store) Eval(slot Slot, c Command, over Overlay) (res Result, w Write, ok bool) {
	lookup := func(k Key) Entry {
		if over != nil {
			if e, ok := over.Lookup(k); ok {
				return e
			}
		}
		return s.Get(k)
	}
	switch c.Op {
	case OpGet:
		e := lookup(c.Key)
		return Result{Value: e.Value, Found: e.Found, Version: e.Version}, w, false
	case OpPut:
		return Result{Version: slot}, Write{Key: c.Key, Entry: Entry{Value: c.Value, Found: true, Version: slot}}, true
	case OpDelete:
		e := lookup(c.Key)
		return Result{Found: e.Found, Version: slot}, Write{Key: c.Key, Entry: Entry{Version: slot}}, true
	case OpCAS:
		e := lookup(c.Key)
		if !expected(c, e) {
			return Result{Value: e.Value, Found: e.Found, Version: e.Version}, w, false
		}
		w = Write{Key: c.Key, Entry: Entry{Version: slot}}
		if !c.Delete {
			w.Value, w.Found = c.Value, true
		}
		return Result{Applied: true, Value: w.Value, Found: w.Found, Version: slot}, w, true
	case OpIncr:
		e := lookup(c.Key)
		var n int64
		if e.Found {
			var err error
			if n, err = strconv.ParseInt(string(e.Value), 10, 64); err != nil {
				return Result{Value: e.Value, Found: true, Version: e.Version, Err: ErrNotInteger}, w, false
			}
		}
		if c.Delta > 0 && n > math.MaxInt64-c.Delta || c.Delta < 0 && n < math.MinInt64-c.Delta {
			return Result{Value: e.Value, Found: e.Found, Version: e.Version, Err: ErrOverflow}, w, false
		}
		v := strconv.AppendInt(nil, n+c.Delta, 10)
		return Result{Value: v, Found: true, Version: slot}, Write{Key: c.Key, Entry: Entry{Value: v, Found: true, Version: slot}}, true
	case OpScan:
		return s.scan(c, over), w, false
	}
	return Result{}, w, false
}

// expected reports whether e meets c's expectation (a CAS).
func expected(c Command, e Entry) bool {
	switch c.Expect {
	case ExpectAbsent:
		return !e.Found
	case ExpectValue:
		return e.Found && bytes.Equal(e.Value, c.ExpectValue)
	case ExpectVersion:
		return e.Version == c.ExpectVersion
	}
	return false
}

// scan evaluates a SCAN: the store's keys of the range and the overlay's,
// merged in key order (the overlay's entry wins for a key both have).
func (s *Store) scan(c Command, over Overlay) Result {
	var r Result
	if c.End != "" && c.End <= c.Key {
		return r
	}
	limit := int(min(max(c.Limit, 0), MaxScanLimit))
	var ov []Write
	if over != nil {
		over.Range(c.Key, c.End, func(k Key, e Entry) bool {
			ov = append(ov, Write{Key: k, Entry: e})
			return true
		})
	}
	size := 0
	// emit adds a key that holds a value, or finds that the result is
	// full and more exist; it reports whether to go on.
	emit := func(k Key, e Entry) bool {
		if !e.Found {
			return true
		}
		n := len(k) + len(e.Value)
		if len(r.Items) == limit || len(r.Items) > 0 && size+n > MaxScanBytes {
			r.More = true
			return false
		}
		r.Items = append(r.Items, Item{Key: k, Value: e.Value, Found: true, Version: e.Version})
		size += n
		r.Version = max(r.Version, e.Version)
		return true
	}
	i, stopped := 0, false
	visit := func(k Key, e Entry) bool {
		if c.End != "" && k >= c.End {
			return false
		}
		for ; i < len(ov) && ov[i].Key < k; i++ {
			if !emit(ov[i].Key, ov[i].Entry) {
				stopped = true
				return false
			}
		}
		if i < len(ov) && ov[i].Key == k {
			e = ov[i].Entry
			i++
		}
		if !emit(k, e) {
			stopped = true
			return false
		}
		return true
	}
	if c.Key == "" {
		s.tree.Scan(visit)
	} else {
		s.tree.Ascend(c.Key, visit)
	}
	for ; !stopped && i < len(ov); i++ {
		stopped = !emit(ov[i].Key, ov[i].Entry)
	}
	return r
}
