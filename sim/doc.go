// Package sim runs a whole cluster (n replicas and many client sessions of
// either protocol) in one process over a simulated network, on virtual
// time driven by one seeded random source (ARCHITECTURE.md rule 3).
//
// Every message is encoded with the real codec when sent and decoded when
// delivered. Each ordered pair of endpoints is a connection that delivers
// in FIFO order; different connections reorder freely. Faults are drawn
// from the seed: random delays (including occasional long ones), dropped
// connections (everything in flight on them is lost, the next message
// reconnects) and partitions that isolate a replica and heal. A crashed
// replica's sessions learn of the crash a network delay later, as of a
// process whose host resets its connections; with Faults.HostCrashes only
// a random delay after it is back.
//
// With Options.Durable every replica has a simulated disk (durable.go):
// syncs take random time and cover what was written before they started,
// a crash keeps a random prefix of the unsynced batches, and a crashed
// replica restarts from its disk; Faults.CrashAlls crashes the whole
// cluster at once.
//
// A run is a pure function of its Options: the same seed replays the same
// run exactly. Nothing here is safe for concurrent use; a test owns a run.
package sim
