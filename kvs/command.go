package kvs

import "fmt"

// Key is a key of the store (PROTOCOL.md section 1.2).
type Key int64

// Value is a stored byte string. The empty value means "absent" (NIL).
type Value []byte

// MaxValueLen is the exclusive upper bound on the length of a value
// (PROTOCOL.md section 1.2: lengths fit in 16 bits).
const MaxValueLen = 1 << 16

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
