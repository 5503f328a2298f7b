package replica

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/storage"
	"swiftpaxos/wire"
)

// Options configures a Core. Time and randomness are injected so that the
// core is deterministic (ARCHITECTURE.md rule 2).
type Options struct {
	ID wire.ReplicaID
	N  int
	// Policy is the protocol's; one per Core, as it may keep state of
	// its own (CURP-HO's batched commits and index of weak records).
	Policy Policy
	Log    Logger
	// Now returns the current instant in nanoseconds on a monotonic clock.
	Now  func() int64
	Rand *rand.Rand
	// Incarnation numbers this life of the replica: it must be higher
	// than that of every earlier life of the same replica (the server
	// takes the wall clock at start, in nanoseconds; the simulator counts
	// lives). A replica that hears of a higher life of its own takes a
	// higher number (lives.go, docs/DECISIONS.md 51).
	Incarnation uint64

	// InitialLeader leads ballot 0 (PROTOCOL.md 1.4).
	InitialLeader wire.ReplicaID
	// StartAsMember skips the start-up Join (join.go): the replica is a
	// member of a brand-new cluster at once. Tests that step one core
	// use it.
	StartAsMember bool
	// Limits bound the keys and values of the commands the replica admits
	// (maxKeyBytes, maxValueBytes); zero means kvs.DefaultLimits. Every
	// replica and client of a cluster must agree.
	Limits kvs.Limits
	// ClusterNew says this is the replica's first start in this cluster
	// (-cluster new): it was never a member, so it acknowledged nothing
	// that a lost state could take back. A majority of such replicas,
	// fresh, may found the cluster without the others (join.go,
	// docs/DECISIONS.md 37).
	ClusterNew bool

	HeartbeatInterval  time.Duration
	ElectionTimeoutMin time.Duration
	ElectionTimeoutMax time.Duration
	// WitnessSyncAge is the age after which a witness hands a record that
	// has not committed to the leader (PROTOCOL.md 3.4 rule 4).
	WitnessSyncAge time.Duration
	// RefuseAfter is how long a flushed witness record may wait for its
	// session's missing predecessor (a weak write's CausalDep, a CURP-HO
	// strong operation's WeakDep) before the leader refuses it for good
	// (PROTOCOL.md 3.4 rule 6, docs/DECISIONS.md 15). Zero means ten
	// WitnessSyncAge periods.
	RefuseAfter time.Duration
	// SessionIdle is how long the leader waits without hearing from a
	// session before it ends the session through the log, releasing its
	// row at every replica (PROTOCOL.md 6.10, docs/DECISIONS.md 23).
	// Zero means five minutes.
	SessionIdle time.Duration
	// ReadWait bounds how long a weak read waits for the read frontier.
	ReadWait time.Duration
	// LeaseReads lets the leader answer leader reads at once while it
	// holds a lease, and makes every replica keep the promise the lease
	// rests on (lease.go, docs/DECISIONS.md 55). Every replica of a
	// cluster must agree.
	LeaseReads bool
	// BarrierWait bounds how long the leader bars a request whose causal
	// predecessor has no slot yet (PROTOCOL.md 5.4).
	BarrierWait time.Duration
	// MaxBatch caps the entries of one Accept.
	MaxBatch int
	// SnapshotEvery is how many applied entries separate two snapshots;
	// LogRetain how many entries a replica keeps behind its snapshot for
	// lagging peers (PROTOCOL.md 6.10). A follower further behind receives
	// the snapshot instead.
	SnapshotEvery int
	LogRetain     int
	// Installed, when set, is told that the replica installed a snapshot
	// ending at slot: its applied log goes on after that slot (check mode).
	Installed func(slot kvs.Slot)
	// DeferApply leaves execution to the driver, which calls Apply on its
	// own schedule, as a separate apply goroutine would. "Committed but
	// not yet applied" then lasts; the simulator uses it to inject
	// execution lag. Without it, Step and Tick apply everything committed.
	DeferApply bool

	// Executed, when set, is called for every entry the replica executes,
	// in slot order (entries skipped as duplicates and no-ops excluded).
	// Check mode dumps the applied log through it.
	Executed func(e *wire.Entry, res kvs.Result)
	// ReadAnswered, when set, is called for every weak read the replica
	// answers: those are served outside the log, so Executed never sees
	// them (the metrics count them).
	ReadAnswered func(cmd *kvs.Command)

	// Durable makes the core hand out, with each Ready, what must reach
	// the disk and hold back the acknowledgements that depend on it
	// (durable.go). Restore, when not empty, is the state a durable
	// replica found on disk: it comes back a member with it at once
	// (restore.go). The lives it holds are kept even when it is empty
	// (lives.go).
	Durable bool
	Restore *storage.State

	// Mutation deliberately breaks a protocol rule. It exists only so that
	// tests can prove the checker catches the breakage; never set it
	// outside tests.
	Mutation Mutation
}

