package disk

import (
	"fmt"
	"strings"

	"github.com/cockroachdb/pebble/v2"
	"go.uber.org/zap"
)

// What pebble says, and what it finds wrong: its messages go to the
// replica's log, and a corrupt file it finds stops Open with an error
// that names it.

// corruption is pebble's DataCorruption event: the first corrupt file is
// logged and kept for the error of Open, or, once Open has returned, sent
// on broken (Broken). Either way the replica stops: its disk no longer
// holds what it acknowledged.
func (s *Store) corruption(info pebble.DataCorruptionInfo) {
	path := info.Path
	if !s.corrupt.CompareAndSwap(nil, &path) {
		return // pebble retries its compactions: said once is enough
	}
	s.log.Error("corrupt file in the data directory", zap.String("file", path), zap.String("error", firstLine(info.Details)))
	if s.opened.Load() {
		s.broken <- &corruptError{path: path, err: info.Details}
	}
}

// Broken says when pebble finds a file corrupt after Open returned (in a
// compaction, say): the replica must stop.
func (s *Store) Broken() <-chan error { return s.broken }

// named makes err name the file pebble found corrupt, if it found one.
func (s *Store) named(err error) error {
	if p := s.corrupt.Load(); p != nil {
		return &corruptError{path: *p, err: err}
	}
	return err
}

// corruptError is a store that cannot be opened because a file in it is
// corrupt.
type corruptError struct {
	path string
	err  error
}

func (e *corruptError) Error() string {
	return fmt.Sprintf("%s is corrupt: %s (move the directory away to start this replica empty: it then rejoins from the others as a learner, docs/DECISIONS.md 26)",
		e.path, firstLine(e.err))
}

func (e *corruptError) Unwrap() error { return e.err }

// firstLine is err's message up to its first line break: pebble's errors
// carry details on further lines.
func firstLine(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}

// pebbleLogger sends pebble's messages to the replica's logger: its
// routine ones at debug level.
type pebbleLogger struct{ l *zap.Logger }

func (p pebbleLogger) Infof(format string, args ...any) {
	if ce := p.l.Check(zap.DebugLevel, "pebble"); ce != nil {
		ce.Write(zap.String("msg", fmt.Sprintf(format, args...)))
	}
}
func (p pebbleLogger) Errorf(format string, args ...any) {
	msg, _, _ := strings.Cut(fmt.Sprintf(format, args...), "\n")
	p.l.Error("pebble", zap.String("msg", msg))
}
func (p pebbleLogger) Fatalf(format string, args ...any) {
	p.l.Error("pebble fatal", zap.String("msg", fmt.Sprintf(format, args...)))
	panic(fmt.Sprintf(format, args...))
}
