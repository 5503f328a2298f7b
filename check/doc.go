// Package check is the history checker of swiftpaxos's test mode
// (PROTOCOL.md section 2.6). It reads the operations clients recorded and
// the commands each replica applied, and reports every rule of section 2
// the run broke, naming the operations involved.
//
// It checks HYB (section 2.3) rule by rule: linearizability of strong
// operations per key, the causal rules (CC-ACYCLIC, CC-VIS, CC-ARB) over
// the transitive causal order, the hybrid conditions C1-C3 of section 2.4,
// read sources, and the log rules of section 2.6. HC is not checked as
// such: its consequences that the logs can show are C1-C3 and CC-ARB.
//
// Rules that need the applied logs (the arbitration order <A, the durable
// set D, positions) are not checked without them, and CC-VIS only partly;
// Report.Skipped says so, so that a history checked without logs never
// passes silently. RunCommand (cli.go) is the command line.
//
// # Formats
//
// Both inputs are JSON Lines, one object per line; blank lines are skipped,
// unknown or missing members are errors, and every reader error is a
// *ParseError naming the file and line. The writers produce exactly what
// the readers accept, without reflection (AppendOp, applog.AppendLine).
//
// Keys and values are byte strings. Each is written as a JSON string,
// "key":"text", when it is valid UTF-8 without control characters, and
// otherwise as "key_b64":"..." (standard padded base64); a reader takes
// either, never both, so any bytes round-trip (package applog, bytes.go).
// This holds for key, end, value, expect_value, ret, through and the items'
// key and value.
//
// # History records
//
// One record ([Op]) per invoked operation. Every record has session, seq
// (the CmdId), level ("strong" or "weak"), op, key, invoke_ns, return_ns
// and ok; path ("fast" or "slow", ignored) and ordered:true (rule
// ordered) are optional. Instants come from one clock shared by all
// clients and must lie strictly between the least and the greatest int64
// (which stand for -infinity and +infinity).
// ok is true iff the operation completed and its result is known; a
// record with ok false is pending (resp = +infinity) whatever its
// return_ns, carries no result members, and a pending write may or may
// not have taken effect. A client fills a record with [Record] from the
// command it sent and the kvs.Result it got, after setting the members
// above; then, per operation (result members only when ok):
//
//	op      command members              result members
//	get     key                          found, ret (when found)
//	put     key, value                   none
//	delete  key                          found (the key existed), or
//	                                     found_unknown:true (see below)
//	cas     key, expect ("absent",       applied, found, ret (when found):
//	        "value", "version"),         the key's state after the CAS,
//	        expect_value or              the current one if it did not
//	        expect_version, value or     apply
//	        delete:true                  or applied:false with
//	                                     found_unknown:true (below)
//	incr    key, delta                   found, ret: the new value; with
//	                                     err ("not-integer", "overflow")
//	                                     the state it found
//	scan    key (start, may be ""),      items: [{"key":..,"value":..}]
//	        end (omitted: no end),       in key order, more; through
//	        limit                        (below)
//
// Absent and empty differ: a get that found the empty value has
// "found":true,"ret":"", one that found nothing "found":false. Values a
// put or a CAS writes must be unique in the run (the empty value too: at
// most one write of it), so that a read names the write it read; INCR
// results are counters and need not be. CAS and INCR are strong only: a
// weak one is history-invalid (the client refuses it before sending). At
// the weak level every operation but CAS and INCR is recorded as at the
// strong level, with one exception: where the reply could not know
// whether a weak DELETE's key existed (CURP-HO answers it before it
// executes), the client sets found_unknown:true instead of found. A CAS
// that did not apply and whose reply said only that (RESP's CAS replies
// 0) sets found_unknown:true too: it wrote nothing and read nothing
// known, so it takes part in no search and no causal rule, and only the
// applied logs check it (their entry says it did not apply). The
// result's versions are not recorded: fast-path versions are tentative
// (docs/DECISIONS.md 14), so the checker never relies on them; a CAS on a
// version is decided against the slots of the applied logs.
//
// through, on a SCAN with more only, is the last key its answer covered
// when that is past its last item (the client sets it after Record): a
// weak SCAN's answer merged with the session's own writes may lose keys
// the session deleted, the last one included, even all of them
// (client/weakread.go, mergeScan). A SCAN with more and no item must have
// it.
//
//	{"session":"S","seq":1,"level":"strong","op":"put","key":"k7","value":"V",
//	 "invoke_ns":100,"return_ns":250,"ok":true,"path":"fast"}
//	{"session":"S","seq":2,"level":"weak","op":"scan","key":"k","end":"l","limit":10,
//	 "items":[{"key":"k7","value":"V"}],"more":false,"invoke_ns":300,"return_ns":400,"ok":true}
//
// The applied logs, one file per replica lifetime, hold [LogEntry]
// records in the order the replica applied them, one line per executed
// command (package wire/applog, whose doc.go defines the format; a
// marker {"slot":S,"op":"snapshot"} stands for the slots installed from a
// snapshot rather than executed):
//
//	{"slot":3,"session":"S","seq":1,"op":"put","key":"k7","value":"V"}
//
// # Operations as reads and writes
//
// Every rule but linearizability works on the reads and writes of single
// keys, as section 2 is written (parts.go): a GET reads its key; a PUT
// writes its value; a DELETE writes "absent"; a CAS that applied writes
// its value or absent, one that did not reads the state it returned; an
// INCR without error writes its result, one with an error reads; a SCAN
// reads every key of the range it covered that some operation of the
// history writes, the items' values and absent for the others. A SCAN
// covered [start, end) when it returned all (more false), [start,
// through] when it says more exist and has a through, and [start, last
// item] when it says more exist without one: a key of that range missing
// from its items was read as absent. Pending operations keep only their
// writes.
//
// A read names its source, the write it read from: the one write of its
// value to its key (values are unique), or w0 for absent on a key that
// no DELETE or deleting CAS invoked before the read returned writes.
// Where several writes may have made the state it read (absent on a
// deleted key, a counter value two INCRs wrote or a pending INCR may
// have), the source is ambiguous: the rules that follow reads-from
// (read-from-future, the session rules, the causal rules, strong read
// order, C1 and C3) skip that read, and linearizability decides it with
// the key's full semantics. A DELETE's "existed" and what a CAS that
// applied or an INCR read are likewise left to linearizability.
//
// # Logs of killed and restarted replicas
//
// A log file is one lifetime of a replica process (a restarted replica
// writes a new file: the launcher names them log-ALIAS.N.jsonl, N = 1, 2,
// ...; the checker treats every file as a log of its own, named by what
// follows "log-"). A lifetime ended by kill -9 is a prefix of what it
// applied: its writer loses what it had not flushed, and a crash may cut
// its last line short. A last line without its newline whose JSON object
// is incomplete is therefore ignored (any other bad line is an error),
// A restarted replica that caught up from a snapshot starts
// its file with a snapshot marker; a lagging replica that installed one
// in mid-life writes it between its lines.
//
// A log thus covers the slots of its segments: from slot 1 (or just above
// a marker's S) to the last slot it lists before the next marker or the
// end of the file (a noop line counts). In
// a covered slot it lists exactly the commands executed there.
//
// # The merged log
//
// The rules below compare positions in one reference log, the union of
// all the logs by slot: each slot's lines come from the first log that
// covers the slot, taking the logs with the most executed lines first
// (then by name), so that with full logs that are prefixes of one another
// it is the longest log, as before restarts existed. Every log must agree
// with it on every slot the log covers (log-agreement), so two logs that
// list a covered slot differently are always reported; a slot that only
// a killed lifetime reached, or only the first lifetime of a replica
// whose other logs start at a later snapshot, is in the union and counts
// for durability.
//
// # Relations
//
// As in section 2.2: a rt b iff resp(a) < inv(b); a so b iff additionally
// a and b are of the same session, so pipelined operations of a session
// that overlap in time are concurrent. The arbitration order <A is the
// order of the merged log (above); pos(o) is the slot of o's first
// occurrence there (for each part of an operation, the operation's slot), and the
// initial absent state (w0) precedes every slot.
//
// # Rules
//
//   - history-invalid: a record is malformed (a weak CAS or INCR, SCAN
//     items out of order or outside the range or over the limit, ...),
//     reuses a (session, seq), or a put or CAS writes a value already
//     written (values must be unique).
//   - log-invalid: slots of one replica's log do not strictly increase,
//     except for a snapshot marker, whose slot may equal the line's
//     before it.
//   - read-never-written: a completed get returned a value no put wrote to
//     its key.
//   - read-from-future: a completed get returned the value of a put that
//     was invoked after the get returned (section 2.6 item 4).
//   - linearizability: the strong operations of one key have no legal
//     order respecting real time (LIN-RT, LIN-LEGAL), decided exactly. See
//     "Linearizability" below.
//   - strong-write-order (logs only): completed strong puts s1 rt s2 of
//     one key with pos(s1) > pos(s2) (section 2.6 item 3). Only per key:
//     linearizability is local, and recovery may replay commuting strong
//     writes of different keys in either order (sections 1.7, 6.4, and
//     the amended HC of 2.3).
//   - strong-read-order (logs only): a completed strong get r of key k
//     with source w breaks the log order <A of k (section 2.6 item 4):
//     (a) a completed strong put s of k with s rt r is later than w in
//     <A; (c) a completed strong get r1 rt r of k read a source later in
//     <A than w; (d) a strong put s of k, completed or not, with r rt s is
//     earlier than w in <A. Clause (b), w invoked before resp(r), is
//     read-from-future. Comparisons with a position missing from the log
//     are skipped (durability, C1 and C3 report missing puts). One
//     violation per get, for the first clause it breaks; a get that
//     read-your-writes or monotonic reads reported is not repeated.
//     Unlike linearizability, which may choose any order, this holds the
//     strong reads to the order the log actually has.
//   - read-your-writes: a get returned a value older in <A than a put its
//     own session completed before the get was invoked.
//   - monotonic-reads: gets r1 so r2 of one key, where r2 returned a value
//     older in <A than the one r1 returned.
//   - log-agreement (logs only): a log lists a slot it covers differently
//     from the merged log (a command the other lacks, or another command):
//     the applied logs of correct replicas are prefixes of one another
//     where they overlap. The first differing slot is reported, with both
//     sides, once per log.
//   - log-mismatch (logs only): the merged log applied, under some
//     (session, seq), a command other than the one the client recorded, or
//     one no client recorded: another kind, key, written value, delete,
//     delta, end or limit, or, for a completed CAS or INCR, another
//     outcome (applied, or an error) than the client received.
//   - at-most-once (logs only): a (session, seq) occurs twice in one
//     replica's applied log, or at two slots of the merged log taken from
//     different logs (say, once below the snapshot a restarted replica
//     installed and once above it; sections 2.6 item 7, 6.7).
//   - durability (logs only): a completed write (a put, a DELETE, a CAS
//     that applied, an INCR without error), strong or weak, is missing
//     from the merged log (sections 2.6 item 2, 6.8). Weak puts of
//     sessions listed in Options.Crashed are exempt.
//   - ordered (logs only): an ordered operation sits below an earlier
//     conflicting one of its session (docs/DECISIONS.md 45, 46; not SCANs).
//   - cc-acyclic: hb has a cycle; the cycle is spelled out. A cycle needs a
//     read of a put invoked after the read returned (if every rf edge went
//     forward in time, so and rf would both increase inv, see below).
//   - cc-vis: a get returned the value of w although a put w' to its key
//     with w <A w' is in its causal past (w' hb r). The causal chain from
//     w' to the get is spelled out (for the first 50 such messages).
//   - cc-arb (logs only): puts w1 hb w2, both in the log, with pos(w1) >
//     pos(w2). Reported once per w2.
//   - c1-same-session-read-from (logs only): a completed weak put w and a
//     strong get s of the same key and session with w so s, where w is
//     missing from the log or s precedes it there.
//   - c2-durability-order (logs only): the same for any other completed
//     strong operation s of the session (a strong put, or a get of another
//     key).
//   - c3-visibility-barrier (logs only): a get r read put w of another
//     session, and w, or a put in w's causal past, is missing from the log
//     (once per w); or r is strong and precedes w in the log.
//
// A part of a SCAN is a get of its key in every rule: a read with its own
// source, in its session's order and the causal order, a strong read for
// strong-read-order, C1 and C3 when the SCAN is strong (section 2.6 item
// 8). So a strong SCAN after a session's weak put w is, through its part
// of key(w), a C1 pair, and through its other parts C2 pairs. SCANs are
// checked key by key, not as one atomic read of their range (decision 17).
//
// A protocol fault often breaks several rules at once; each rule reports
// it in its own terms, at most once per operation. C1 and C2
// split the pairs (w, s) between them instead of overlapping, and each
// reports at most one violation per weak put: the strong operation
// earliest in the log, or, for a lost put, the first one invoked after it.
// C1's third clause (s returns val(w) or a newer value) is the case of
// read-your-writes for a strong get and a weak put, and is reported as
// such. cc-vis does not repeat a get that read-your-writes or monotonic
// reads reported.
//
// Session guarantees are instances of CC-VIS restricted to a session's own
// puts (read-your-writes) and to the sources of its own earlier reads
// (monotonic reads). They are checked for gets of both levels. With logs,
// "older in <A" compares positions, and sources absent from the reference
// log are skipped. Without logs only orders every correct run must have
// are used: absent (w0) precedes every write, and a put precedes a later (so) put
// of the same session (CC-ARB, assuming both durable); other cases are
// skipped. Without logs, an anomaly among strong operations only is left
// to the linearizability rule, which catches exactly those.
//
// # Linearizability
//
// Each key is decided on its own (a history of single-key operations is
// linearizable iff each key's is; a SCAN takes part in each key of its
// covered range as a read), keys in parallel. A key whose operations are
// all GETs, PUTs and SCANs is decided exactly by the cluster
// characterisation below. Any other key (a DELETE, a CAS or an INCR
// touched it) is decided by a search (lin_model.go): Wing and Gong's
// search with Lowe's memo of (operations taken, state), the algorithm of
// porcupine, over a model of the key, absent or a value, that knows every
// operation: a DELETE checks its "existed" (unless unknown) and makes the
// key absent; a CAS that applied must find its expectation met, one that
// did not must not and must return the state; an INCR must find absent
// (0) or a decimal integer and return the sum, or its error must match
// the state; a pending write may take effect (computed by the model) or
// not. A CAS on a version compares with the slot, in the applied logs, of
// the write that made the state; without the logs its key is undecided.
// The search takes part with every completed strong operation ([inv,
// resp]), every pending strong write ([inv, +inf)), and the weak writes a
// strong operation may have observed ([inv, +inf), or up to the first
// strong reader's response for a weak put read by value); weak writes no
// strong operation observes by value are tried in invocation order, one
// standing for another. With the applied logs, the order the replicas
// applied the key in is tried first (lin_witness.go): if it is legal the
// key is linearizable at once; if not, it proves nothing and the search
// runs. The search is exact; it is bounded by a count of model steps
// (16,000,000 per key), not by time, so the verdict is the same on every
// machine, and a key that needs more is reported in Report.Unknown
// ("cannot decide"), never as a pass. docs/DECISIONS.md 39 and 43.
//
// For GET, PUT and SCAN keys, taking part, with a window [call, ret]
// (a is before b iff ret(a) < call(b), strictly, as in section 2.2):
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
// The windows of the last two kinds are not w's own [inv, resp], because
// HYB does not order weak operations by real time; lin.go (linOps) shows
// that they impose only orderings every valid order already has.
//
// The decision is exact and takes O(n log n) (lin_zones.go), by the
// cluster and zone characterisation of Gibbons and Korach (SIAM J.
// Comput. 26(4), 1997; restated by Golab, Li and Shah, PODC 2011), which
// needs unique written values (history-invalid reports duplicates; a
// get's source is the first put of its value). A cluster is a put with
// the gets returning its value; the initial absent state is a put at -infinity
// whose cluster holds the reads of absent. With f the least ret and s the
// greatest call of a cluster, its zone is forward, [f, s], if f < s, and
// backward, [s, f], otherwise. The key is linearizable iff
//
//  1. no get returned before its put was invoked (ret(r) < call(w));
//  2. no two forward zones overlap in more than a point (max f < min s);
//  3. no backward zone [s', f'] lies strictly inside a forward zone [f, s]
//     (f < s' and f' < s).
//
// lin_zones.go proves the characterisation and says how it is tested.
// The verdict thus depends on nothing but the history: no search, no
// budget, the same on every machine.
//
// A violation names the first conflict found: a get that returned before
// its put was invoked, or a get r that read put w while another put v
// must come after w (an operation of w's cluster returned before one of
// v's was invoked) and before r (an operation of v's cluster returned
// before r was invoked). The count of further conflicts on the key
// follows (at most one per get and one per cluster). The decision does
// not use hb or the log: the rules below check those against the log
// directly.
//
// porcupine is used only to draw a violation (Options.VisualizeDir,
// lin_explain.go); the verdict never depends on it.
//
// # Verdict
//
// Report.OK is true only with no violation, none omitted beyond
// Options.MaxPerRule, and nothing in Report.Unknown. Report.Unknown holds
// the keys whose linearizability search ran past its step bound or that a
// CAS on a version makes undecidable without logs. Otherwise every check
// is decided: an operation the checker cannot
// place is a violation of its own (history-invalid for a malformed record,
// read-never-written for a read of a value never written to its key,
// log-mismatch for an applied command no client issued). Report.Unknown
// remains so that a check that cannot decide makes a report fail rather
// than pass. Report.Skipped lists rules not checked for lack of input (the
// logs), which a caller must not mistake for a pass either.
//
// # Causality
//
// hb = (so ∪ rf)+ is never materialised: causal.go visits the operations
// once, in an order in which every operation comes after its causal past,
// and describes each one's causal past compactly by a clock, one prefix
// length per lane of a session; its comment states the representation and
// why it is exact.
//
// Without logs, cc-vis uses only orders <A must have, assuming every put
// that completed or was read is durable (so in <A): w0 precedes every
// put; w so w' implies w hb w', so w <A w' (CC-ARB); and strong puts w rt
// w' give w <T w' (LIN-RT), so w <A w' (HC). It reports a get exactly when
// its causal past holds such a w' for its source; this covers the
// causal-chain anomalies of one writer session (a session writes x then
// y; another reads y, then an older x), while other orders need the logs.
//
// causal_prop_test.go compares every causal rule with the definitions
// applied to an explicit closure of hb on thousands of small random
// histories, with and without logs.
//
// # Cost
//
// Indexing is by key, by (session, key), by written value and by CmdId;
// every rule except the causal visit is a sort and a sweep, O(n log n).
// The causal visit costs O(n log n) plus one clock copy or union, L
// integers for L lanes, per operation, and keeps the clocks of puts whose
// readers are still to come: O(n·L) time and O(L) memory per such put.
// With 200,000 operations of 400 sessions (857 lanes, a quarter of the
// sessions pipelined) it takes about 1.5 s and 150 MB. A synthetic valid
// run of 200,000 operations (scale_test.go) takes 3-4 seconds on two
// cores, and one of 160,000 operations on a single key under a second.
//
// # Concurrency
//
// Check keeps and modifies none of its arguments and may run on several
// goroutines at once; it checks keys on Options.Parallelism goroutines.
// Readers, writers and Reports hold no shared state.
package check
