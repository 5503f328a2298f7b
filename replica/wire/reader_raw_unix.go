//go:build unix

package wire

import (
	"io"
	"os"
	"syscall"
)

// eachRaw is Each on a socket's descriptor. It relies on the runtime's
// poller being edge-triggered: every arrival of data marks the socket
// ready, whether or not a goroutine waits. A read that returns less than
// it asked for has emptied the socket, so whatever comes after it marks
// the socket ready again and the wait cannot miss it. A read that fills
// the buffer may have left more behind, so the next read follows at once.
// All of it runs inside one RawConn.Read, because each new call forgets a
// readiness that arrived before it.
func (r *Reader) eachRaw(raw syscall.RawConn, fn func(Message, bool) error) error {
	counter, _ := r.src.(ReadCounter)
	var ferr error
	for r.err == nil && ferr == nil {
		if ferr = r.deliver(fn); ferr != nil || r.err != nil {
			break
		}
		rerr := raw.Read(func(fd uintptr) bool {
			for {
				r.room()
				space := len(r.buf) - r.tail
				n, err := syscall.Read(int(fd), r.buf[r.tail:])
				if counter != nil {
					counter.CountRead()
				}
				switch {
				case err == syscall.EINTR:
					continue
				case err == syscall.EAGAIN:
					return false
				case err != nil:
					r.fail(os.NewSyscallError("read", err))
					return true
				case n == 0:
					r.fail(io.EOF)
					return true
				}
				r.tail += n
				if ferr = r.deliver(fn); ferr != nil || r.err != nil {
					return true
				}
				if n < space {
					return false
				}
			}
		})
		if rerr != nil && r.err == nil {
			r.err = rerr
		}
	}
	if ferr != nil {
		return ferr
	}
	return r.err
}
