package disk

import "os"

// pacedBytes is how much of a snapshot file may wait for writeback at
// once. The log's fsyncs share the disk with a snapshot being written: a
// snapshot left to the page cache reaches the disk all at once, at its
// fsync or when the kernel decides, and a log fsync issued then waits
// behind megabytes of it. Written back a range at a time, a log fsync
// waits behind one range at most.
const pacedBytes = 1 << 20

// pacedWriter writes to f and, every pacedBytes, starts the writeback of
// what it wrote since and waits for the writeback of everything before
// (writeback, per platform). The file's fsync, after the last write, is
// still what makes it durable: writeback is a hint whose errors the fsync
// reports again, so they are not returned here.
type pacedWriter struct {
	f       *os.File
	written int64 // bytes written to f
	started int64 // bytes whose writeback was started
}

func (w *pacedWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.written += int64(n)
	if err == nil && w.written-w.started >= pacedBytes {
		writeback(w.f, w.started, w.written-w.started)
		w.started = w.written
	}
	return n, err
}
