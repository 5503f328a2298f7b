// Package kvs is the replicated state machine of swiftpaxos: the commands
// (GET, PUT, SCAN, NOOP), the conflict relation between them (PROTOCOL.md
// section 1.3) and a versioned key-value store that remembers, for every key,
// its value and the slot of the last PUT applied to it (the keyVersion of
// PROTOCOL.md section 3.1).
//
// # What it owns
//
//   - [Command] and its helpers: [Command.Validate] is the admission check a
//     replica runs on commands arriving from the network; [Command.Conflicts]
//     is the only conflict relation of the system, used by witnesses (section
//     3.4) and by the leader's Ok rule (section 3.5).
//   - [Store]: the applied state. [Store.Apply] executes committed log entries
//     in slot order (section 3.3); [Store.Read] and [Store.ReadOver] evaluate
//     reads without applying them (weak reads, section 4.6, and the leader's
//     speculative result, section 3.5).
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
//   - A key's version is the slot of the last PUT applied to it, 0 if none.
//     A PUT of the empty value makes the key absent (NIL) but still sets its
//     version: readers compare versions of writes, not of values (section 4.6).
//   - Apply is total: it never fails on a command that did not pass
//     Validate. Unknown operations apply as NOOP and a SCAN's range is clamped
//     as described at [Command.KeyRange], so a bad entry that slipped into the
//     log yields the same outcome on every replica instead of a crash.
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
// Apply copies the value of a PUT, so the store never shares memory with
// the command it was given and the caller may reuse or overwrite that
// value. (The wire codec already copies each value out of the frame it
// decodes; the store does not rely on it.) That costs one allocation per
// non-empty PUT. Values returned in a [Result] or by
// [Store.Get] for single keys share memory with the store and must be treated
// as read-only; their capacity equals their length, so appending to them
// never writes into the store. A SCAN's Items slice is freshly allocated; the
// values in it share memory with the store like single-key values.
//
// # Concurrency
//
// A Store is not safe for concurrent use. It is owned by the one goroutine
// that runs a replica's state machine; other goroutines reach it through
// that owner. Command values are plain data and may be shared read-only.
package kvs
