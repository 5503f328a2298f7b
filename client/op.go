package client

import (
	"errors"
	"fmt"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
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
	// Ordered: the operation takes effect after every earlier operation
	// of its session that conflicts with it (kvs.Command.Conflicts),
	// even those still in flight, as the commands of a Redis pipeline
	// do. Without it, operations in flight together are concurrent and
	// may take effect in either order across a failover. The session
	// sends a strong one at once, ordered behind its predecessors by the
	// leader and completed on the slow path, when they are all strong and
	// ordered among themselves (and, under CURP-HO, no weak write came
	// after them); else it holds it, and every later operation, until
	// they complete (order.go, docs/DECISIONS.md 45).
	Ordered bool
}

// Validate checks op before it is sent, against the configuration's
// limits l: a strong or weak GET, PUT, DELETE or SCAN, or a strong CAS or
// INCR, that kvs.Command.Validate accepts. A weak CAS or INCR is refused
// with ErrStrongOnly: a weak write may be acknowledged before it is
// ordered, so its state-dependent result would be made up. A replica
// refuses an invalid command too, so a session never sends one.
func (o Op) Validate(l kvs.Limits) error {
	if o.Level != Strong && o.Level != Weak {
		return fmt.Errorf("%w: level %v: strong or weak", kvs.ErrInvalidCommand, o.Level)
	}
	switch o.Command.Op {
	case kvs.OpGet, kvs.OpPut, kvs.OpDelete, kvs.OpScan, kvs.OpCAS, kvs.OpIncr:
	default:
		return fmt.Errorf("%w: %v: a session runs GET, PUT, DELETE, SCAN, CAS and INCR", kvs.ErrInvalidCommand, o.Command.Op)
	}
	if o.Level == Weak && o.Command.StrongOnly() {
		return fmt.Errorf("%w: weak %v: %w", kvs.ErrInvalidCommand, o.Command.Op, ErrStrongOnly)
	}
	return o.Command.Validate(l)
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

// String names the path as the summaries do: "fast", "slow", "weak" or
// "none".
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

// Result is the outcome of a completed operation: kvs.Result's fields, as
// the replica computed them and, for a weak read, merged with the
// session's cache (PROTOCOL.md 4.6), and how the operation completed.
//
// Known says whether the outcome fields are known. They are for every
// strong operation and every weak read; a weak write (PUT, DELETE) is
// acknowledged before it executes (CURP-HT at commit, CURP-HO by the
// bound replica, before it is even ordered), so what it found (a
// DELETE's Found) is not known and never made up: Known is false, and
// only Version and Slot may be set (CURP-HT: its slot).
type Result struct {
	Seq   wire.Seq
	Op    Op
	Known bool
	// Value and Found: a GET's value and whether the key holds one; a
	// CAS's or an INCR's key after it (the new value when it applied).
	Value kvs.Value
	Found bool
	// Version is the slot of the key's last write as the operation saw
	// it or left it (a PUT, a DELETE, an applied CAS or INCR: its own
	// slot; a SCAN: the newest of its items); 0: never written.
	Version kvs.Slot
	// Items are a SCAN's keys that hold a value, in key order, at most
	// its limit; More says keys after the last item hold values too (the
	// replica stopped at the limit or at its byte bound).
	Items []kvs.Item
	More  bool
	// Through, when More is set, is the last key the answer covered if
	// that is past the last item (a weak SCAN merged with the session's
	// deletions); "": the last item.
	Through kvs.Key
	// Applied: a CAS's expectation held and it wrote; an INCR changed
	// the key (Code is ErrNone).
	Applied bool
	// Code is why an INCR changed nothing (not an integer, overflow): an
	// outcome of the command, the same at every replica, not a failure
	// of the session, so it is not in Err.
	Code kvs.ErrCode
	Slot kvs.Slot // the operation's own slot, when known
	Path Path
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
	// ErrStrongOnly: a CAS or an INCR was asked for at the weak level;
	// nothing was sent.
	ErrStrongOnly = errors.New("CAS and INCR run only at the strong level: a weak write is acknowledged before it executes, so its result would be unknown")
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

// String is the operation as the logs show it: its level and command.
func (o Op) String() string {
	return fmt.Sprintf("%s %s", o.Level, o.Command)
}

// Resume is where to scan again from to go on after a SCAN's answer whose
// More is set: just past the last key it covered (Through, or its last
// item).
func (r Result) Resume() kvs.Key {
	last := r.Through
	if last == "" && len(r.Items) > 0 {
		last = r.Items[len(r.Items)-1].Key
	}
	return last + "\x00"
}
