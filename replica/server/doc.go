// Package server is the replica process around the deterministic core of
// package replica: everything that touches a socket, a disk, the clock or
// another goroutine. Serve runs one replica until its context ends.
//
// # Shape
//
// One event-loop goroutine alone owns the replica.Core (server.go): it
// steps every input already queued (up to 256), takes the core's outputs
// once with Ready and hands them to the batchers without waiting
// (server_inputs.go for what arrives, conn_set.go and conn_refuse.go for
// which connections stay). The replica accepts on its TCP port and, beside
// a RESP front-end, a Unix socket (listen.go). One reader goroutine per
// incoming connection (conn.go, conn_sessions.go for the client sessions
// that share one)
// decodes frames and posts them to the loop in arrival order; one dialer
// per peer keeps the outgoing connection up (dial.go); idle.go closes
// connections that stopped talking. In durable mode a persister writes
// each Ready's storage.Batch and releases the acknowledgements that waited
// for it (server_persist.go, replica/storage/disk).
//
// The loop also answers status requests from the core's read-only
// accessors (status.go), publishes what a metrics scrape shows without
// sharing the core (metrics.go, metrics_state.go), writes the applied log
// of a checked run (appliedlog.go), and hands the core a zap logger behind
// its narrow Logger (corelog.go). The server calls on the core only the
// driver's surface the simulator uses too, plus a few inputs and
// accessors only a TCP driver has (driver_test.go).
package server
