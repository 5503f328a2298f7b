// Package resp is the Redis-protocol (RESP2) front-end a replica serves
// beside its own port (respPort in the configuration), so that redis-cli,
// redis-benchmark, go-redis and go-ycsb reach the store unchanged.
//
// It is a client of the protocols, not part of the core: each RESP
// connection is one session of the configured protocol (client.Session),
// run inside the replica process with the replica beside it as its
// nearest, and all the sessions share one connection to each replica
// (client.Transport). A connection is therefore a causal session:
// read-your-writes across its commands, at either level. Its pipelined
// commands enter the session's window in command order, each operation
// ordered after the connection's earlier ones that conflict with it
// (client.Op.Ordered), and the replies leave in command order, whatever
// order the operations complete in.
//
// The files: parse.go reads requests (multibulk and inline) within
// Limits; reply.go writes RESP2 replies; conn.go is a connection's loop
// (jobs, the window, the reply order, the reply timeout), conn_order.go
// how its operations enter the session; job.go a
// command's steps; commands.go the table and dispatch, and cmd_*.go the
// commands by group; rmw.go the compare-and-set loop of the commands
// whose effect depends on the key's state; cursors.go and match.go
// SCAN's cursors and patterns; metrics.go the /metrics series; server.go
// the listener, TLS, the connection limit and the sessions.
//
// Thread-safety: a Server is safe for concurrent use; a connection's
// state belongs to its loop goroutine.
package resp
