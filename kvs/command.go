package kvs

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Key is a key of the store: a byte string of 1 to Limits.MaxKey bytes,
// ordered bytewise (PROTOCOL.md section 1.2), as Go orders strings. It is
// a string, not a []byte, because keys are compared, hashed and kept in
// maps everywhere, and a string is immutable.
type Key string

// Value is a stored byte string, possibly empty. Absent differs from
// empty: whether a key holds a value is told by Found, never by length.
type Value []byte

// Slot is a log position. Slots start at 1; 0 means "never written".
type Slot uint64

// Bounds on keys and values that no configuration may raise: a value must
// fit in one wire frame (16 MiB) with its key and headers.
const (
	MaxKeyLimit   = 64 << 10
	MaxValueLimit = 15 << 20
)

// MaxScanLimit bounds the Limit of a SCAN: a replica walks at most that
// many keys to answer one, so that a client cannot make it walk the store.
const MaxScanLimit = 10000

// ErrInvalidCommand is wrapped by every error [Command.Validate] returns.
var ErrInvalidCommand = errors.New("kvs: invalid command")

// Op is the kind of a command.
type Op uint8

const (
	// OpGet reads one key.
	OpGet Op = 1
	// OpPut writes one key.
	OpPut Op = 2
	// OpScan reads the keys of [Key, End) in order, at most Limit of them
	// holding a value.
	OpScan Op = 3
	// OpNoop changes nothing; recovery appends one per view (PROTOCOL.md section 6.3).
	OpNoop Op = 4
	// OpDelete makes a key absent.
	OpDelete Op = 5
	// OpCAS writes or deletes a key if its current state matches Expect.
	OpCAS Op = 6
	// OpIncr adds Delta to a key holding a decimal 64-bit integer.
	OpIncr Op = 7
)

func (o Op) String() string {
	switch o {
	case OpGet:
		return "GET"
	case OpPut:
		return "PUT"
	case OpScan:
		return "SCAN"
	case OpNoop:
		return "NOOP"
	case OpDelete:
		return "DELETE"
	case OpCAS:
		return "CAS"
	case OpIncr:
		return "INCR"
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Valid reports whether o is one of the defined operations.
func (o Op) Valid() bool { return o >= OpGet && o <= OpIncr }

// Expect is what a CAS compares a key's current state with.
type Expect uint8

const (
	// ExpectAbsent: the key holds no value.
	ExpectAbsent Expect = 1
	// ExpectValue: the key holds exactly Command.ExpectValue.
	ExpectValue Expect = 2
	// ExpectVersion: the key's last write was at slot Command.ExpectVersion
	// (0: never written).
	ExpectVersion Expect = 3
)

func (e Expect) String() string {
	switch e {
	case ExpectAbsent:
		return "absent"
	case ExpectValue:
		return "value"
	case ExpectVersion:
		return "version"
	}
	return fmt.Sprintf("Expect(%d)", uint8(e))
}

// Command is one operation on the store. Each operation uses some of the
// fields; Validate refuses a command that sets any other.
//
//	GET     Key
//	PUT     Key, Value
//	DELETE  Key
//	SCAN    Key (start, may be empty: the first key), End (exclusive, empty:
//	        past the last key), Limit (1..MaxScanLimit)
//	CAS     Key, Expect, ExpectValue (ExpectValue only), ExpectVersion
//	        (ExpectVersion only), Value, or Delete: the key is deleted
//	INCR    Key, Delta
//	NOOP    nothing
type Command struct {
	Op            Op
	Expect        Expect
	Delete        bool
	Key           Key
	End           Key
	Limit         int64
	Value         Value
	ExpectValue   Value
	ExpectVersion Slot
	Delta         int64
}

// IsWrite reports whether c may change the store: PUT, DELETE, CAS and
// INCR (whatever their outcome).
func (c Command) IsWrite() bool {
	return c.Op == OpPut || c.Op == OpDelete || c.Op == OpCAS || c.Op == OpIncr
}

// IsRead reports whether c only reads the store (a GET or a SCAN).
func (c Command) IsRead() bool { return c.Op == OpGet || c.Op == OpScan }

// ReadsState reports whether c's result depends on the state it executes
// against: a read, or a DELETE (whether the key existed), a CAS or an
// INCR. A speculative result of such a command must account for every
// write ordered before it, as a read's must (PROTOCOL.md 3.5, 5.5).
func (c Command) ReadsState() bool { return c.IsRead() || c.Op == OpDelete || c.StrongOnly() }

// StrongOnly reports whether c may only run at the strong level: its
// result depends on the state it executes against, which a weak write,
// answered before it is ordered, cannot know (PROTOCOL.md 1.2).
func (c Command) StrongOnly() bool { return c.Op == OpCAS || c.Op == OpIncr }

// Covers reports whether key k is among the keys c touches: its own key,
// or for a SCAN any key of [Key, End).
func (c Command) Covers(k Key) bool {
	switch c.Op {
	case OpScan:
		return k >= c.Key && (c.End == "" || k < c.End)
	case OpNoop:
		return false
	}
	return k == c.Key
}

// Conflicts reports whether c and other conflict (PROTOCOL.md section 1.3):
// their key sets intersect and at least one of them writes. A SCAN covers
// its whole range, not only the keys it returns (its limit is applied at
// execution). Reads never conflict with reads, and NOOP conflicts with
// nothing. The relation is symmetric; it does not look at values.
func (c Command) Conflicts(other Command) bool {
	if !c.IsWrite() && !other.IsWrite() || c.Op == OpNoop || other.Op == OpNoop {
		return false
	}
	switch {
	case c.Op == OpScan && other.Op == OpScan:
		return false // both read
	case c.Op == OpScan:
		return c.Covers(other.Key)
	case other.Op == OpScan:
		return other.Covers(c.Key)
	}
	return c.Key == other.Key
}

// Limits are the bounds a replica's configuration sets on keys and values
// (maxKeyBytes, maxValueBytes).
type Limits struct {
	MaxKey   int
	MaxValue int
}

// DefaultLimits are the configuration's defaults.
var DefaultLimits = Limits{MaxKey: 1024, MaxValue: 1 << 20}

// Validate checks c before it is admitted to the log or sent: the
// operation is known, its key and values are within l, it sets only the
// fields its operation uses, a SCAN's end is not before its start and its
// limit lies in [1, MaxScanLimit]. Errors wrap ErrInvalidCommand and say
// what is wrong in words a user can act on.
func (c Command) Validate(l Limits) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %v: %s", ErrInvalidCommand, c.Op, fmt.Sprintf(format, args...))
	}
	if !c.Op.Valid() {
		return fmt.Errorf("%w: unknown operation %v", ErrInvalidCommand, c.Op)
	}
	if err := c.unused(); err != "" {
		return bad("%s", err)
	}
	switch c.Op {
	case OpNoop:
		return nil
	case OpScan:
		if len(c.Key) > l.MaxKey || len(c.End) > l.MaxKey {
			return bad("a key of %d bytes, over maxKeyBytes %d", max(len(c.Key), len(c.End)), l.MaxKey)
		}
		if c.End != "" && c.End < c.Key {
			return bad("the end %q is before the start %q", c.End, c.Key)
		}
		if c.Limit < 1 || c.Limit > MaxScanLimit {
			return bad("limit %d outside [1, %d]", c.Limit, MaxScanLimit)
		}
		return nil
	}
	if len(c.Key) == 0 {
		return bad("an empty key")
	}
	if len(c.Key) > l.MaxKey {
		return bad("a key of %d bytes, over maxKeyBytes %d", len(c.Key), l.MaxKey)
	}
	if len(c.Value) > l.MaxValue || len(c.ExpectValue) > l.MaxValue {
		return bad("a value of %d bytes, over maxValueBytes %d", max(len(c.Value), len(c.ExpectValue)), l.MaxValue)
	}
	if c.Op == OpCAS {
		if c.Expect < ExpectAbsent || c.Expect > ExpectVersion {
			return bad("unknown expectation %v", c.Expect)
		}
		if c.Delete && len(c.Value) > 0 {
			return bad("both a new value and delete")
		}
	}
	return nil
}

