package client

import (
	"errors"
	"fmt"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
)

// Level is an operation's consistency level, chosen per operation.
type Level = wire.Level

const (
	// Strong operations are linearizable.
	Strong = wire.Strong
	// Weak operations are causally consistent.
	Weak = wire.Weak
)

// NoReplica is the Replica of a Result no replica answered.
const NoReplica = wire.NoReplica

// Op is one operation a session is asked to run.
type Op struct {
	Level   Level
	Command kvs.Command
}

// Validate checks op before it is sent: a strong or weak GET, PUT or SCAN
// that kvs.Command.Validate accepts. A replica closes the connection of
// a client that sends an invalid command, so a session never sends one.
func (o Op) Validate() error {
	if o.Level != Strong && o.Level != Weak {
		return fmt.Errorf("%w: level %v: strong or weak", kvs.ErrInvalidCommand, o.Level)
	}
	switch o.Command.Op {
	case kvs.OpGet, kvs.OpPut, kvs.OpScan:
	default:
		return fmt.Errorf("%w: %v: a session runs GET, PUT and SCAN", kvs.ErrInvalidCommand, o.Command.Op)
	}
	return o.Command.Validate()
}

// Path says how an operation completed.
type Path uint8

const (
	// PathNone: not completed.
	PathNone Path = iota
	// PathFast: a strong operation completed on the CURP fast path.
	PathFast
	// PathSlow: a strong operation completed with the leader's SyncReply.
	PathSlow
	// PathWeak: a weak operation.
	PathWeak
)

func (p Path) String() string {
	switch p {
	case PathFast:
		return "fast"
	case PathSlow:
		return "slow"
	case PathWeak:
		return "weak"
	}
	return "none"
}

// Result is the outcome of a completed operation.
type Result struct {
	Seq     wire.Seq
	Op      Op
	Value   kvs.Value  // the value read (GET); nil for a PUT or a SCAN
	Items   []kvs.Item // a SCAN's result, per key (keys not listed are NIL)
	Version kvs.Slot   // the slot of the write the value came from (a SCAN: the newest)
	Slot    kvs.Slot   // the operation's own slot, when known
	Path    Path
	// Replica is the replica whose reply completed the operation: the
	// leader after a fast path (its result, with the witnesses' acks),
	// the replica that sent the SyncReply after a slow path, the one that
	// answered a weak read or acknowledged a weak write; NoReplica when
	// the session failed the operation itself (an expired session).
	Replica wire.ReplicaID
	Err     error
}

// Sentinel errors.
var (
	// ErrTimeout: no reply within the deadline.
	ErrTimeout = errors.New("operation timed out")
	// ErrClosed: the session was closed.
	ErrClosed = errors.New("session closed")
	// ErrUnreachable: no replica can be reached.
	ErrUnreachable = errors.New("cluster unreachable")
	// ErrRefused: the leader refused the operation for good, because an
	// earlier weak write of the session was lost (the session was cut off
	// from the leader for longer than the refusal age); it never executed.
	ErrRefused = errors.New("operation refused: an earlier weak write of the session was lost")
	// ErrExpired: the cluster ended the session, because the leader had
	// not heard from it for sessionIdleMs; the operation did not execute
	// after the end, but one sent before it may have. A program that
	// wants to go on opens a new session.
	ErrExpired = errors.New("session expired: idle longer than sessionIdleMs; open a new session")
)

func (o Op) String() string {
	return fmt.Sprintf("%s %s", o.Level, o.Command)
}
