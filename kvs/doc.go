// Package kvs is the replicated state machine of swiftpaxos: the commands
// (GET, PUT, DELETE, SCAN, CAS, INCR, NOOP; PROTOCOL.md section 1.2), the
// conflict relation between them (section 1.3) and a versioned key-value
// store that remembers, for every key, its value, whether it holds one, and
// the slot of its last write (the keyVersion of section 3.1).
//
// Keys are byte strings ([Key] is a Go string, compared bytewise); values
// are byte strings, and an empty value is a value: absence is told by
// Found, never by length. A DELETE keeps the key, absent, with the slot of
// the DELETE as its version, so that versions, and a CAS on a version, mean
// the same at every replica whatever snapshots it installed.
//
// # What it owns
//
//   - [Command] and its helpers: [Command.Validate] is the admission check a
//     replica and a client run on commands (against the configured
//     [Limits]); [Command.Conflicts] is the only conflict relation of the
//     system, used by witnesses (section 3.4) and by the leader's Ok rule
//     (section 3.5). A SCAN covers its whole range [Key, End), not only the
//     keys it returns.
//   - [Store]: the applied state. [Store.Apply] executes committed log
//     entries in slot order (section 3.3). [Store.Eval] computes what a
//     command does without doing it, against the store shadowed by an
//     [Overlay]: the leader evaluates the commands of its log prefix that
//     way (section 3.5), and Apply is Eval followed by its write, so the
//     two can never disagree on a CAS or an INCR. [Store.Read] and
//     [Store.ReadOver] evaluate reads only (weak reads, section 4.6).
//
// The log, de-duplication (clientTable) and the leader's lastWrite overlay
// live in package replica; this package knows nothing about sessions or
// ballots.
//
// # Invariants
//
//   - Determinism: two stores that receive the same sequence of Apply calls
//     reach the same state and return the same results. Nothing in this
//     package depends on map iteration order, time or randomness; SCAN walks
//     its key range in key order.
//   - Slots passed to Apply are strictly increasing. Gaps are allowed (the
//     replica does not re-apply a de-duplicated entry), going backwards or
//     repeating a slot is a bug in the caller and panics.
//   - A key's version is the slot of the last PUT, DELETE, or CAS or INCR
//     that wrote it, 0 if none; a CAS that did not apply and an INCR that
//     failed write nothing.
//   - Apply is total: it never fails on a command that did not pass
//     Validate (see [Store.Eval]), so a bad entry that slipped into the log
//     yields the same outcome on every replica instead of a crash.
//   - Non-conflicting commands commute (section 1.3): applied in either order
//     they leave the same values and return the same results, with versions
//     equal once each command keeps its own slot.
//
// # Snapshots
//
// The store is an ordered map, a B-tree (github.com/tidwall/btree) whose
// nodes are copied on write. [Store.Snapshot] freezes the state in O(1): the
// snapshot and the store share every node, and the store copies a node
// before it next writes to it. A [Snapshot] is immutable and may be read by
// any goroutine; [Snapshot.Chunk] lists its items in key order, for a
// deterministic state transfer, and [Restore] rebuilds a store from them.
//
// # Memory
//
// Apply copies every value it stores, so the store never shares memory
// with the command it was given and the caller may reuse or overwrite its
// buffers. That costs one allocation per write. Values returned in a
// [Result] or by [Store.Get] share memory with the store and must be
// treated as read-only; their capacity equals their length, so appending
// to them never writes into the store. A SCAN's Items slice is freshly
// allocated; the values in it share memory with the store.
//
// # Concurrency
//
// A Store is not safe for concurrent use. It is owned by the one goroutine
// that runs a replica's state machine; other goroutines reach it through
// that owner. Command values are plain data and may be shared read-only.
package kvs
