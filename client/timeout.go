package client

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"swiftpaxos/wire"
)

// TimeoutError is the error of an operation whose context ended before it
// completed: what the session was waiting for at that moment, so that a
// tool can say which replica it tried. errors.Is(err, ErrTimeout) holds,
// and so does errors.Is(err, context.DeadlineExceeded) (or Canceled).
// The operation may still execute later, at most once.
type TimeoutError struct {
	Op Op
	// Leader is the replica the session believed to lead: a strong
	// operation completes only with its reply.
	Leader wire.ReplicaID
	// Target is the replica a weak read was last sent to (NoReplica for
	// other operations, or when the operation was not started).
	Target wire.ReplicaID
	// Nearest is the session's nearest replica (CURP-HO: its bound
	// replica), which answers its weak reads (and CURP-HO weak writes).
	Nearest wire.ReplicaID
	// Down lists the replicas the session could not reach.
	Down []wire.ReplicaID
	// Refused lists the replicas that closed the latest connection to
	// them before sending anything: replicas that refuse the client (a
	// client without TLS at a TLS cluster, an identity they do not
	// accept), rather than replicas that are not there. Such a replica
	// is in Down, unless the session has just connected to it again.
	Refused []wire.ReplicaID
	// Attempts is how many times the operation was sent again.
	Attempts int
	// Err is the context's error.
	Err error
}

// Error names the operation, the replica it waited for, how often it was
// sent and the replicas that could not be reached.
func (e *TimeoutError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %v (%v)", e.Op, ErrTimeout, e.Err)
	switch {
	case e.Target != NoReplica:
		fmt.Fprintf(&b, ": asked replica %d", e.Target)
	case e.Op.Level == Strong:
		fmt.Fprintf(&b, ": waiting for the leader, replica %d", e.Leader)
	default:
		fmt.Fprintf(&b, ": leader replica %d, nearest replica %d", e.Leader, e.Nearest)
	}
	if e.Attempts > 0 {
		fmt.Fprintf(&b, ", sent %d times", e.Attempts+1)
	}
	if down := e.Unreachable(); len(down) > 0 {
		fmt.Fprintf(&b, "; unreachable: %v", down)
	}
	if len(e.Refused) > 0 {
		fmt.Fprintf(&b, "; closed the connection before any reply (refused the client: TLS? another protocol?): %v", e.Refused)
	}
	return b.String()
}

// Unreachable are the replicas down that did not refuse the client: no
// connection to them, rather than one they closed (Refused).
func (e *TimeoutError) Unreachable() []wire.ReplicaID {
	return slices.DeleteFunc(slices.Clone(e.Down), func(r wire.ReplicaID) bool { return slices.Contains(e.Refused, r) })
}

// Unwrap makes the error both ErrTimeout and the context's error.
func (e *TimeoutError) Unwrap() []error { return []error{ErrTimeout, e.Err} }

// where asks the loop what the operation whose result goes to reply is
// waiting for (nil reply: one that was not started).
type where struct {
	reply chan Result
	out   chan TimeoutError
}

// timeout builds the error of an operation whose context ended. It asks
// the loop, which owns the core, and falls back to the bare error when
// the loop does not answer promptly (it is stopping, or waits for room
// in Completions).
func (s *Session) timeout(op Op, reply chan Result, cause error) error {
	e := &TimeoutError{Op: op, Leader: NoReplica, Target: NoReplica, Nearest: NoReplica, Err: cause}
	q := where{reply: reply, out: make(chan TimeoutError, 1)}
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case s.where <- q:
	case <-s.ctx.Done():
		return e
	case <-t.C:
		return e
	}
	select {
	case got := <-q.out:
		got.Op, got.Err = op, cause
		return &got
	case <-s.ctx.Done():
	case <-t.C:
	}
	return e
}

// answerWhere is the loop's side of timeout.
func (s *Session) answerWhere(q where) {
	e := TimeoutError{Leader: s.core.Leader(), Target: NoReplica, Nearest: s.core.Nearest(), Down: s.core.Down()}
	for r := range s.o.Config.N() {
		if s.t.refused(wire.ReplicaID(r)) {
			e.Refused = append(e.Refused, wire.ReplicaID(r))
		}
	}
	if q.reply != nil {
		for seq, w := range s.waiters {
			if w != q.reply {
				continue
			}
			if p := s.core.pending[seq]; p != nil {
				e.Attempts = p.attempts
				if p.Op.Level == Weak && !p.Op.Command.IsWrite() {
					e.Target = p.target
				}
			}
			// The waiter stays: its channel holds the late result
			// unread, which must not go to Completions.
			break
		}
	}
	q.out <- e
}