// Mutation lists the rules a test may break on purpose.
type Mutation struct {
	// SpeculateFromStore computes the leader's speculative result from
	// the applied store instead of the log prefix (the reference's bug,
	// PROTOCOL.md 3.5).
	SpeculateFromStore bool
	// AlwaysOk makes the leader answer Ok = TRUE whatever the state of
	// earlier conflicting entries (PROTOCOL.md 3.5).
	AlwaysOk bool
	// WitnessAcceptsAll makes witnesses accept conflicting strong
	// requests (PROTOCOL.md 3.4 rule 1).
	WitnessAcceptsAll bool
	// WitnessIgnoresScanRange makes a witness treat a SCAN as a command on
	// its start key alone: a SCAN is shown only the records of that key,
	// and a single-key command never the SCAN records that cover it
	// (PROTOCOL.md 1.3: a SCAN conflicts over its whole range).
	WitnessIgnoresScanRange bool
	// AcceptWeakRMW makes a replica admit a weak CAS or INCR, as a
	// request and as a log entry, instead of refusing it (PROTOCOL.md
	// 1.2): a hostile client's weak CAS is then answered as any weak write
	// is, before it executes, with an outcome nobody computed.
	AcceptWeakRMW bool
	// NoWitnessReplay makes a new leader skip the witness replay of
	// PROTOCOL.md 6.4 (the reference's CURP-HT recovery).
	NoWitnessReplay bool
	// VoteByCommitIndex judges a candidate's log by its commit index
	// only (the reference's vote rule, PROTOCOL.md 6.2).
	VoteByCommitIndex bool
	// EarlyMember makes a restarted replica a member, voting and
	// witnessing, as soon as a member answers its Join, before it has
	// caught up (the leader-completeness hole of PROTOCOL.md 6.10).
	EarlyMember bool
	// JoinIgnoresPreVotes makes a restarted replica ignore the pre-vote
	// ballots the members report in answer to its Join
	// (docs/DECISIONS.md 50, third rule).
	JoinIgnoresPreVotes bool
	// ElectionIgnoresLives makes a candidate count the pre-votes and
	// votes of a replica's earlier life after it heard of a later one
	// (docs/DECISIONS.md 51).
	ElectionIgnoresLives bool
	// RestoreForgetsLives makes a durable replica restarted from its disk
	// forget the lives it heard of, and answer a Join before they are on
	// disk (docs/DECISIONS.md 52).
	RestoreForgetsLives bool
	// WitnessOksOnEmptyLog makes a durable witness acknowledge strong
	// requests Ok while no entry of its log is on disk, so that a
	// member that reports nothing appended may have vouched for a fast
	// path (docs/DECISIONS.md 53).
	WitnessOksOnEmptyLog bool
	// AcceptsFromEndedLives makes a follower take the entries of an
	// Accept sent by a life of the leader that it knows has ended
	// (docs/DECISIONS.md 53).
	AcceptsFromEndedLives bool
	// EarlyRecordAck makes a durable witness acknowledge a record before
	// the record is on disk (the hole durable mode closes).
	EarlyRecordAck bool
	// EarlyAcceptAck makes a durable follower acknowledge entries before
	// they are on disk.
	EarlyAcceptAck bool
	// UnsyncedSelfCount makes a durable leader count its own entries
	// toward a commit before they are on disk.
	UnsyncedSelfCount bool
	// UnconfirmedLeaderRead makes the leader answer a leader read at once,
	// without the leadership round that proves no newer leader exists
	// (docs/DECISIONS.md 46).
	UnconfirmedLeaderRead bool
	// LeaderReadIgnoresDependency makes the leader answer a leader read
	// whatever the state of the command its WeakDep names.
	LeaderReadIgnoresDependency bool
	// LeaseWithoutPromise makes replicas grant pre-votes and votes, and
	// stand, while they promise a leader of lease reads not to
	// (docs/DECISIONS.md 55).
	LeaseWithoutPromise bool
	// NoCheckQuorum keeps a leader that hears from no majority leading
	// (checkquorum.go): the cluster then stalls while a leader's links
	// from the others are broken one way.
	NoCheckQuorum bool
}

