package kvs

import (
	"errors"
	"fmt"
	"iter"
	"math"
)

// Key is a key of the store (PROTOCOL.md section 1.2).
type Key int64

// Value is a stored byte string. The empty value means "absent" (NIL).
type Value []byte

// MaxValueLen is the exclusive upper bound on the length of a value
// (PROTOCOL.md section 1.2: lengths fit in 16 bits).
const MaxValueLen = 1 << 16

// MaxScanCount bounds the Count of a SCAN, which then covers at most
// MaxScanCount+1 keys. PROTOCOL.md leaves the bound open; a bound is needed
// because a replica walks the whole range when it applies or serves a SCAN,
// so an unbounded Count from a client would be a denial of service. 1000
// keys is far above what the benchmark's SCANs use.
const MaxScanCount = 1000

// ErrInvalidCommand is wrapped by every error [Command.Validate] returns.
var ErrInvalidCommand = errors.New("kvs: invalid command")

// Slot is a log position. Slots start at 1; 0 means "never written".
type Slot uint64

// Op is the kind of a command.
type Op uint8

const (
	// OpGet reads one key.
	OpGet Op = 1
	// OpPut writes one key.
	OpPut Op = 2
	// OpScan reads the closed key range [Key, Key+Count].
	OpScan Op = 3
	// OpNoop changes nothing; recovery appends one per view (PROTOCOL.md section 6.3).
	OpNoop Op = 4
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
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Valid reports whether o is one of the defined operations.
func (o Op) Valid() bool { return o >= OpGet && o <= OpNoop }

// Command is one operation on the store.
type Command struct {
	Op    Op
	Key   Key
	Count int64 // SCAN only: the range is [Key, Key+Count]
	Value Value // PUT only
}

// IsWrite reports whether c changes the store (a PUT).
func (c Command) IsWrite() bool { return c.Op == OpPut }

// IsRead reports whether c only reads the store (a GET or a SCAN).
func (c Command) IsRead() bool { return c.Op == OpGet || c.Op == OpScan }

// KeyRange returns the closed range [lo, hi] of keys c touches. GET and PUT
// touch the single key c.Key; SCAN touches [c.Key, c.Key+c.Count].
//
// The range is total even for commands Validate rejects, so that Conflicts
// and Store.Apply agree on every input: a SCAN's Count is clamped to
// [0, MaxScanCount] and hi saturates at math.MaxInt64 instead of
// overflowing (keys beyond it do not exist). NOOP and unknown operations
// touch no key; they return the empty range lo = 1, hi = 0 (lo > hi).
func (c Command) KeyRange() (lo, hi Key) {
	switch c.Op {
	case OpGet, OpPut:
		return c.Key, c.Key
	case OpScan:
		n := min(max(c.Count, 0), MaxScanCount)
		if c.Key > math.MaxInt64-Key(n) {
			return c.Key, math.MaxInt64
		}
		return c.Key, c.Key + Key(n)
	}
	return 1, 0
}

// Keys yields the keys of KeyRange in increasing order, none for a
// command that touches no key. It stops at hi without overflowing when hi
// is math.MaxInt64.
func (c Command) Keys() iter.Seq[Key] {
	return func(yield func(Key) bool) {
		lo, hi := c.KeyRange()
		if lo > hi {
			return
		}
		for k := lo; yield(k) && k != hi; k++ {
		}
	}
}

// Conflicts reports whether c and other conflict (PROTOCOL.md section 1.3):
// their key sets intersect and at least one of them is a PUT. Reads never
// conflict with reads, and NOOP conflicts with nothing. The relation is
// symmetric. It is exact rather than conservative about keys, but it does not
// look at values: two PUTs of the same value to one key conflict.
func (c Command) Conflicts(other Command) bool {
	if !c.IsWrite() && !other.IsWrite() {
		return false
	}
	alo, ahi := c.KeyRange()
	blo, bhi := other.KeyRange()
	// Empty ranges (lo > hi) make one of the comparisons false.
	return alo <= ahi && blo <= bhi && alo <= bhi && blo <= ahi
}

// Validate checks c before it is admitted to the log: the operation is
// known, a value is present only on a PUT and is shorter than MaxValueLen,
// and Count is non-zero only on a SCAN, where it lies in [0, MaxScanCount].
// A SCAN whose range runs past math.MaxInt64 is valid; it covers the keys up
// to math.MaxInt64. Errors wrap ErrInvalidCommand.
func (c Command) Validate() error {
	if !c.Op.Valid() {
		return fmt.Errorf("%w: unknown operation %v", ErrInvalidCommand, c.Op)
	}
	if len(c.Value) >= MaxValueLen {
		return fmt.Errorf("%w: %v value of %d bytes, limit is %d",
			ErrInvalidCommand, c.Op, len(c.Value), MaxValueLen-1)
	}
	if c.Op != OpPut && len(c.Value) != 0 {
		return fmt.Errorf("%w: %v carries a %d-byte value, only PUT may",
			ErrInvalidCommand, c.Op, len(c.Value))
	}
	if c.Op == OpScan {
		if c.Count < 0 || c.Count > MaxScanCount {
			return fmt.Errorf("%w: SCAN count %d outside [0, %d]",
				ErrInvalidCommand, c.Count, MaxScanCount)
		}
	} else if c.Count != 0 {
		return fmt.Errorf("%w: %v has count %d, only SCAN may",
			ErrInvalidCommand, c.Op, c.Count)
	}
	return nil
}

// String renders c for logs. A PUT shows the length of its value, not the
// bytes, which may be binary and long.
func (c Command) String() string {
	switch c.Op {
	case OpGet:
		return fmt.Sprintf("GET(%d)", c.Key)
	case OpPut:
		return fmt.Sprintf("PUT(%d, %dB)", c.Key, len(c.Value))
	case OpScan:
		return fmt.Sprintf("SCAN(%d, %d)", c.Key, c.Count)
	case OpNoop:
		return "NOOP"
	}
	return fmt.Sprintf("%v(%d, %d, %dB)", c.Op, c.Key, c.Count, len(c.Value))
}
