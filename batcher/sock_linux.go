package batcher

import (
	"net"
	"os"
	"syscall"
	"time"
	"unsafe"
)

// sockWriter writes batches straight to a socket's descriptor. The
// descriptor is non-blocking, so a write never waits in the kernel: it
// copies what fits and returns, or says EAGAIN. That lets it skip the
// runtime's system-call bookkeeping (entersyscall), which on a busy
// process wakes the runtime's monitor thread (sysmon) from its sleep at
// almost every first call after an idle moment, and lets that thread take
// the processor away from a write it thinks is blocked: on a loaded
// 2-core machine, a tenth of all CPU. The write deadline is set only when
// the socket is full and the writer has to wait, not before every batch.
type sockWriter struct {
	conn  net.Conn
	raw   syscall.RawConn
	count writeCounter // nil when the connection does not count writes
	// The state of the write in progress, kept here rather than captured
	// by a closure, which would cost allocations on every batch.
	p     []byte
	n     int
	wait  bool
	errno syscall.Errno
	fn    func(fd uintptr) bool // w.writeSome, bound once
}

// writeCounter is a connection that counts its writes (cost's counting
// connection): told of every write made on the descriptor.
type writeCounter interface {
	CountWrite()
}

// newSockWriter returns a sockWriter for conn, or nil when conn is not a
// socket of this process (a TLS connection, a pipe).
func newSockWriter(conn net.Conn) *sockWriter {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	w := &sockWriter{conn: conn, raw: raw}
	w.count, _ = conn.(writeCounter)
	w.fn = w.writeSome
	return w
}

// write writes all of p, waiting at most timeout for room in the socket.
func (w *sockWriter) write(p []byte, timeout time.Duration) (int, error) {
	w.p, w.n, w.wait, w.errno = p, 0, false, 0
	defer func() { w.p = nil }()
	for {
		err := w.raw.Write(w.fn)
		switch {
		case err != nil:
			return w.n, err
		case w.errno != 0:
			return w.n, os.NewSyscallError("write", w.errno)
		case w.n == len(p):
			if w.wait {
				// A later wait sets its own; an expired one would fail
				// the next write before it starts.
				err = w.conn.SetWriteDeadline(time.Time{})
			}
			return w.n, err
		}
		if err := w.conn.SetWriteDeadline(time.Now().Add(timeout)); err != nil {
			return w.n, err
		}
		w.wait = true
	}
}

// writeSome writes what the socket takes of the rest of w.p. It returns
// false, to wait for room, only once a deadline is set.
func (w *sockWriter) writeSome(fd uintptr) bool {
	for w.n < len(w.p) {
		m, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&w.p[w.n])), uintptr(len(w.p)-w.n))
		if w.count != nil {
			w.count.CountWrite()
		}
		switch e {
		case 0:
			w.n += int(m)
		case syscall.EINTR:
		case syscall.EAGAIN:
			return !w.wait
		default:
			w.errno = e
			return true
		}
	}
	return true
}
