// Package check is the history checker of swiftpaxos's test mode
// (PROTOCOL.md section 2.6). It reads the operations clients recorded and
// the commands each replica applied, and reports every rule of section 2
// the run broke, naming the operations involved.
//
// This first version checks a subset of HYB (section 2.3): linearizability
// of strong operations per key, session guarantees, read sources, and the
// log rules. C1-C3, CC-ARB, full CC-VIS with transitive causality and hb
// acyclicity are not checked yet; each would be one more file with one more
// Rule, fed by the same indexes (history, logIndex).
//
// # Formats
//
// Both inputs are JSON Lines, one object per line; blank lines are skipped,
// unknown or missing fields are errors, and every reader error is a
// *ParseError naming the file and line. The writers produce exactly what
// the readers accept.
//
// A history record ([Op]), one per invoked operation:
//
//	{"session":"S","seq":1,"level":"strong","op":"put","key":7,"value":"V",
//	 "invoke_ns":100,"return_ns":250,"ok":true,"path":"fast"}
//
// level is "strong" or "weak", op "put" or "get". value is the written value
// of a put (never empty, unique in the run: reads-from is identified by
// value) and the returned value of a get ("" = NIL). Instants come from one
// clock shared by all clients. ok is true iff the operation completed; an
// operation with ok false is pending (resp = +infinity) whatever its
// return_ns says, because its outcome is unknown: a pending put may or may
// not have taken effect, a pending get constrains nothing. path ("fast" or
// "slow") is optional and ignored.
//
// An applied-log record ([LogEntry]), one file per replica, in the order
// the replica applied them:
//
//	{"slot":3,"session":"S","seq":1,"op":"put","key":7,"value":"V"}
//
// op is "put", "get" or "noop" (a no-op needs only slot and op). The dump
// must list what was applied: an entry the apply step skipped as a
// duplicate (section 6.7) must be left out or recorded as a noop.
//
// # Relations
//
// As in section 2.2: a rt b iff resp(a) < inv(b); a so b iff additionally
// a and b are of the same session, so pipelined operations of a session
// that overlap in time are concurrent. The arbitration order <A is the
// order of the reference log, the longest replica log (the first by name
// among equals); pos(o) is the slot of o's first occurrence there, and the
// initial NIL (w0) precedes every slot.
//
// # Rules
//
//   - history-invalid: a record is malformed, reuses a (session, seq), or
//     writes a value already written (values must be unique).
//   - log-invalid: slots of one replica's log do not strictly increase.
//   - read-never-written: a completed get returned a value no put wrote to
//     its key.
//   - read-from-future: a completed get returned the value of a put that
//     was invoked after the get returned (section 2.6 item 4).
//   - linearizability: the strong operations of one key have no legal
//     order respecting real time (LIN-RT, LIN-LEGAL). See "Linearizability"
//     below. A key whose search times out is reported in Report.Unknown,
//     which is neither a pass nor a violation.
//   - strong-write-order (logs only): completed strong puts s1 rt s2, of
//     any keys, with pos(s1) > pos(s2) (section 2.6 item 3; LIN-RT and HC
//     order strong puts across keys too).
//   - read-your-writes: a get returned a value older in <A than a put its
//     own session completed before the get was invoked.
//   - monotonic-reads: gets r1 so r2 of one key, where r2 returned a value
//     older in <A than the one r1 returned.
//   - log-agreement (logs only): a replica's applied log is not a prefix of
//     the reference log; the first differing entry (slot and command) is
//     reported, once per replica.
//   - log-mismatch (logs only): the reference log applied, under some
//     (session, seq), a command other than the one the client recorded, or
//     one no client recorded.
//   - at-most-once (logs only): a (session, seq) occurs twice in one
//     replica's applied log (sections 2.6 item 7, 6.7).
//   - durability (logs only): a completed put, strong or weak, is missing
//     from the reference log (sections 2.6 item 2, 6.8). Weak puts of
//     crashed sessions are not exempted yet.
//
// Session guarantees are instances of CC-VIS restricted to a session's own
// puts (read-your-writes) and to the sources of its own earlier reads
// (monotonic reads). They are checked for gets of both levels. With logs,
// "older in <A" compares positions, and sources absent from the reference
// log are skipped. Without logs only orders every correct run must have
// are used: NIL precedes every write, and a put precedes a later (so) put
// of the same session (CC-ARB, assuming both durable); other cases are
// skipped. Without logs, an anomaly among strong operations only is left
// to the linearizability rule, which catches exactly those.
//
// # Linearizability
//
// Each key is checked on its own with porcupine (a register history is
// linearizable iff each key's is), keys in parallel. Taking part, with the
// window [call, ret] porcupine orders by (a before b iff ret(a) < call(b)):
//
//   - every completed strong put and get, with [inv, resp];
//   - every strong put that never returned but that a completed strong get
//     read, with [inv(w), min resp(r)] over its strong readers r;
//   - every weak put that a completed strong get read (strong inclusion,
//     section 2.3), with [min(inv(w), inv(r)), min resp(r)] over its strong
//     readers r.
//
// Strong gets that never returned, and gets of a value never written to
// the key, are left out. A pending strong put nobody strongly read is left
// out too: it could always be ordered last.
//
// The windows of the last two kinds are not w's own [inv, resp], because HYB
// does not order weak operations by real time (LIN-RT covers strong pairs
// only): a weak put acknowledged at t=1 may legally be missed by a strong
// get invoked at t=2 and seen by one at t=4 (CURP-HO acknowledges weak
// writes before the leader orders them). Using resp(w) would report that
// as a violation. The chosen windows impose only orderings that every
// valid order already has: if ret(a) < call(b), then
//
//   - a, b both strong completed: a rt b, so a before b (LIN-RT);
//   - b is a pending strong put, a strong: a rt b (LIN-RT; b is in the
//     order since it was read);
//   - b is a weak put w, a strong: a rt r for all of w's strong readers r,
//     so a precedes them all; were a after w, it would lie between w and a
//     reader with no put in between, so a would be a strong reader of w
//     itself, and call(w) <= inv(a) <= resp(a), a contradiction;
//   - a is a put w of the last two kinds: its reader r with the least resp
//     has r rt b (b strong) or r before every reader of b (b a put of the
//     last two kinds, then b is after w, or w would separate b from its
//     readers); w precedes r, so w precedes b.
//
// They are not open-ended ([inv, +inf)) either: with hundreds of
// open-ended operations on a hot key, porcupine's search blows up (a
// 3,000-operation key did not finish in 10 s); ending each window at its
// first strong reader keeps the search as local as the strong operations.
//
// Conversely, an order porcupine finds respects real time between strong
// operations, so the verdict is exactly LIN-RT plus LIN-LEGAL for the key
// (lin_prop_test.go compares it with an exhaustive search). HC and CC-* do
// not constrain this order yet; C1-C3 will.
//
// porcupine runs first without recording partial linearizations, with
// Options.LinTimeout per key; only a failing key is re-run verbosely to
// describe the failure and, if Options.VisualizeDir is set, to write
// porcupine's HTML visualisation there. Messages name a concrete conflict
// when a stale read or two reads going back explain it (these two patterns
// are also searched when porcupine times out, turning a sure violation into
// a report instead of an unknown); otherwise they describe where the
// longest legal partial order stops.
//
// # Cost
//
// Indexing is by key, by (session, key), by written value and by CmdId;
// every rule except the porcupine search is a sort and a sweep, O(n log n).
// porcupine's search is exponential in the worst case, so a key with many
// mutually concurrent operations can hit LinTimeout: the whole check then
// takes at most about (keys that time out) * LinTimeout / Parallelism more.
// A synthetic valid run of 200,000 operations (scale_test.go) takes a few
// seconds on two cores.
//
// # Concurrency
//
// Check does not retain or modify its arguments and may be called from
// several goroutines at once; internally it checks keys on
// Options.Parallelism goroutines. Readers and writers are plain functions
// of their io.Reader/io.Writer. A Report is plain data.
package check
