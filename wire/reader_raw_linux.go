package wire

import (
	"io"
	"os"
	"syscall"
	"unsafe"
)

// eachRaw is Each on a socket's descriptor. It reads until the socket
// says EAGAIN and then waits for the poller; all of it runs inside one
// RawConn.Read, because each new call forgets a readiness that arrived
// before it. A read that returns less than it asked for does not prove
// the socket empty: the peer's FIN, or a reset, may wait behind the data
// it returned, and no new readiness would ever announce it, so the read
// that says EAGAIN (or 0, or the error) is kept. The reads are raw system
// calls: on a non-blocking descriptor they never wait, so the runtime's
// bookkeeping for calls that may block is not needed, and skipping it
// keeps the runtime's monitor thread asleep (see batcher's sockWriter).
func (r *Reader) eachRaw(raw syscall.RawConn, add func(Message, bool) error, flush func() error) error {
	counter, _ := r.src.(ReadCounter)
	var ferr error
	for r.err == nil && (ferr == nil || ferr == ErrBusy) {
		if ferr == ErrBusy {
			if ferr = flush(); ferr != nil {
				break
			}
		}
		if ferr = r.deliver(add); ferr != nil || r.err != nil {
			continue
		}
		rerr := raw.Read(func(fd uintptr) bool {
			for {
				r.room()
				space := len(r.buf) - r.tail
				m, _, errno := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&r.buf[r.tail])), uintptr(space))
				if counter != nil {
					counter.CountRead()
				}
				n := int(m)
				switch {
				case errno == syscall.EINTR:
					continue
				case errno == syscall.EAGAIN:
					return false
				case errno != 0:
					r.fail(os.NewSyscallError("read", errno))
					return true
				case n == 0:
					r.fail(io.EOF)
					return true
				}
				r.tail += n
				if ferr = r.deliver(add); ferr != nil || r.err != nil {
					return true // ErrBusy: flush away from the lock
				}
			}
		})
		if rerr != nil && r.err == nil {
			r.err = rerr
		}
	}
	if ferr == ErrBusy {
		ferr = flush()
	}
	if ferr != nil {
		return ferr
	}
	return r.err
}
