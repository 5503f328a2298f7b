package disk

import "os"

// pacedBytes is how much of a snapshot file is written between two
// writebacks. The log's fsyncs share the disk with a snapshot being
// written: a snapshot left to the page cache reaches the disk all at
// once, at its fsync or when the kernel decides, and a log fsync issued
// then waits behind megabytes of it. Written back a range at a time, a
// log fsync waits behind about two ranges at most (on Linux; elsewhere
// nothing is paced).
const pacedBytes = 1 << 20

// pacedWriter writes to f and, every pacedBytes or so, has writeback
// start writing what it wrote since to disk and wait for the range it
// started before. The file's fsync, after the last write, is still what
// makes it durable; writeback's error is returned because the wait
// consumes it: the fsync on the same file would not report it again.
type pacedWriter struct {
	f       *os.File
	written int64 // bytes written to f
	started int64 // bytes whose writeback was started
	prev    int64 // where the range started last begins
	// writeback is the platform's (paced_linux.go, paced_other.go); a test
	// records the calls instead.
	writeback func(f *os.File, prev, off, n int64) error
}

func newPacedWriter(f *os.File) *pacedWriter {
	return &pacedWriter{f: f, writeback: writeback}
}

func (w *pacedWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.written += int64(n)
	if err == nil && w.written-w.started >= pacedBytes {
		err = w.writeback(w.f, w.prev, w.started, w.written-w.started)
		w.prev, w.started = w.started, w.written
	}
	return n, err
}
