package wire

import "syscall"

// Each calls fn for every message until the stream fails or fn returns an
// error, and returns that error (the stream's, as Next reports it). last
// is true when no other whole frame has arrived: the caller hands on what
// it gathered.
//
// When the source is a socket on Linux (it implements syscall.Conn, as *net.TCPConn
// and cost's counting connection do), Each reads on its descriptor: after
// a read that leaves the socket empty it waits for more to arrive instead
// of reading again only to be told that nothing has. That second read was
// one system call in three on a busy deployment. Other sources (TLS, pipes)
// are read with Next.
func (r *Reader) Each(fn func(m Message, last bool) error) error {
	if sc, ok := r.src.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			return r.eachRaw(raw, fn)
		}
	}
	return r.eachPull(fn)
}

// eachPull is Each with Next.
func (r *Reader) eachPull(fn func(Message, bool) error) error {
	for {
		m, err := r.Next()
		if err != nil {
			return err
		}
		if err := fn(m, !r.Buffered()); err != nil {
			return err
		}
	}
}

// ReadCounter is implemented by a source that counts its read calls; Each
// tells it of every read it makes on the descriptor.
type ReadCounter interface {
	CountRead()
}

// deliver hands fn every whole frame that has arrived. It returns fn's
// error; the stream's is left in r.err.
func (r *Reader) deliver(fn func(Message, bool) error) error {
	for {
		m, ok := r.take()
		if !ok {
			return nil
		}
		if err := fn(m, !r.Buffered()); err != nil {
			return err
		}
	}
}
