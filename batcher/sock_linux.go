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
	return w
}

// write writes all of p, waiting at most timeout for room in the socket.
func (w *sockWriter) write(p []byte, timeout time.Duration) (int, error) {
	n, wait := 0, false
	var errno syscall.Errno
	for {
		err := w.raw.Write(func(fd uintptr) bool {
			for n < len(p) {
				m, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[n])), uintptr(len(p)-n))
				if w.count != nil {
					w.count.CountWrite()
				}
				switch e {
				case 0:
					n += int(m)
				case syscall.EINTR:
				case syscall.EAGAIN:
					// Full: wait for room, once the deadline is set.
					return !wait
				default:
					errno = e
					return true
				}
			}
			return true
		})
		switch {
		case err != nil:
			return n, err
		case errno != 0:
			return n, os.NewSyscallError("write", errno)
		case n == len(p):
			if wait {
				// A later wait sets its own; an expired one would fail
				// the next write before it starts.
				err = w.conn.SetWriteDeadline(time.Time{})
			}
			return n, err
		}
		if err := w.conn.SetWriteDeadline(time.Now().Add(timeout)); err != nil {
			return n, err
		}
		wait = true
	}
}
