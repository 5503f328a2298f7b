package wire

import (
	"errors"
	"syscall"
)

// ErrBusy is what an Each add function returns when its batch is complete
// but cannot be handed on without waiting: Each then calls flush, which
// may wait, away from the socket, before it goes on.
var ErrBusy = errors.New("wire: the reader's consumer is busy")

// Each calls add for every message until the stream fails or add or
// flush returns an error (other than ErrBusy), and returns that error
// (the stream's, as Next reports it). last is true when no other whole
// frame has arrived: the caller hands on what it gathered.
//
// add must not block: Each may call it while it holds the socket's read
// lock, and closing the connection waits for that lock (a consumer that
// closes the connection while the reader waits for it would wait for
// ever). When add cannot hand on its batch at once it returns ErrBusy,
// and Each calls flush, where waiting is safe.
//
// When the source is a socket on Linux (it implements syscall.Conn, as
// *net.TCPConn, *net.UnixConn and cost's counting connection do), Each
// reads on its descriptor: after a read that leaves the socket empty it
// waits for more to arrive instead of reading again only to be told that
// nothing has (half of all reads on a busy deployment). Other sources
// (TLS, pipes) are read with Next.
func (r *Reader) Each(add func(m Message, last bool) error, flush func() error) error {
	if sc, ok := r.src.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			return r.eachRaw(raw, add, flush)
		}
	}
	return r.eachPull(add, flush)
}

// eachPull is Each with Next.
func (r *Reader) eachPull(add func(Message, bool) error, flush func() error) error {
	for {
		m, err := r.Next()
		if err != nil {
			return err
		}
		if err := add(m, !r.Buffered()); err == ErrBusy {
			err = flush()
		}
		if err != nil {
			return err
		}
	}
}

// ReadCounter is implemented by a source that counts its read calls; Each
// tells it of every read it makes on the descriptor.
type ReadCounter interface {
	CountRead()
}

// deliver hands add every whole frame that has arrived, until add returns
// an error (ErrBusy included). The stream's error is left in r.err.
func (r *Reader) deliver(add func(Message, bool) error) error {
	for {
		m, ok := r.take()
		if !ok {
			return nil
		}
		if err := add(m, !r.Buffered()); err != nil {
			return err
		}
	}
}