// withDefaults fills zero durations with the values of PROTOCOL.md 7.2.
func (o Options) withDefaults() Options {
	if o.HeartbeatInterval == 0 {
		o.HeartbeatInterval = 50 * time.Millisecond
	}
	if o.ElectionTimeoutMin == 0 {
		o.ElectionTimeoutMin = 500 * time.Millisecond
	}
	if o.ElectionTimeoutMax == 0 {
		o.ElectionTimeoutMax = 1500 * time.Millisecond
	}
	if o.WitnessSyncAge == 0 {
		o.WitnessSyncAge = 2 * time.Second
	}
	if o.RefuseAfter == 0 {
		o.RefuseAfter = 10 * o.WitnessSyncAge
	}
	if o.SessionIdle == 0 {
		o.SessionIdle = 5 * time.Minute
	}
	if o.ReadWait == 0 {
		o.ReadWait = time.Second
	}
	if o.BarrierWait == 0 {
		o.BarrierWait = time.Second
	}
	if o.Limits == (kvs.Limits{}) {
		o.Limits = kvs.DefaultLimits
	}
	if o.MaxBatch == 0 {
		o.MaxBatch = 256
	}
	if o.SnapshotEvery == 0 {
		o.SnapshotEvery = 10_000
	}
	if o.LogRetain == 0 {
		o.LogRetain = 10_000
	}
	if o.Log == nil {
		o.Log = nopLogger{}
	}
	return o
}

func (o Options) validate() error {
	var errs []error
	if o.N < 3 || o.N%2 == 0 {
		errs = append(errs, fmt.Errorf("replica count %d: must be odd and at least 3", o.N))
	}
	if o.ID < 0 || int(o.ID) >= o.N {
		errs = append(errs, fmt.Errorf("replica id %d out of range 0..%d", o.ID, o.N-1))
	}
	if o.InitialLeader < 0 || int(o.InitialLeader) >= o.N {
		errs = append(errs, fmt.Errorf("initial leader %d out of range 0..%d", o.InitialLeader, o.N-1))
	}
	if o.Policy == nil {
		errs = append(errs, errors.New("no protocol policy"))
	}
	if o.Now == nil {
		errs = append(errs, errors.New("no clock"))
	}
	if o.Rand == nil {
		errs = append(errs, errors.New("no random source"))
	}
	if !validIncarnation(o.Incarnation) {
		errs = append(errs, fmt.Errorf("incarnation %d: must be 1 to %d", o.Incarnation, uint64(maxIncarnation)))
	}
	if o.SnapshotEvery < 1 || o.LogRetain < 1 {
		errs = append(errs, fmt.Errorf("snapshot every %d entries, retain %d: both must be positive", o.SnapshotEvery, o.LogRetain))
	}
	if o.SessionIdle < 0 {
		errs = append(errs, fmt.Errorf("session idle time %v: must be positive", o.SessionIdle))
	}
	if o.Restore != nil && !o.Durable {
		errs = append(errs, errors.New("state to restore, but not in durable mode"))
	}
	if o.Restore != nil {
		if ls := o.Restore.Hard.Lives; len(ls) != 0 && len(ls) != o.N || slices.ContainsFunc(ls, func(x uint64) bool { return x > maxIncarnation }) {
			errs = append(errs, fmt.Errorf("state to restore has lives %v: want none or %d, each at most %d", ls, o.N, uint64(maxIncarnation)))
		}
	}
	if o.ElectionTimeoutMin > o.ElectionTimeoutMax {
		errs = append(errs, fmt.Errorf("election timeout %v-%v: min above max", o.ElectionTimeoutMin, o.ElectionTimeoutMax))
	}
	return errors.Join(errs...)
}
