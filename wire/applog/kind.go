package applog

import "fmt"

// Kind is the kind of an applied-log entry and of a history record
// (package check): the operations of PROTOCOL.md 1.2, and the log-only
// Noop and Snapshot.
type Kind uint8

const (
	// Put writes a key.
	Put Kind = 1
	// Get reads a key.
	Get Kind = 2
	// Noop changes nothing; it only appears in applied logs (PROTOCOL.md
	// section 6.3).
	Noop Kind = 3
	// Snapshot is an applied-log marker, never an operation: the log goes
	// on after slot Slot, and the slots up to it that the log does not
	// list were installed from a snapshot of the same prefix (doc.go,
	// "Snapshot markers").
	Snapshot Kind = 4
	// Delete makes a key absent.
	Delete Kind = 5
	// CAS writes or deletes a key if its state matches an expectation.
	CAS Kind = 6
	// Incr adds a delta to a decimal counter.
	Incr Kind = 7
	// Scan reads the keys of a range.
	Scan Kind = 8
)

var kindNames = [...]string{Put: "put", Get: "get", Noop: "noop", Snapshot: "snapshot",
	Delete: "delete", CAS: "cas", Incr: "incr", Scan: "scan"}

// Valid reports whether k is one of the kinds above.
func (k Kind) Valid() bool { return k >= Put && k <= Scan }

func (k Kind) String() string {
	if k.Valid() {
		return kindNames[k]
	}
	return fmt.Sprintf("OpKind(%d)", uint8(k))
}

// Command reports whether k is an operation a client invokes (not Noop or
// Snapshot).
func (k Kind) Command() bool { return k.Valid() && k != Noop && k != Snapshot }

// MarshalText encodes k by its name.
func (k Kind) MarshalText() ([]byte, error) {
	if !k.Valid() {
		return nil, fmt.Errorf("invalid op kind %d", uint8(k))
	}
	return []byte(k.String()), nil
}

// UnmarshalText accepts exactly the names of the kinds.
func (k *Kind) UnmarshalText(b []byte) error {
	for i, n := range kindNames {
		if n != "" && n == string(b) {
			*k = Kind(i)
			return nil
		}
	}
	return fmt.Errorf("op %q is not one of put, get, delete, cas, incr, scan, noop, snapshot", b)
}
