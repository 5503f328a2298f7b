package check

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"swiftpaxos/kvs"
)

const (
	// srcNil marks a read of absent from the virtual initial write w0
	// (PROTOCOL.md section 2.1).
	srcNil int32 = -1
	// srcNone marks a read without a known source: not completed, or no
	// write to its key wrote the value it returned.
	srcNone int32 = -2
	// srcAmbiguous marks a read whose state more than one write may have
	// written: absent on a key that DELETEs or CASes delete, a counter
	// value that several INCRs wrote or that a pending INCR may have
	// written. Rules that follow reads-from skip it (doc.go, "Operations
	// as reads and writes"); linearizability decides it.
	srcAmbiguous int32 = -3

	inf    = math.MaxInt64
	negInf = math.MinInt64
)

type sessKey struct {
	session SessionID
	key     kvs.Key
}

// history is the indexed, read-only view of a history that every rule
// works from. Parts (parts.go) are referred to by their int32 index in
// ops, operations by their index in cmds.
type history struct {
	cmds []Op
	ops  []part
	// cmdByID maps a CmdId to its operation.
	cmdByID map[OpID]int32
	// end is the response instant of a part, +inf when it is pending
	// (PROTOCOL.md section 2.1: resp = infinity).
	end []int64
	// src is, for a completed read, the write it read from, srcNil,
	// srcNone or srcAmbiguous; srcNone for everything else.
	src []int32
	// byID maps a CmdId to its first part.
	byID map[OpID]int32
	// scanPart indexes the parts of scans by CmdId and key.
	scanPart map[partID]int32
	// writer maps a value a PUT or a CAS writes to the first part that
	// writes it.
	writer    map[string]int32
	byKey     map[kvs.Key][]int32
	keys      []kvs.Key // sorted
	bySessKey map[sessKey][]int32
}

func (x *history) completed(i int32) bool { return x.end[i] != inf }

func (x *history) isRead(i int32) bool { return x.ops[i].Kind == Get }

func (x *history) isPut(i int32) bool { return x.ops[i].Kind == Put }

func (x *history) strong(i int32) bool { return x.ops[i].Level == Strong }

// partID names one part of a scan: its CmdId and key.
type partID struct {
	id  OpID
	key kvs.Key
}

// knownSource reports whether read i has a known source: a write, or w0.
func (x *history) knownSource(i int32) bool { return x.src[i] >= 0 || x.src[i] == srcNil }

// newHistory lowers h to parts and indexes them, reporting malformed
// records to c (RuleHistoryInvalid). Bad records are still indexed as
// well as possible.
func newHistory(h []Op, c *collector) *history {
	x := &history{
		cmds:      h,
		cmdByID:   make(map[OpID]int32, len(h)),
		byID:      make(map[OpID]int32, len(h)),
		scanPart:  map[partID]int32{},
		writer:    map[string]int32{},
		byKey:     map[kvs.Key][]int32{},
		bySessKey: map[sessKey][]int32{},
	}
	invalid := func(i int32, format string, args ...any) {
		c.add(Violation{
			Rule:    RuleHistoryInvalid,
			Ops:     []OpID{h[i].ID()},
			Message: fmt.Sprintf("record %d, %s: ", i+1, x.describeCmd(i)) + fmt.Sprintf(format, args...),
		})
	}
	keys := writtenKeys(h)
	for i := int32(0); int(i) < len(h); i++ {
		if err := validateOp(h[i]); err != nil {
			invalid(i, "%v", err)
		}
		if j, dup := x.cmdByID[h[i].ID()]; dup {
			invalid(i, "reuses the (session, seq) of record %d; every operation needs its own seq", j+1)
			continue
		}
		x.cmdByID[h[i].ID()] = i
		x.ops = lower(x.ops, h, i, keys)
	}
	n := len(x.ops)
	x.end, x.src = make([]int64, n), make([]int32, n)
	written := map[sessKey][]int32{} // (key, value) -> the parts writing it; session holds the value
	tombs := map[kvs.Key][]int32{}
	unknown := map[kvs.Key]bool{}
	for i := int32(0); int(i) < n; i++ {
		o := &x.ops[i]
		x.end[i] = inf
		if o.OK && o.ReturnNS >= o.InvokeNS {
			x.end[i] = o.ReturnNS
		}
		x.src[i] = srcNone
		id := o.ID()
		if _, seen := x.byID[id]; !seen {
			x.byID[id] = i
		}
		if o.Scan {
			x.scanPart[partID{id, o.Key}] = i
		}
		switch {
		case o.Kind != Put:
		case o.unknown:
			unknown[o.Key] = true
		case !o.Found:
			tombs[o.Key] = append(tombs[o.Key], i)
		default:
			vk := sessKey{SessionID(o.Value), o.Key}
			written[vk] = append(written[vk], i)
			if o.counter {
				break
			}
			if j, dup := x.writer[o.Value]; dup {
				invalid(o.cmd, "writes the value %s already written by %v; written values must be unique (PROTOCOL.md 2.6)",
					shortValue(o.Value), x.ops[j].ID())
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
	slices.Sort(x.keys)
	for i := int32(0); int(i) < n; i++ {
		o := &x.ops[i]
		if o.Kind != Get || !x.completed(i) {
			continue
		}
		x.src[i] = x.sourceOf(i, written[sessKey{SessionID(o.Value), o.Key}], tombs[o.Key], unknown[o.Key])
	}
	return x
}

// sourceOf resolves the write read i read from, given the writes of its
// value to its key (or the key's DELETEs, for a read of absent) and
// whether a pending INCR wrote the key an unknown value. A write invoked
// after the read returned cannot be its source unless it is the only
// candidate (read-from-future reports it).
func (x *history) sourceOf(i int32, same, tombs []int32, unknown bool) int32 {
	o := &x.ops[i]
	if !o.Found {
		for _, d := range tombs {
			if x.ops[d].InvokeNS <= x.end[i] {
				return srcAmbiguous
			}
		}
		return srcNil
	}
	switch {
	case len(same) == 1 && !(unknown && isInteger(o.Value)):
		return same[0]
	case len(same) > 1, unknown && isInteger(o.Value):
		return srcAmbiguous
	}
	return srcNone
}

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
