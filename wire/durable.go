package wire

import "fmt"

// A replica in durable mode stores log entries and witness records one per
// key (replica/storage). They use the encodings of the Entry and Record
// list elements above (doc.go), without a frame or a list count, so that
// what is on disk is exactly what travels in an Accept or a CollectReply.

// AppendEntry appends the encoding of one log entry.
func AppendEntry(dst []byte, e *Entry) []byte { return appendEntry(dst, e) }

// DecodeEntry decodes one entry written by AppendEntry; its value is a copy,
// so b may be reused.
func DecodeEntry(b []byte) (Entry, error) {
	d := decoder{buf: b}
	e := Entry{Slot: d.slot(), Ballot: d.ballot(), Cmd: d.cmdID(), Command: d.ownedCommand(),
		Level: d.level(), CausalDep: d.seq(), AckUpTo: d.seq()}
	return e, d.done("entry", len(b))
}

// AppendRecord appends the encoding of one witness record.
func AppendRecord(dst []byte, r *Record) []byte {
	dst = appendCmdID(dst, r.Cmd)
	dst = appendCommand(dst, &r.Command)
	dst = append(dst, byte(r.Level))
	dst = appendBool(dst, r.Accepted)
	dst = appendUvarint(dst, uint64(r.Ballot))
	dst = appendUvarint(dst, r.Arrival)
	dst = appendUvarint(dst, uint64(r.CausalDep))
	return appendUvarint(dst, r.Age)
}

// DecodeRecord decodes one record written by AppendRecord; its value is a
// copy.
func DecodeRecord(b []byte) (Record, error) {
	d := decoder{buf: b}
	r := Record{Cmd: d.cmdID(), Command: d.ownedCommand(), Level: d.level(), Accepted: d.bool(),
		Ballot: d.ballot(), Arrival: d.uvarint(), CausalDep: d.seq(), Age: d.uvarint()}
	return r, d.done("record", len(b))
}

// done reports the first problem, or trailing bytes, as ErrMalformed.
func (d *decoder) done(what string, n int) error {
	if d.problem == "" && len(d.buf) != 0 {
		d.fail(fmt.Sprintf("%d trailing bytes", len(d.buf)))
	}
	if d.problem != "" {
		return fmt.Errorf("%w: %s of %d bytes: %s at offset %d", ErrMalformed, what, n, d.problem, n-d.at)
	}
	return nil
}
