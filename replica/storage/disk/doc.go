// Package disk keeps a replica's durable state on disk (the dataDir
// key): the storage.Batch values a durable core produces, written into
// pebble and a snapshot file, and read back as a storage.State at start.
//
// # Shape
//
// The server's loop writes each batch into pebble's log and memtable
// (Store.Start) without waiting for its fsync (a batch with a received
// snapshot, and those after it, go through a persister goroutine instead)
// and goes on while pebble syncs the log: whatever reaches the log during
// an fsync goes with the next one (group commit). The log's files are
// written with zeros ahead of pebble's writes (walfile.go), so that an
// fsync only writes data. A waiter goroutine waits for each write's fsync
// in order (Pending.Wait) and only then lets the loop send the
// acknowledgements those batches held back (Ready.AfterSync).
//
// # Files
//
// In a replica's directory: db/, a pebble database (its write-ahead log
// checksums each batch and cuts a torn tail at open; it also keeps the
// identity of the cluster the store belongs to, Cluster), and snapshot, the
// latest snapshot, written to snapshot.tmp a megabyte of writeback at a
// time on Linux (paced.go: a log fsync does not queue behind the whole
// file), synced, renamed and the directory synced, with a CRC-32C over
// the whole file (snapfile.go). A snapshot that fails its checksum or
// does not decode is an error that names the file: a replica never starts
// empty over a damaged one.
//
// # Invariants
//
//   - Batches are applied in order and each one whole or not at all, so
//     a batch that is durable implies every earlier one is.
//   - The log on disk is contiguous from the snapshot's slot + 1; entries
//     above a gap (a crash between a received snapshot and its suffix)
//     are removed when the store opens, and entries at or below the
//     snapshot's slot are removed once the snapshot is durable.
//   - A snapshot file is replaced only by a snapshot of a later slot.
//
// Store is safe for one writer (Write, or Start with one waiter calling
// the Pendings' Wait in order) plus the snapshot writer (SaveSnapshot) at
// once.
package disk
