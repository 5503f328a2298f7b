package check

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"swiftpaxos/kvs"
)

const (
	// srcNil marks a read of NIL: it reads from the virtual initial write
	// w0 (PROTOCOL.md section 2.1).
	srcNil int32 = -1
	// srcNone marks a get without a known source: not completed, or no put
	// to its key wrote the value it returned.
	srcNone int32 = -2

	inf    = math.MaxInt64
	negInf = math.MinInt64
)

type sessKey struct {
	session SessionID
	key     kvs.Key
}

// history is the indexed, read-only view of a history that every rule
// works from. Operations are referred to by their int32 index in ops.
type history struct {
	ops []Op
	// end is the response instant, +inf when the operation is pending
	// (PROTOCOL.md section 2.1: resp = infinity).
	end []int64
	// src is, for a completed get, the put it read from (by value), srcNil
	// or srcNone; srcNone for everything else.
	src []int32
	// byID maps a CmdId to its record, the first one for a scan.
	byID map[OpID]int32
	// scans and scanPart index the records of scans (scan.go).
	scans    map[OpID]*scanGroup
	scanPart map[partID]int32
	// writer maps a written value to the first put that wrote it.
	writer    map[string]int32
	byKey     map[kvs.Key][]int32
	keys      []kvs.Key // sorted
	bySessKey map[sessKey][]int32
}

func (x *history) completed(i int32) bool { return x.end[i] != inf }

func (x *history) isRead(i int32) bool { return x.ops[i].Kind == Get }

func (x *history) isPut(i int32) bool { return x.ops[i].Kind == Put }

func (x *history) strong(i int32) bool { return x.ops[i].Level == Strong }

// newHistory indexes h, reporting malformed records to c
// (RuleHistoryInvalid). Bad records are still indexed as well as possible.
func newHistory(h []Op, c *collector) *history {
	n := len(h)
	x := &history{
		ops:       h,
		end:       make([]int64, n),
		src:       make([]int32, n),
		byID:      make(map[OpID]int32, n),
		scans:     map[OpID]*scanGroup{},
		scanPart:  map[partID]int32{},
		writer:    map[string]int32{},
		byKey:     map[kvs.Key][]int32{},
		bySessKey: map[sessKey][]int32{},
	}
	invalid := func(i int32, format string, args ...any) {
		c.add(Violation{
			Rule:    RuleHistoryInvalid,
			Ops:     []OpID{h[i].ID()},
			Message: fmt.Sprintf("record %d, %s: ", i+1, x.describe(i)) + fmt.Sprintf(format, args...),
		})
	}
	for i := int32(0); int(i) < n; i++ {
		o := &h[i]
		x.end[i] = inf
		if o.OK && o.ReturnNS >= o.InvokeNS {
			x.end[i] = o.ReturnNS
		}
		x.src[i] = srcNone
		if err := validateOp(*o); err != nil {
			invalid(i, "%v", err)
		}
		if j, dup := x.byID[o.ID()]; dup {
			if why := x.joinScan(j, i); why != "" {
				invalid(i, "%s", why)
			}
		} else {
			x.byID[o.ID()] = i
			if o.Scan {
				x.startScan(i)
			}
		}
		if o.Kind == Put && o.Value != "" {
			if j, dup := x.writer[o.Value]; dup {
				invalid(i, "writes the value %q already written by %v; written values must be unique (PROTOCOL.md 2.6)",
					o.Value, h[j].ID())
			} else {
				x.writer[o.Value] = i
			}
		}
		if _, seen := x.byKey[o.Key]; !seen {
			x.keys = append(x.keys, o.Key)
		}
		x.byKey[o.Key] = append(x.byKey[o.Key], i)
		sk := sessKey{o.Session, o.Key}
		x.bySessKey[sk] = append(x.bySessKey[sk], i)
	}
	x.checkScanRanges(invalid)
	slices.Sort(x.keys)
	for i := int32(0); int(i) < n; i++ {
		o := &h[i]
		if o.Kind != Get || !x.completed(i) {
			continue
		}
		if o.Value == "" {
			x.src[i] = srcNil
			continue
		}
		if w, ok := x.writer[o.Value]; ok && h[w].Key == o.Key {
			x.src[i] = w
		}
	}
	return x
}

// describe names operation i for a message: id, level, kind, key, value and
// instants.
func (x *history) describe(i int32) string {
	o := &x.ops[i]
	var what string
	switch {
	case o.Scan:
		what = x.describeScanPart(i)
	case o.Kind == Put:
		what = fmt.Sprintf("%v put of %s to key %d", o.Level, shortValue(o.Value), o.Key)
	case x.completed(i) && o.Value == "":
		what = fmt.Sprintf("%v get of key %d returning NIL", o.Level, o.Key)
	case x.completed(i):
		what = fmt.Sprintf("%v get of key %d returning %s", o.Level, o.Key, shortValue(o.Value))
	default:
		what = fmt.Sprintf("%v get of key %d", o.Level, o.Key)
	}
	var when string
	switch {
	case x.completed(i):
		when = fmt.Sprintf("invoked at %d, returned at %d", o.InvokeNS, o.ReturnNS)
	case o.ReturnNS != 0:
		when = fmt.Sprintf("invoked at %d, failed at %d with unknown outcome", o.InvokeNS, o.ReturnNS)
	default:
		when = fmt.Sprintf("invoked at %d, never returned", o.InvokeNS)
	}
	return fmt.Sprintf("%v (%s, %s)", o.ID(), what, when)
}

// describeSrc names the write a read read from: a put or the initial NIL.
// shortValue quotes v for a message: benchmark values are padded to
// commandSize, so only the unique part and the length are shown.
func shortValue(v string) string {
	const keep = 24
	if len(v) <= keep {
		return fmt.Sprintf("%q", v)
	}
	t := strings.TrimRight(v, ".")
	if len(t) > keep {
		t = t[:keep]
	}
	return fmt.Sprintf("%q… (%d bytes)", t, len(v))
}

func (x *history) describeSrc(w int32) string {
	if w == srcNil {
		return "the initial NIL (no write)"
	}
	return x.describe(w)
}

// ids returns the OpIDs of the given operations, skipping the virtual w0.
func (x *history) ids(is ...int32) []OpID {
	out := make([]OpID, 0, len(is))
	for _, i := range is {
		if i >= 0 {
			out = append(out, x.ops[i].ID())
		}
	}
	return out
}
