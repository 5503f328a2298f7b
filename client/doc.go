// Package client is the Go client of a swiftpaxos cluster: sessions that
// get, put, delete and scan keys, each operation at the consistency level
// the caller chooses (strong: linearizable; weak: causal), and
// compare-and-swap and increment them (strong only). It also holds the
// session protocol core shared by both protocols. The benchmark driver,
// its workloads and its summaries are client/bench, above this package:
// a program that imports client links none of them.
//
// # Getting started
//
// A program loads the cluster's configuration file (the one its replicas
// run with), opens a session with the policy of the configuration's
// protocol, and runs operations on it:
//
//	cfg, err := config.Load("multi-client.conf")
//	if err != nil { ... }
//	s, err := client.Dial(ctx, client.SessionOptions{
//		Config: cfg,
//		Policy: curpht.NewClientPolicy(), // curpho.NewClientPolicy() for protocol: curpho
//	})
//	if err != nil { ... } // errors.Is(err, client.ErrUnreachable): no replica answered
//	defer s.Close()
//
//	_, err = s.Put(ctx, []byte("k42"), []byte("hello"), client.Strong)
//	g, err := s.Get(ctx, []byte("k42"), client.Weak)           // g.Value "hello": the session's own write
//	sc, err := s.Scan(ctx, []byte("k"), nil, 10, client.Weak)  // up to 10 keys from "k" on; sc.More
//	d, err := s.Delete(ctx, []byte("k42"), client.Strong)      // d.Existed
//	n, err := s.Incr(ctx, []byte("hits"), 1)                    // the new count
//	c, err := s.CompareAndSwap(ctx, []byte("lock"), client.ExpectAbsent(), client.SetValue([]byte("me")))
//
// Keys are byte strings of 1 to maxKeyBytes bytes, ordered bytewise, and
// values byte strings of 0 to maxValueBytes (the configuration's limits,
// kvs.Limits; checked before anything is sent). Absent and empty differ:
// Put of an empty value stores it, and Get says Found. See
// docs/DECISIONS.md 38 and 39.
//
// SessionOptions.Alias is optional. Without it the session is an ad-hoc
// client, which the replicas accept like any other (with TLS on, it
// presents the configuration's generic client certificate, see
// config/certs); with the alias of a client of the configuration it takes
// that client's "-- Proxy --" binding and emulated latency.
//
// # Operations
//
// Get, Put, Delete, Scan, CompareAndSwap and Incr wait for their result and
// return it typed; their arguments are copied and their results are the
// caller's. What each promises:
//
//   - Get: the value and whether the key holds one, and its version (the
//     slot of its last write, a DELETE's when absent; 0: never written).
//   - Put: its slot; 0 for a CURP-HO weak PUT acknowledged before it is
//     ordered (its slot when the leader's commit reached the session
//     first).
//   - Delete: whether the key existed, but only when Known: a weak DELETE
//     is acknowledged before it executes, so Known is false and Existed
//     means nothing; nothing is made up.
//   - Scan(start, end, limit): the keys of [start, end) that hold a value,
//     in key order, at most limit (1..kvs.MaxScanLimit); an empty start is
//     the first key, an empty end past the last. More says keys after the
//     last item hold values too: the limit, or the replica's bound on a
//     reply's bytes (kvs.MaxScanBytes), stopped it, so a reply always fits
//     in a frame; go on from the last key followed by a zero byte.
//   - CompareAndSwap(key, expect, update): expect is ExpectAbsent,
//     ExpectValue(v) or ExpectVersion(n); update is SetValue(v) or
//     DeleteKey() (the zero Update writes the empty value). Applied, and
//     the key's state after it either way.
//   - Incr(key, delta): the new value of the decimal 64-bit integer the
//     key holds (absent counts as 0); kvs.ErrValueNotInteger and
//     kvs.ErrIncrOverflow when nothing changed.
//
// CompareAndSwap and Incr are strong only: an Op of either at the weak
// level is refused with ErrStrongOnly before it is sent.
//
// Do runs any Op (a level and a kvs.Command) and returns the whole
// Result: the kvs outcome (value, found, version, SCAN items and More,
// Applied, an INCR's Code), Known, the path (fast or slow for a strong
// operation) and the replica that answered. Submit starts an Op
// without waiting; its Result arrives on Completions, in completion order,
// and the caller keeps at most SessionOptions.Window operations in flight.
// A Session's methods are safe for concurrent use; operations issued
// concurrently (from several goroutines, or in flight together through
// Submit) are concurrent operations of one session, which matters for
// the order below.
//
// # What a session guarantees
//
// Every operation of a session is numbered and sent again with the same
// number until a reply comes, and the replicas execute each at most once
// (PROTOCOL.md 1.5, 6.7). With at most f of the n = 2f+1 replicas crashed
// (PROTOCOL.md 1.1), a session guarantees (PROTOCOL.md 2):
//
//   - Session order. An operation sees the effects of every operation of
//     its session that completed before it was issued: read your writes,
//     monotonic reads, monotonic writes, writes follow reads. Operations
//     in flight together are concurrent and may take effect in either
//     order across a failover; a program that needs an order between two
//     operations waits for the first before it issues the second, or
//     marks the second Op.Ordered: it then takes effect after every
//     earlier operation of its session that conflicts with it, and the
//     session keeps it in flight when it can (order.go).
//   - Weak operations are causally consistent. A weak read may return a
//     stale value, but never one that the session's causal past (its own
//     earlier operations and, transitively, the writes they read) has
//     overwritten. Weak reads are answered by one replica (the nearest;
//     CURP-HO: the bound one) merged with the session's own cache. Other
//     sessions see a weak write only once it (and its causal past) is
//     durable.
//   - Strong operations are linearizable: each takes effect at one
//     instant between its call and its return, in a single order that
//     respects real time, across all sessions. A strong operation is also
//     ordered after the weak writes its session completed before it.
//   - Causality between sessions runs only through values: session B is
//     causally after session A's write only once B reads it (or a later
//     write that depends on it). A hand-off outside the store (a channel,
//     another system) carries no causality: use strong operations, or one
//     session, for that.
//
// # Failover
//
// A session survives the crash of any minority of replicas, the leader
// included (PROTOCOL.md 6). When the leader fails, the replicas elect a
// new one (after electionTimeoutMs without hearing from it), which
// recovers every operation that may have completed; the session re-sends
// what it has in flight to the new leader with the same numbers, and an
// operation completes once, in the new view. Callers see only a delay
// (about the election timeout plus a round trip), never a made-up result.
// A weak read whose replica fails is sent to another; a session whose
// nearest (bound) replica fails moves to the next live one. With n = 3, a
// single failed replica makes every strong operation take the slow path
// (the fast path needs all three).
//
// What a session acknowledged survives such failures (PROTOCOL.md 6.8):
// strong writes and CURP-HT weak writes (acknowledged once committed)
// always; a CURP-HO weak write (acknowledged by the bound replica before
// it commits) is lost only if the leader fails before the write commits
// while this client has crashed or closed its session, and then no other
// session saw it. Close waits, at most one retry period (retryMs), for the
// session's acknowledged writes to commit before it ends the session;
// CloseContext waits no longer than its context either.
//
// When more than f replicas are down, operations wait; the context given
// to Put, Get, Scan or Do bounds that wait.
//
// # Errors
//
//   - ErrUnreachable (from Dial): no replica could be connected to.
//   - ErrTimeout: the context ended first. The error is a *TimeoutError
//     that says which replica the session was waiting for; the operation
//     may still execute later, at most once.
//   - ErrClosed: the session was closed.
//   - ErrRefused and ErrExpired: the session is over (its causal chain
//     broke after a long cut-off from the leader, docs/DECISIONS.md 15, or
//     the leader ended it after sessionIdleMs of silence, 23); every later
//     operation fails the same way. Open a new session.
//   - kvs.ErrInvalidCommand: the operation was refused before it was sent
//     (an empty key, a key or value over maxKeyBytes or maxValueBytes, a
//     SCAN whose end is before its start or whose limit is out of range, a
//     level other than Strong and Weak, a weak CAS or INCR, which is also
//     ErrStrongOnly).
//
// # Inside
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
// Session (session.go, session_conn.go, timeout.go) runs a Core on one
// goroutine. Its connections are a Transport's (transport.go): one per
// replica, shared by every session given the same Transport, each with
// one reader that hands every reply to the session it names
// (docs/DECISIONS.md 28); a session given none opens its own.
package client
