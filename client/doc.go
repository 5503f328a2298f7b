// Package client is the client side of swiftpaxos: the session protocol
// core shared by both protocols, the TCP Session built on it, and the
// benchmark driver.
//
// Core (core.go) is a deterministic state machine for one session: Invoke
// starts an operation, Step handles a reply, Tick re-sends operations
// that waited too long, always with the same CmdID. All reply state is
// per operation. It implements the strong path of PROTOCOL.md 3.6 (fast
// path: the leader's Ok plus Q-1 witness acks of the same ballot; slow
// path: SyncReply), weak reads with the cache merge and the read frontier
// (4.6), and reports per operation whether it completed on the fast or the
// slow path. Protocols plug in through Policy (where weak writes go, extra
// fast-path conditions). Its files: core.go (state, options, Step),
// ops.go (an operation's lifecycle and retries), strong.go (the fast-path
// tally and the slow path), weakread.go, cache.go (cache, frontier, parked
// reads), failover.go, end.go (expiry and the end of a session) and
// describe.go (diagnostics).
//
// Session (session.go) runs a Core on one goroutine with one connection
// per replica. Its methods are safe for concurrent use. Operations that
// cannot complete end with an error (ErrTimeout, ErrUnreachable,
// ErrClosed); a result is never made up.
package client