// fieldsOf lists, by operation, the fields it uses: k Key, v Value, e End,
// l Limit, x Expect and its operand, d Delete, D Delta.
var fieldsOf = [...]string{OpGet: "k", OpPut: "kv", OpScan: "kel", OpNoop: "", OpDelete: "k", OpCAS: "kvxd", OpIncr: "kD"}

// unused says which field c sets that its operation does not use, or "".
func (c Command) unused() string {
	uses := fieldsOf[c.Op]
	has := func(f byte) bool { return strings.IndexByte(uses, f) >= 0 }
	switch {
	case c.Key != "" && !has('k'):
		return "a key"
	case len(c.Value) > 0 && !has('v'):
		return fmt.Sprintf("a %d-byte value", len(c.Value))
	case c.End != "" && !has('e'):
		return "an end key"
	case c.Limit != 0 && !has('l'):
		return fmt.Sprintf("limit %d", c.Limit)
	case c.Expect != 0 && !has('x'):
		return "an expectation"
	case len(c.ExpectValue) > 0 && (!has('x') || c.Expect != ExpectValue):
		return "an expected value"
	case c.ExpectVersion != 0 && (!has('x') || c.Expect != ExpectVersion):
		return "an expected version"
	case c.Delete && !has('d'):
		return "delete"
	case c.Delta != 0 && !has('D'):
		return fmt.Sprintf("delta %d", c.Delta)
	}
	return ""
}

// String renders c for logs. Values show their length, not their bytes,
// which may be binary and long; keys are quoted.
func (c Command) String() string {
	switch c.Op {
	case OpGet:
		return fmt.Sprintf("GET(%q)", c.Key)
	case OpPut:
		return fmt.Sprintf("PUT(%q, %dB)", c.Key, len(c.Value))
	case OpDelete:
		return fmt.Sprintf("DELETE(%q)", c.Key)
	case OpScan:
		return fmt.Sprintf("SCAN(%q, %q, %d)", c.Key, c.End, c.Limit)
	case OpCAS:
		var exp string
		switch c.Expect {
		case ExpectValue:
			exp = fmt.Sprintf("value %dB", len(c.ExpectValue))
		case ExpectVersion:
			exp = "version " + strconv.FormatUint(uint64(c.ExpectVersion), 10)
		default:
			exp = c.Expect.String()
		}
		if c.Delete {
			return fmt.Sprintf("CAS(%q, %s, delete)", c.Key, exp)
		}
		return fmt.Sprintf("CAS(%q, %s, %dB)", c.Key, exp, len(c.Value))
	case OpIncr:
		return fmt.Sprintf("INCR(%q, %d)", c.Key, c.Delta)
	case OpNoop:
		return "NOOP"
	}
	return fmt.Sprintf("%v(%q)", c.Op, c.Key)
}
