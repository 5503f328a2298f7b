package kvs

import "fmt"

// Result is the outcome of a command (PROTOCOL.md section 1.2). Version is
// the slot of the last write to the key once the command executed (0:
// never written), for every operation but NOOP; a key that was deleted
// keeps the slot of its DELETE.
//
//	GET     Value, Found: the key's value and whether it holds one
//	PUT     Version: the PUT's own slot
//	DELETE  Found: whether the key held a value before; Version: the DELETE's slot
//	SCAN    Items: the keys of the range that hold a value, in key order, at
//	        most Limit of them and about MaxScanBytes; More: keys of the
//	        range after the last item hold values; Version: the largest
//	        version among the items
//	CAS     Applied: the expectation held and the write took place; Value,
//	        Found, Version: the key's state after the command, either way
//	INCR    Value, Found, Version: the key's state after the command (the
//	        new decimal value when it applied); Err: why nothing changed
type Result struct {
	Value   Value
	Found   bool
	Version Slot
	Items   []Item
	More    bool
	Applied bool
	Err     ErrCode
}

// ErrCode is why an INCR changed nothing: a result, the same at every
// replica, not a failure of the command.
type ErrCode uint8

const (
	// ErrNone: no error.
	ErrNone ErrCode = 0
	// ErrNotInteger: the key holds a value that is not a decimal signed
	// 64-bit integer.
	ErrNotInteger ErrCode = 1
	// ErrOverflow: the sum does not fit in a signed 64-bit integer.
	ErrOverflow ErrCode = 2
)

// Error returns the code as an error, nil for ErrNone.
func (e ErrCode) Error() error {
	switch e {
	case ErrNone:
		return nil
	case ErrNotInteger:
		return ErrValueNotInteger
	case ErrOverflow:
		return ErrIncrOverflow
	}
	return fmt.Errorf("kvs: error code %d", uint8(e))
}

// The errors an INCR result may carry.
var (
	ErrValueNotInteger = fmt.Errorf("kvs: the value is not a decimal 64-bit integer")
	ErrIncrOverflow    = fmt.Errorf("kvs: the increment overflows a 64-bit integer")
)

// Item is one key of a SCAN result, or of a snapshot: its value, whether
// it holds one (a snapshot keeps deleted keys, with the slot of their
// DELETE, so that every replica has the same versions), and the slot of
// its last write.
type Item struct {
	Key     Key
	Value   Value
	Found   bool
	Version Slot
}

// ItemOf returns the value, presence and version of k in a SCAN result's
// items (sorted by key); not found and 0 when the key is not listed.
func ItemOf(items []Item, k Key) (Value, bool, Slot) {
	lo, hi := 0, len(items)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if items[m].Key < k {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(items) && items[lo].Key == k {
		return items[lo].Value, items[lo].Found, items[lo].Version
	}
	return nil, false, 0
}

// MaxScanBytes bounds the keys and values of one SCAN result: a quarter of
// a wire frame, so that a reply always fits in one with room to spare. A
// SCAN whose next item would pass it stops and says More, unless the
// item is its first (a value is at most MaxValueLimit).
const MaxScanBytes = 4 << 20
