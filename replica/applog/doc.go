// Package applog owns the applied-log record of check mode (PROTOCOL.md
// section 2.6): the line a replica writes for every command it executes,
// and the entry the history checker reads back. The replica and the
// checker both depend on it and neither on the other, so that imports run
// down (docs/ARCHITECTURE.md): the checker depends on the replica's record
// type, not the other way round.
//
// # Format
//
// An applied log is JSON Lines, one [Entry] per line, in the order the
// replica applied them, one file per process lifetime:
//
//	{"slot":3,"session":"S","seq":1,"op":"put","key":7,"value":"V"}
//
// op is "put", "get" or "noop" (a no-op needs only slot and op). session
// names a client session as its history does ([SessionOf]: the client id
// in hex). The log must list what was applied: an entry the apply step
// skipped as a duplicate (section 6.7) is left out or recorded as a noop.
// A SCAN applied at slot s is one line per key of its range, in
// increasing key order, each a get with its key and returned value, all
// with slot s, the SCAN's session and seq, and "scan":true:
//
//	{"slot":4,"session":"S","seq":2,"op":"get","key":8,"value":"","scan":true}
//
// [EntriesOf] returns the lines of any executed command; [EntryOf] the
// single line of a command other than a SCAN. [AppendLine] encodes one
// line exactly as encoding/json does, without reflection.
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
