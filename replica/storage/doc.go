// Package storage is what a replica keeps durable in durable mode (the
// dataDir key), as values: its hard state (ballot, vote, membership, the
// pre-vote ballot it granted, the lives it heard of), its log entries by
// slot, its witness records of writes (strong ones and CURP-HO's
// weak-write records; a read's record is never written down,
// docs/DECISIONS.md 30), and its latest snapshot (PROTOCOL.md 3.1, 3.4,
// 5.3, 6.10).
//
// # Shape
//
// The core never touches a disk. Each Ready of a durable core carries a
// Batch, what changed since the previous one; a driver applies the batches
// in order and tells the core when they are durable. Two drivers do:
// replica/storage/disk writes them to pebble and a snapshot file for the
// server, and Mem applies them to memory with the same outcome for the
// simulator, which models a crash with it (unsynced batches lost, a torn
// last one cut). State is what a replica restarts from; Assemble builds
// it from what either kept, with the same rules.
//
// This package does no I/O, so the core that builds batches imports
// neither pebble nor os. Mem is not safe for concurrent use.
package storage
