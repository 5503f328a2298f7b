package check

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
)

// maxLineBytes bounds one JSON Lines record. Values are shorter than
// kvs.MaxValueLen bytes; JSON escaping can grow them six-fold.
const maxLineBytes = 8*kvs.MaxValueLen + 4096

// ParseError reports a bad record in a JSON Lines file.
type ParseError struct {
	File string // the name given to the reader
	Line int    // 1-based
	Err  error
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }

func (e *ParseError) Unwrap() error { return e.Err }

// opRecord mirrors Op with pointers so that missing fields are detected.
type opRecord struct {
	Session  *SessionID `json:"session"`
	Seq      *wire.Seq  `json:"seq"`
	Level    *Level     `json:"level"`
	Kind     *OpKind    `json:"op"`
	Key      *kvs.Key   `json:"key"`
	Value    *string    `json:"value"`
	InvokeNS *int64     `json:"invoke_ns"`
	ReturnNS *int64     `json:"return_ns"`
	OK       *bool      `json:"ok"`
	Path     *string    `json:"path"`
	Scan     *bool      `json:"scan"`
}

func (r *opRecord) op() (Op, error) {
	var missing []string
	need := func(present bool, name string) {
		if !present {
			missing = append(missing, name)
		}
	}
	need(r.Session != nil, "session")
	need(r.Seq != nil, "seq")
	need(r.Level != nil, "level")
	need(r.Kind != nil, "op")
	need(r.Key != nil, "key")
	need(r.Value != nil, "value")
	need(r.InvokeNS != nil, "invoke_ns")
	need(r.ReturnNS != nil, "return_ns")
	need(r.OK != nil, "ok")
	if len(missing) > 0 {
		return Op{}, fmt.Errorf("missing field(s) %q", missing)
	}
	o := Op{
		Session: *r.Session, Seq: *r.Seq, Level: *r.Level, Kind: *r.Kind, Key: *r.Key,
		Value: *r.Value, InvokeNS: *r.InvokeNS, ReturnNS: *r.ReturnNS, OK: *r.OK,
	}
	if r.Path != nil {
		o.Path = *r.Path
	}
	if r.Scan != nil {
		o.Scan = *r.Scan
	}
	if err := validateOp(o); err != nil {
		return Op{}, err
	}
	return o, nil
}

// validateOp checks one history record on its own. Checks that need the
// whole history (unique ids and values) are done by Check.
func validateOp(o Op) error {
	switch {
	case o.Session == "":
		return errors.New("empty session")
	case o.Level != Strong && o.Level != Weak:
		return fmt.Errorf("invalid level %v", o.Level)
	case o.Kind != Put && o.Kind != Get:
		return fmt.Errorf("op must be \"put\" or \"get\", not %v", o.Kind)
	case o.Kind == Put && o.Value == "":
		return errors.New("a put must write a non-empty value (\"\" means NIL)")
	case o.OK && o.ReturnNS < o.InvokeNS:
		return fmt.Errorf("return_ns %d is before invoke_ns %d", o.ReturnNS, o.InvokeNS)
	case o.Path != "" && o.Path != "fast" && o.Path != "slow":
		return fmt.Errorf("path %q is neither \"fast\" nor \"slow\"", o.Path)
	case o.Scan && o.Kind != Get:
		return errors.New("a scan record must be a get (one per key of the scanned range)")
	case o.InvokeNS == negInf || o.InvokeNS == inf || o.ReturnNS == negInf || o.ReturnNS == inf:
		return errors.New("instants must lie strictly between the least and the greatest int64, which stand for -infinity and +infinity")
	}
	return nil
}

// logRecord mirrors LogEntry with pointers so that missing fields are
// detected.
type logRecord struct {
	Slot    *kvs.Slot  `json:"slot"`
	Session *SessionID `json:"session"`
	Seq     *wire.Seq  `json:"seq"`
	Kind    *OpKind    `json:"op"`
	Key     *kvs.Key   `json:"key"`
	Value   *string    `json:"value"`
	Scan    *bool      `json:"scan"`
}

