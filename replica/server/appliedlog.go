package server

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"go.uber.org/zap"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
	"swiftpaxos/wire/applog"
)

// The applied log (check mode, PROTOCOL.md 2.6) is streamed to its file
// as commands execute, so that a replica killed with kill -9 leaves the
// prefix it had applied, short of at most the last appliedLogFlushEvery
// (or appliedLogFlushAt commands). The event loop only appends a record
// to a slice under a mutex; a goroutine of the writer encodes and writes
// it, so the loop never waits for the disk or for encoding.
const (
	appliedLogFlushEvery = 10 * time.Millisecond
	appliedLogFlushAt    = 4096 // records that wake the writer early
)

// executedRecord is what the loop hands the writer: an executed command,
// or a snapshot marker. A PUT's value is copied (the decoder's buffer may
// be reused); results point into the store, whose values are never
// modified in place.
type executedRecord struct {
	slot     kvs.Slot
	client   wire.ClientID
	seq      wire.Seq
	cmd      kvs.Command
	res      kvs.Result
	snapshot bool
}

// appliedLogWriter streams one process lifetime's applied log to a file
// of its own: it refuses a file that exists, so that a restarted replica
// never overwrites its previous lifetime's log (the checker reads each
// file as a log, check/doc.go). record and snapshot are called by
// the event loop; Close once the loop has stopped.
type appliedLogWriter struct {
	path string
	f    *os.File
	log  *zap.Logger

	mu      sync.Mutex
	pending []executedRecord

	wake chan struct{} // cap 1: pending reached appliedLogFlushAt
	stop chan struct{}
	done chan struct{}
	err  error // the first write error; read after done

	// flushed, when set (tests), is called after each write.
	flushed func()
}

func openAppliedLog(path string, log *zap.Logger) (*appliedLogWriter, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("applied log %s already exists: every lifetime of a replica needs a file of its own (a restarted replica must not overwrite the log of the one before)", path)
	}
	if err != nil {
		return nil, fmt.Errorf("applied log: %w", err)
	}
	w := &appliedLogWriter{path: path, f: f, log: log,
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	return w, nil
}

// start starts the writer's goroutine.
func (w *appliedLogWriter) start() *appliedLogWriter {
	go w.run()
	return w
}

// record queues an executed command.
func (w *appliedLogWriter) record(e *wire.Entry, res kvs.Result) {
	r := executedRecord{slot: e.Slot, client: e.Cmd.Client, seq: e.Cmd.Seq, cmd: e.Command, res: res}
	if r.cmd.Op == kvs.OpPut || r.cmd.Op == kvs.OpCAS {
		r.cmd.Value = bytes.Clone(r.cmd.Value)
		r.cmd.ExpectValue = bytes.Clone(r.cmd.ExpectValue)
	}
	w.add(r)
}

// snapshot queues the marker of a snapshot installed in place of the
// slots up to slot (wire/applog/doc.go, "Snapshot markers"). It must
// be called before any entry above slot executes.
func (w *appliedLogWriter) snapshot(slot kvs.Slot) {
	w.add(executedRecord{slot: slot, snapshot: true})
}

func (w *appliedLogWriter) add(r executedRecord) {
	w.mu.Lock()
	w.pending = append(w.pending, r)
	n := len(w.pending)
	w.mu.Unlock()
	if n == appliedLogFlushAt {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// run writes what is pending every appliedLogFlushEvery, or sooner when
// much is pending, until Close.
func (w *appliedLogWriter) run() {
	defer close(w.done)
	t := time.NewTicker(appliedLogFlushEvery)
	defer t.Stop()
	var spare []executedRecord
	var buf []byte
	for {
		stopping := false
		select {
		case <-t.C:
		case <-w.wake:
		case <-w.stop:
			stopping = true
		}
		w.mu.Lock()
		batch := w.pending
		w.pending = spare[:0]
		w.mu.Unlock()
		buf = w.write(buf[:0], batch)
		clear(batch) // drop the references to values and results
		spare = batch
		if stopping {
			return
		}
	}
}

// write encodes batch and writes it with one write call. After a failed
// write the records are dropped: the log is already incomplete, and the
// error ends the replica's run with it (Close).
func (w *appliedLogWriter) write(buf []byte, batch []executedRecord) []byte {
	if len(batch) == 0 || w.err != nil {
		return buf
	}
	for i := range batch {
		r := &batch[i]
		if r.snapshot {
			buf = applog.AppendLine(buf, applog.Entry{Slot: r.slot, Kind: applog.Snapshot})
			continue
		}
		session := applog.SessionOf(r.client)
		for _, le := range applog.EntriesOf(r.slot, session, r.seq, r.cmd, r.res) {
			buf = applog.AppendLine(buf, le)
		}
	}
	if _, err := w.f.Write(buf); err != nil {
		w.err = fmt.Errorf("applied log %s: %w", w.path, err)
		w.log.Error("cannot write the applied log: the rest of this lifetime's log is lost", zap.Error(err))
	}
	if w.flushed != nil {
		w.flushed()
	}
	return buf
}

// Close writes what is pending and closes the file. The event loop must
// have stopped: nothing may be recorded after it.
func (w *appliedLogWriter) Close() error {
	close(w.stop)
	<-w.done
	if err := w.f.Close(); err != nil && w.err == nil {
		w.err = fmt.Errorf("applied log %s: %w", w.path, err)
	}
	return w.err
}

// recordExecuted is the core's Executed callback: it hands an executed
// entry to the applied-log writer (check mode only); it runs on the event
// loop. Sessions are named by their client id in hex, as the clients'
// histories name them.
func (s *server) recordExecuted(e *wire.Entry, res kvs.Result) {
	s.metrics.executedOne(e)
	if s.applied != nil {
		s.applied.record(e, res)
	}
}

// recordSnapshot writes the applied log's snapshot marker: the replica
// installed a snapshot of the slots up to slot instead of executing them.
// Whatever installs a snapshot in the core calls it (through a callback
// like Executed), on the event loop, before executing any entry above
// slot.
func (s *server) recordSnapshot(slot kvs.Slot) {
	if s.applied != nil {
		s.applied.snapshot(slot)
	}
}
