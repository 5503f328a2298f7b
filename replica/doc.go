// Package replica is the CURP core both protocols share (PROTOCOL.md
// section 3): the log with prefix commitment and ballots, replication
// (batched Accept / AcceptAck / Commit), execution strictly in slot order,
// the witness record store, the client table with de-duplication, leader
// speculation over the log prefix, and weak reads under the read frontier.
//
// # Shape
//
// Core is a deterministic state machine: it changes only in StepClient,
// StepReplica, Tick and Apply, reads time from an injected clock, and
// keeps every output until the driver takes it with Ready (ready.go),
// once per batch of inputs. It spawns no goroutine and is not safe for
// concurrent use. It does no I/O: the package imports no net, os, sync or
// crypto/tls, logs through the narrow Logger it is given, and hands the
// changes to durable state out as storage.Batch values. Two drivers run
// it: the TCP server (replica/server), one Core on one event-loop
// goroutine, and the simulator (sim/), over a simulated network.
//
// Protocols plug in through Policy: curp-ht and curp-ho implement only
// what they change (weak-write paths, the CURP-HO barrier, witness
// reports, the leader's read rule). A protocol that keeps its own index
// over the witness records (CURP-HO: weak records by session) implements
// RecordIndex too and is told of every record kept and dropped; it reads
// the records through Keep, Kept and KeptWrites (witness_api.go).
//
// # Invariants
//
//   - commitIndex is prefix-closed and never decreases; a follower never
//     commits past the slot it knows matches the leader's log.
//   - appliedIndex <= commitIndex; entries are applied one at a time in slot
//     order; an entry whose CmdID was already applied is skipped, so every
//     command executes at most once (PROTOCOL.md 6.7). The skip decision is
//     derived from the log alone (the AckUpTo stamped on entries), so all
//     replicas skip the same entries.
//   - Witness records are keyed and removed by CmdID, never counted.
//   - The leader's speculative result and Ok are computed over the log
//     prefix, before the new entry is appended (PROTOCOL.md 3.5).
//
// # Requests at the leader
//
// propose.go takes a strong request (witness record and ack at a
// follower; slot, speculative result and Ok at the leader); weakchain.go
// appends a session's weak writes in causal order; barrier.go bars a
// request until its session dependency has a slot; sync.go answers the
// slow path's Sync; decide.go flushes stale witness records to the leader
// (WitnessSync) and decides them.
//
// # Durable mode
//
// With Options.Durable (the dataDir key) every Ready carries the batch of
// changes to durable state (storage.Batch: hard state, entries, witness
// records, snapshots) and holds back in AfterSync the acknowledgements
// that depend on it; the driver writes the batches, sends AfterSync once
// they are on disk and calls Synced, and a leader counts its own entries
// toward commits only then (durable.go). A replica restarts from what it
// wrote (restore.go); a brand-new durable cluster serves once a majority
// have their membership on disk (founding.go). The server writes the
// batches with one fsync per drained queue (replica/server,
// replica/storage/disk). In memory mode none of this runs.
//
// # Failures
//
// election.go elects leaders (randomised timeouts, the up-to-date-log vote
// rule); recovery.go collects witness records from a majority, replays
// what PROTOCOL.md 6.4 selects (with the predecessor rule of
// docs/DECISIONS.md 11), appends the view's no-op and announces the view.
// Ballot 0's leader is configured (InitialLeader).
//
// # Files
//
// Each file holds one rule of PROTOCOL.md and the state it owns; a
// concern with state of its own is a type with its own methods (the log,
// the witness, the key index, the session table), and Core's methods in a
// file are that rule's steps.
//
//   - core.go, options.go, ready.go, policy.go, logger.go: the Core, what
//     it is given, what it hands out, where protocols plug in.
//   - log.go (raftLog: entries, ballots, prefix commitment, 6.3),
//     replication.go (Accept, AcceptAck, Commit; 3.2), apply.go (in-order
//     execution and at-most-once, 3.3, 6.7).
//   - witness.go (witness: the record store and its conflicts, 3.4),
//     witness_api.go (records for the policies), decide.go (stale records
//     flushed and decided, 3.4).
//   - keyindex.go (keyIndex: which uncommitted entries touch a key or a
//     range, for the speculative result, 3.5), propose.go (a strong
//     request at a follower and at the leader, 3.4-3.5), sync.go (the slow
//     path's Sync, 3.6), weakchain.go and barrier.go (a session's weak
//     writes in causal order, and a request barred until its dependency
//     has a slot, 4.5, 5.4), reads.go (weak reads under the frontier,
//     4.5, 6.5), leaderread.go and lease.go (strong reads at the leader
//     alone, after a round of its followers or under its lease, 3.6 item
//     8).
//   - sessions.go (sessionTable: de-duplication and results, 3.7),
//     expiry.go (the end of an idle session, 6.10), admission.go (what is
//     admitted from clients and leaders, 1.2).
//   - election.go (election: pre-votes and votes, 6.1-6.2), lives.go
//     (which life of a replica a grant came from), recovery.go
//     (a new view, 6.3-6.4), snapshot.go and restore.go (snapshots and a
//     restart from disk, 6.10), durable.go (journal: durable mode),
//     join.go, founding.go and early.go (joining, founding a cluster, and
//     the requests held until then), describe.go (diagnostics).
package replica
