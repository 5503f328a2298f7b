package storage

import (
	"slices"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// HardState is what a replica must not forget about elections: its ballot
// and its vote in that ballot (a replica that forgot its vote could vote
// twice in one ballot), whether it is a member (docs/DECISIONS.md 21), the
// highest ballot it granted a pre-vote in, which it tells a replica that
// rejoins without its state (docs/DECISIONS.md 50), and the latest
// incarnation it heard of by replica, its own included, which its votes
// tell candidates (docs/DECISIONS.md 51, 52).
type HardState struct {
	Ballot     wire.Ballot
	Vote       wire.ReplicaID
	Member     bool
	PreGranted wire.Ballot
	// Lives has one entry per replica, or none (written before lives
	// were kept, or never heard of).
	Lives []uint64
}

// Equal reports whether h and o are the same hard state.
func (h HardState) Equal(o HardState) bool {
	return h.Ballot == o.Ballot && h.Vote == o.Vote && h.Member == o.Member && h.PreGranted == o.PreGranted &&
		slices.Equal(h.Lives, o.Lives)
}

// Blank reports whether h says nothing but lives: no ballot, vote,
// membership or pre-vote. A replica whose disk holds no more than that
// starts as one that never ran, but for the lives it heard of.
func (h HardState) Blank() bool {
	return h.Ballot == 0 && h.Vote == wire.NoReplica && !h.Member && h.PreGranted == 0
}

// RecordOp keeps (Remove false) or removes a witness record; a removal
// reads only Record.Cmd.
type RecordOp struct {
	Remove bool
	Record wire.Record
}

// Snapshot is a replica's applied state at one slot (PROTOCOL.md 6.10).
type Snapshot struct {
	LastSlot   kvs.Slot
	LastBallot wire.Ballot
	// Store is frozen: the writer may read it while the store goes on.
	Store    *kvs.Snapshot
	Sessions []wire.SessionState
}

// Batch is what changed in a replica's durable state since the previous
// batch; a durable core hands out one with each Ready (replica.Ready.Persist).
type Batch struct {
	// Seq numbers the batches of one core from 1; the driver reports it
	// back (replica.Core.Synced) once the batch and every earlier one are
	// on disk.
	Seq uint64
	// Hard, when set, is the new hard state.
	Hard *HardState
	// Entries are log entries to write at their slots, contiguous and in
	// slot order; Entries[i] replaces what the slot held.
	Entries []wire.Entry
	// Truncated says the log now ends at LogEnd: entries above it go.
	Truncated bool
	LogEnd    kvs.Slot
	// Records are witness records kept and removed, in order.
	Records []RecordOp
	// Snapshot, when set, is the latest snapshot. Installed says it came
	// from the leader and replaced the log up to its slot: it must be
	// durable with this batch. A snapshot the replica took itself may be
	// written later (the log keeps its slots until then).
	Snapshot  *Snapshot
	Installed bool
}

// Empty reports whether b changes nothing.
func (b *Batch) Empty() bool {
	return b.Hard == nil && len(b.Entries) == 0 && !b.Truncated && len(b.Records) == 0 && b.Snapshot == nil
}

// State is what a replica finds on disk when it starts.
type State struct {
	Hard HardState
	// Snapshot is nil when none was written.
	Snapshot *Snapshot
	// Entries follow the snapshot's slot (slot 1 without one),
	// contiguous.
	Entries []wire.Entry
	// Records are the witness records in arrival order.
	Records []wire.Record
	// Cut is how many log entries above a gap were dropped.
	Cut int
}

// Empty reports whether there is nothing to restart from: nothing was
// stored but, perhaps, the lives the replica heard of (HardState.Blank),
// which a replica that starts empty keeps all the same.
func (s *State) Empty() bool {
	return s.Hard.Blank() && s.Snapshot == nil && len(s.Entries) == 0 && len(s.Records) == 0
}
