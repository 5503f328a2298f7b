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
	"swiftpaxos/wire/applog"
)

// maxLineBytes bounds one JSON Lines record: a value of up to
// kvs.MaxValueLimit bytes, which base64 or JSON escaping can grow
// six-fold, or a SCAN's items (kvs.MaxScanBytes).
const maxLineBytes = 6*kvs.MaxValueLimit + 4096

// ParseError reports a bad record in a JSON Lines file.
type ParseError struct {
	File string // the name given to the reader
	Line int    // 1-based
	Err  error
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }

func (e *ParseError) Unwrap() error { return e.Err }

// validateOp checks one history record on its own (doc.go, "History
// records"). Checks that need the whole history (unique ids and values)
// are done by Check.
func validateOp(o Op) error {
	switch {
	case o.Session == "":
		return errors.New("empty session")
	case o.Level != Strong && o.Level != Weak:
		return fmt.Errorf("invalid level %v", o.Level)
	case !o.Kind.Command():
		return fmt.Errorf("op %v is not an operation a client invokes", o.Kind)
	case o.Key == "" && o.Kind != Scan:
		return fmt.Errorf("a %v needs a key", o.Kind)
	case o.OK && o.ReturnNS < o.InvokeNS:
		return fmt.Errorf("return_ns %d is before invoke_ns %d", o.ReturnNS, o.InvokeNS)
	case o.Path != "" && o.Path != "fast" && o.Path != "slow":
		return fmt.Errorf("path %q is neither \"fast\" nor \"slow\"", o.Path)
	case o.InvokeNS == negInf || o.InvokeNS == inf || o.ReturnNS == negInf || o.ReturnNS == inf:
		return errors.New("instants must lie strictly between the least and the greatest int64, which stand for -infinity and +infinity")
	case (o.Kind == CAS || o.Kind == Incr) && o.Level != Strong:
		return fmt.Errorf("a weak %v: CAS and INCR are strong only, the client refuses them (PROTOCOL.md 1.2)", o.Kind)
	case o.FoundUnknown && !(o.Kind == Delete && o.Level == Weak) && !(o.Kind == CAS && o.OK && !o.Applied):
		return errors.New("only a weak delete, or a cas that did not apply, may leave found unknown")
	case o.Kind == CAS && (o.Expect < kvs.ExpectAbsent || o.Expect > kvs.ExpectVersion):
		return fmt.Errorf("a cas needs expect \"absent\", \"value\" or \"version\"")
	case o.Kind == CAS && o.Delete && o.Value != "":
		return errors.New("a cas with both a value and delete")
	case o.Kind == Incr && o.Err != "" && o.Err != ErrNotInteger && o.Err != ErrOverflow:
		return fmt.Errorf("err %q is neither %q nor %q", o.Err, ErrNotInteger, ErrOverflow)
	case o.Kind == Scan:
		return validateScan(o)
	}
	return nil
}

// validateScan checks a SCAN's range and, once it completed, its items:
// in the range, in increasing key order, at most Limit, at least one when
// More.
func validateScan(o Op) error {
	switch {
	case o.End != "" && o.End <= o.Key:
		return fmt.Errorf("a scan whose end %q is not after its start %q", o.End, o.Key)
	case o.Limit < 1:
		return fmt.Errorf("a scan with limit %d", o.Limit)
	case !o.OK:
		return nil
	case int64(len(o.Items)) > o.Limit:
		return fmt.Errorf("a scan returned %d items, over its limit %d", len(o.Items), o.Limit)
	case o.More && len(o.Items) == 0 && o.Through == "":
		return errors.New("a scan returned no item but more")
	case o.Through != "" && (!o.More || o.Through < o.Key || o.End != "" && o.Through >= o.End ||
		len(o.Items) > 0 && o.Through < o.Items[len(o.Items)-1].Key):
		return fmt.Errorf("a scan covered through %q, not after its last item within its range with more", o.Through)
	}
	for i, it := range o.Items {
		if it.Key < o.Key || o.End != "" && it.Key >= o.End {
			return fmt.Errorf("a scan returned key %q outside its range", it.Key)
		}
		if i > 0 && it.Key <= o.Items[i-1].Key {
			return fmt.Errorf("a scan returned key %q after %q: items must be in increasing key order", it.Key, o.Items[i-1].Key)
		}
	}
	return nil
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
		var o Op
		if err := dec.Decode(&o); err != nil {
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
		var e LogEntry
		if err := dec.Decode(&e); err != nil {
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

func writeLines[T any](w io.Writer, recs []T, line func([]byte, T) []byte) error {
	bw := bufio.NewWriter(w)
	var buf []byte
	for i := range recs {
		buf = line(buf[:0], recs[i])
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
	}
	return bw.Flush()
}

// WriteHistory writes ops as JSON Lines in the format ReadHistory reads.
func WriteHistory(w io.Writer, ops []Op) error { return writeLines(w, ops, AppendOp) }

// WriteLog writes entries as JSON Lines in the format ReadLog reads.
func WriteLog(w io.Writer, entries []LogEntry) error {
	return writeLines(w, entries, applog.AppendLine)
}

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