func (r *logRecord) entry() (LogEntry, error) {
	if r.Slot == nil || r.Kind == nil {
		return LogEntry{}, errors.New("missing field \"slot\" or \"op\"")
	}
	e := LogEntry{Slot: *r.Slot, Kind: *r.Kind}
	if r.Session != nil {
		e.Session = *r.Session
	}
	if r.Seq != nil {
		e.Seq = *r.Seq
	}
	if r.Key != nil {
		e.Key = *r.Key
	}
	if r.Value != nil {
		e.Value = *r.Value
	}
	if r.Scan != nil {
		e.Scan = *r.Scan
	}
	if e.Scan && e.Kind != Get {
		return LogEntry{}, errors.New("a scan entry must be a get (one per key of the scanned range)")
	}
	if e.Kind == Noop || e.Kind == Snapshot {
		return e, nil
	}
	switch {
	case r.Session == nil || r.Seq == nil || r.Key == nil:
		return LogEntry{}, fmt.Errorf("a %v entry needs \"session\", \"seq\" and \"key\"", e.Kind)
	case e.Session == "":
		return LogEntry{}, errors.New("empty session")
	case e.Kind == Put && e.Value == "":
		return LogEntry{}, errors.New("a put entry needs a non-empty \"value\"")
	}
	return e, nil
}

// readLines calls decode for every non-blank line of r, wrapping errors in
// a ParseError naming the file and line. With tornTail, a last line that
// has no newline and ends before its JSON object does is ignored: it is a
// write that a crash cut short (an applied log's writer ends every line
// it writes with a newline, in the same write).
func readLines(r io.Reader, name string, tornTail bool, decode func(dec *json.Decoder) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxLineBytes)
	unterminated := false
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		adv, tok, err := bufio.ScanLines(data, atEOF)
		if atEOF && tok != nil && adv == len(data) && (len(data) == 0 || data[len(data)-1] != '\n') {
			unterminated = true
		}
		return adv, tok, err
	})
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		err := decode(dec)
		if err == nil {
			if _, tokErr := dec.Token(); tokErr != io.EOF {
				err = errors.New("trailing data after the JSON object")
			}
		}
		if err != nil {
			if tornTail && unterminated && errors.Is(err, io.ErrUnexpectedEOF) {
				return nil
			}
			return &ParseError{File: name, Line: line, Err: err}
		}
	}
	if err := sc.Err(); err != nil {
		return &ParseError{File: name, Line: line + 1, Err: err}
	}
	return nil
}

// ReadHistory reads a JSON Lines history, one Op per line. Blank lines are
// skipped. Unknown fields, missing fields and invalid records are errors; a
// returned error is a *ParseError naming name and the line.
func ReadHistory(r io.Reader, name string) ([]Op, error) {
	var ops []Op
	err := readLines(r, name, false, func(dec *json.Decoder) error {
		var rec opRecord
		if err := dec.Decode(&rec); err != nil {
			return err
		}
		o, err := rec.op()
		if err != nil {
			return err
		}
		ops = append(ops, o)
		return nil
	})
	return ops, err
}

// ReadLog reads a JSON Lines applied log, one LogEntry per line, in the
// order the replica applied them. Errors are as for ReadHistory, except
// that a last line without a newline whose JSON object is cut short is
// ignored: the replica was killed while writing it (doc.go, "Logs of killed and
// restarted replicas").
func ReadLog(r io.Reader, name string) ([]LogEntry, error) {
	var entries []LogEntry
	err := readLines(r, name, true, func(dec *json.Decoder) error {
		var rec logRecord
		if err := dec.Decode(&rec); err != nil {
			return err
		}
		e, err := rec.entry()
		if err != nil {
			return err
		}
		entries = append(entries, e)
		return nil
	})
	return entries, err
}

// ReadHistoryFile reads the history file at path (see ReadHistory).
func ReadHistoryFile(path string) ([]Op, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadHistory(f, path)
}

// ReadLogFile reads the applied-log file at path (see ReadLog).
func ReadLogFile(path string) ([]LogEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadLog(f, path)
}

func writeLines[T any](w io.Writer, recs []T) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := range recs {
		if err := enc.Encode(&recs[i]); err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
	}
	return bw.Flush()
}

// WriteHistory writes ops as JSON Lines in the format ReadHistory reads.
func WriteHistory(w io.Writer, ops []Op) error { return writeLines(w, ops) }

// WriteLog writes entries as JSON Lines in the format ReadLog reads.
func WriteLog(w io.Writer, entries []LogEntry) error { return writeLines(w, entries) }

// WriteHistoryFile writes the histories of several sessions (or threads)
// to one file.
func WriteHistoryFile(path string, parts ...[]Op) error {
	return writeFile(path, func(w io.Writer) error {
		for _, ops := range parts {
			if err := WriteHistory(w, ops); err != nil {
				return err
			}
		}
		return nil
	})
}

// WriteLogFile writes one replica's applied log to a file.
func WriteLogFile(path string, entries []LogEntry) error {
	return writeFile(path, func(w io.Writer) error { return WriteLog(w, entries) })
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}
