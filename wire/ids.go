package wire

import "fmt"

// ReplicaID is the index of a replica in the configuration (replica0 is 0).
type ReplicaID int32

// NoReplica means "no replica" (no known leader, no bound replica).
const NoReplica ReplicaID = -1

// Ballot is a ballot (Raft term), PROTOCOL.md section 1.4.
type Ballot uint32

// ClientID identifies a client session. It is drawn from 64 bits of
// randomness (PROTOCOL.md section 1.5 recommends more than the reference's 32).
type ClientID uint64

// Seq is a per-session operation counter; the first operation has Seq 1.
type Seq uint64

// CmdID identifies one client operation forever: the unit of de-duplication
// and retry.
type CmdID struct {
	Client ClientID
	Seq    Seq
}

func (c CmdID) String() string { return fmt.Sprintf("%x/%d", uint64(c.Client), uint64(c.Seq)) }

// IsZero reports whether c is the zero CmdID (used by no-op log entries).
func (c CmdID) IsZero() bool { return c.Client == 0 && c.Seq == 0 }

// Level is the consistency level of an operation.
type Level uint8

const (
	// Strong operations are linearizable.
	Strong Level = 1
	// Weak operations are causally consistent.
	Weak Level = 2
)

func (l Level) String() string {
	switch l {
	case Strong:
		return "strong"
	case Weak:
		return "weak"
	}
	return fmt.Sprintf("Level(%d)", uint8(l))
}

// MarshalText encodes l as "strong" or "weak" (the checker's history
// format).
func (l Level) MarshalText() ([]byte, error) {
	if l != Strong && l != Weak {
		return nil, fmt.Errorf("invalid level %d", uint8(l))
	}
	return []byte(l.String()), nil
}

// UnmarshalText accepts exactly "strong" or "weak".
func (l *Level) UnmarshalText(b []byte) error {
	switch string(b) {
	case "strong":
		*l = Strong
	case "weak":
		*l = Weak
	default:
		return fmt.Errorf("level %q is neither \"strong\" nor \"weak\"", b)
	}
	return nil
}

// ReadDepKind tags a ReadDep (PROTOCOL.md section 5.2).
type ReadDepKind uint8

const (
	// DepNone: no pending write overlaps the read.
	DepNone ReadDepKind = 0
	// DepOne: exactly one pending write overlaps, and it is weak.
	DepOne ReadDepKind = 1
	// DepMulti: anything else; never matches on the fast path.
	DepMulti ReadDepKind = 2
)

// ReadDep is NONE, ONE(Cmd) or MULTI.
type ReadDep struct {
	Kind ReadDepKind
	Cmd  CmdID // meaningful only for DepOne
}

// Matches reports whether two ReadDeps agree for the CURP-HO fast path
// (PROTOCOL.md section 5.8 condition 3): MULTI never matches.
func (d ReadDep) Matches(o ReadDep) bool {
	if d.Kind == DepMulti || o.Kind == DepMulti {
		return false
	}
	return d == o
}
