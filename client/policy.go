package client

import (
	"time"

	"swiftpaxos/wire"
)

// Policy is what a protocol adds to the shared session core. It is called
// from the session's goroutine only.
type Policy interface {
	// SendWeakWrite sends a weak write (CURP-HT: to the leader; CURP-HO:
	// to every replica, bound first). It is also used for retries.
	SendWeakWrite(s *Core, p *Pending)
	// Handle handles a protocol-specific reply and reports whether it
	// knew the message.
	Handle(s *Core, from wire.ReplicaID, m wire.Message) bool
	// StrongWeakDep is the WeakDep of a new strong proposal (CURP-HO).
	StrongWeakDep(s *Core) wire.Seq
	// FastPathAck reports whether a witness ack, already checked for
	// ballot and Ok, also meets the protocol's own fast-path conditions.
	FastPathAck(s *Core, p *Pending, leader *wire.LeaderReply, ack *wire.RecordAck) bool
	// StrongCompleted is called when a strong operation completes, with
	// its result (Path says fast or slow).
	StrongCompleted(s *Core, p *Pending, r Result)
	// Defer reports whether p must not be sent yet (CURP-HO: writes wait
	// while the session is tainted, PROTOCOL.md 5.7); the policy sends it
	// later with Core.Dispatch.
	Defer(s *Core, p *Pending) bool
	// Tick runs the policy's own timers; retry is the session's retry
	// period.
	Tick(s *Core, retry time.Duration)
	// OldestUnconfirmed is the Seq of the session's oldest write that
	// completed but is not known durable (0: none). AckUpTo stays below
	// it, so that replicas never ignore its re-sends.
	OldestUnconfirmed() wire.Seq
	// Abandon drops everything the policy holds for the session, which
	// has expired (Core.Expire), and returns the writes that had
	// completed but will never be durable.
	Abandon(s *Core) (lost []wire.Seq)
}
