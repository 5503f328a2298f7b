package bench

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"swiftpaxos/check"
	"swiftpaxos/client"
	"swiftpaxos/wire"
)

// journal is a client process's history written as it goes (-journal,
// check mode), for a process that may be killed with kill -9 (the
// nemesis's client faults), whose history would otherwise be lost with
// its memory: check.ReadJournal reads it back. Every operation's pending
// record reaches the file, with one write, before the operation is
// handed to its session, so that no operation a replica may execute is
// missing; a completion is written with the next invocation of any
// thread (one write per operation in all), or at the end. Shared by the
// process's threads.
type journal struct {
	mu   sync.Mutex
	f    *os.File
	path string
	buf  []byte // completions not written yet, then the record to write
	err  error  // the first write error: every later invocation fails with it
}

// openJournal creates the journal at path; it must not exist (one file
// per process lifetime, as the histories and applied logs).
func openJournal(path string) (*journal, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	return &journal{f: f, path: path}, nil
}

// invoked writes op's pending record, and the completions waiting, before
// op is sent. An error stops the thread: an operation sent unrecorded
// would make a kill's history lie.
func (j *journal) invoked(op check.Op) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return j.err
	}
	j.buf = check.AppendOp(j.buf, op)
	if _, err := j.f.Write(j.buf); err != nil {
		j.err = fmt.Errorf("journal %s: %w", j.path, err)
		return j.err
	}
	j.buf = j.buf[:0]
	return nil
}

// completed keeps op's final record for the next write.
func (j *journal) completed(op check.Op) {
	j.mu.Lock()
	j.buf = check.AppendOp(j.buf, op)
	j.mu.Unlock()
}

// close writes what waits and closes the file; with done (the history
// file was written) it removes the journal, which says nothing more. A
// second close does nothing.
func (j *journal) close(done bool) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	defer func() { j.f = nil }()
	var err error
	if len(j.buf) > 0 && j.err == nil {
		_, err = j.f.Write(j.buf)
	}
	err = errors.Join(err, j.f.Close())
	if done && err == nil {
		err = os.Remove(j.path)
	}
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	return nil
}

// journaled wraps a thread's recorder so that its records also go to j:
// the pending one before the operation is sent (the loop's Invoked), the
// final one as it completes (Record).
func journaled(h *historyRecorder, j *journal) (invoked func(wire.Seq, client.Op, int64) error, record func(wire.Seq, client.Op, int64, int64, client.Result, bool)) {
	invoked = func(seq wire.Seq, op client.Op, invokeNS int64) error {
		rec, ok := h.op(seq, op, invokeNS, 0, client.Result{}, false)
		if !ok {
			return nil
		}
		return j.invoked(rec)
	}
	record = func(seq wire.Seq, op client.Op, invokeNS, returnNS int64, r client.Result, ok bool) {
		if rec, keep := h.op(seq, op, invokeNS, returnNS, r, ok); keep {
			h.ops = append(h.ops, rec)
			j.completed(rec)
		}
	}
	return invoked, record
}
