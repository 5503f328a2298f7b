// Package applog owns the applied-log record of check mode (PROTOCOL.md
// section 2.6): the line a replica writes for every command it executes,
// and the entry the history checker reads back. The replica and the
// checker both depend on it and neither on the other, so that imports run
// down (docs/ARCHITECTURE.md): the checker depends on the replica's record
// type, not the other way round.
//
// # Format
//
// An applied log is JSON Lines, one [Entry] per line, one line per
// executed command, in the order the replica applied them, one file per
// process lifetime. Every command line has slot, session (the client id
// in hex, [SessionOf], as histories name it), seq, op and key; then, by
// op:
//
//	get     found, ret (when found): the state it read
//	put     value
//	delete  found: whether the key held a value
//	cas     value or delete:true, applied, found, ret (when found): the
//	        key's state after it
//	incr    delta, applied (false: an error result, nothing written),
//	        found, ret: the state after it
//	scan    key (start), end (omitted: no end), limit, items (how many
//	        keys it returned), more
//	noop    slot and op only
//
//	{"slot":3,"session":"a1","seq":1,"op":"put","key":"k7","value":"V"}
//	{"slot":4,"session":"a1","seq":2,"op":"cas","key":"k7","value":"W","applied":true,"found":true,"ret":"W"}
//
// Keys and values are byte strings: a member is a JSON string when the
// bytes are valid UTF-8 without control characters, else the member
// name with "_b64" and the bytes in standard base64 (bytes.go). The lines
// carry what log agreement (the same command and outcome at a slot),
// at-most-once (the CmdId) and durability (whether a write took effect)
// need; a SCAN's items are counted, not listed, since the client's
// history holds them and the log's order is all the checker takes from
// it. The log must list what was applied: an entry the apply step
// skipped as a duplicate (section 6.7) is left out or recorded as a noop.
//
// [EntriesOf] returns the line of any executed command (a slice, so that
// a caller need not change if a command ever takes several); [EntryOf]
// the single line. [AppendLine] encodes a line without reflection; the
// strict reader is [Entry.UnmarshalJSON], and [Entry.MarshalJSON] writes
// what AppendLine writes.
//
// # Snapshot markers
//
// A log may leave out a range of slots that the replica installed from a
// snapshot rather than executed. It says so with a marker line
//
//	{"slot":S,"op":"snapshot"}
//
// meaning: the replica's state now holds everything up to slot S, as a
// snapshot of the same prefix that the other replicas executed; the lines
// that follow are for slots above S. A restarted replica that came back
// empty and caught up from a snapshot starts its file with the marker; a
// lagging replica that installed a snapshot in mid-life writes it between
// its lines (S is at least the slot of the line before). The marker needs
// only slot and op; session, seq, key and value may be present, empty.
//
// # Concurrency
//
// Everything here is plain data and pure functions.
package applog
