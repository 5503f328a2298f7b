package wire

import (
	"encoding/binary"
	"fmt"
	"io"
)

const (
	// readBufSize is the buffer a Reader reads into: large enough that a
	// batch of small frames costs one read system call.
	readBufSize = 16 << 10
	// growStep is how far a Reader grows its buffer ahead of the bytes that
	// have arrived, so that a peer announcing a huge frame and sending
	// little cannot make it allocate much.
	growStep = 64 << 10
	// keepBuf is the largest buffer a Reader keeps once it is empty; a rare
	// huge frame does not pin its buffer for the life of the connection.
	keepBuf = 1 << 20
)

// Reader reads frames from a stream and decodes them. It reads into one
// buffer that it reuses and decodes each frame where it lies (a decoded
// message never aliases it), so in steady state it allocates only the
// decoded messages. A Reader belongs to one goroutine.
//
// Next pulls one message at a time. Each pushes every message to a
// function and, on a socket, runs its whole read loop on the descriptor
// (reader_raw.go): then a read that empties the socket is followed by a
// wait, not by a second read that would only say there is nothing more.
type Reader struct {
	src        io.Reader
	max        int
	buf        []byte
	head, tail int // buf[head:tail] has arrived and is not yet consumed
	err        error
}

// NewReader returns a Reader of frames from r that rejects frames whose body
// is longer than maxFrame bytes. maxFrame <= 0 or above MaxFrame means
// MaxFrame.
func NewReader(r io.Reader, maxFrame int) *Reader {
	if maxFrame <= 0 || maxFrame > MaxFrame {
		maxFrame = MaxFrame
	}
	return &Reader{src: r, max: maxFrame}
}

// Next returns the next message. It returns io.EOF if the stream ends
// cleanly between frames, io.ErrUnexpectedEOF if it ends inside one, an error
// wrapping ErrMalformed for a frame that is too long, has an unknown type or
// does not decode, and otherwise the error of the underlying reader. Errors
// are sticky: once Next fails, it keeps returning the same error.
func (r *Reader) Next() (Message, error) {
	empty := 0
	for r.err == nil {
		if m, ok := r.take(); ok {
			return m, nil
		}
		if r.err != nil {
			break
		}
		r.room()
		n, err := r.src.Read(r.buf[r.tail:])
		r.tail += n
		switch {
		case err != nil && n == 0:
			r.fail(err)
		case n > 0:
			empty = 0
		default:
			if empty++; empty >= maxEmptyReads {
				r.err = io.ErrNoProgress
			}
		}
	}
	return nil, r.err
}

// maxEmptyReads is how many reads in a row may return nothing and no
// error before the source is taken as broken, as bufio does.
const maxEmptyReads = 100

// Buffered reports whether Next can return without reading from the
// stream: a whole frame has arrived (or Next would fail at once). A reader
// goroutine uses it to hand on every message that one read brought in a
// single batch.
func (r *Reader) Buffered() bool {
	if r.err != nil {
		return true
	}
	n, ok := r.frameLen()
	return ok && r.tail-r.head >= n
}

// frameLen is the length, header included, of the frame at head, once its
// header has arrived.
func (r *Reader) frameLen() (int, bool) {
	if r.tail-r.head < frameHeader {
		return 0, false
	}
	return frameHeader + int(binary.LittleEndian.Uint32(r.buf[r.head:])), true
}

// take decodes the frame at head if it has arrived whole. A header that
// announces an unknown type or a body over the limit fails the Reader as
// soon as it arrives, before its body is waited for.
func (r *Reader) take() (Message, bool) {
	if r.tail-r.head < frameHeader {
		return nil, false
	}
	hdr := r.buf[r.head : r.head+frameHeader]
	n := binary.LittleEndian.Uint32(hdr)
	t := MsgType(hdr[4])
	if !t.Valid() {
		r.err = fmt.Errorf("%w: unknown message type %d", ErrMalformed, uint8(t))
		return nil, false
	}
	if uint64(n) > uint64(r.max) {
		r.err = fmt.Errorf("%w: %v frame body of %d bytes exceeds the limit of %d",
			ErrMalformed, t, n, r.max)
		return nil, false
	}
	end := r.head + frameHeader + int(n)
	if end > r.tail {
		return nil, false
	}
	m, err := Decode(t, r.buf[r.head+frameHeader:end])
	if err != nil {
		r.err = err
		return nil, false
	}
	r.head = end
	return m, true
}

// room makes space at the buffer's end for the next read: it moves what
// is left of a partial frame to the front and grows the buffer towards the
// frame's length, at most growStep ahead of the bytes that have arrived.
// An empty buffer larger than keepBuf is released.
func (r *Reader) room() {
	have := r.tail - r.head
	if have == 0 {
		r.head, r.tail = 0, 0
		if cap(r.buf) > keepBuf {
			r.buf = nil
		}
	}
	if r.buf == nil {
		r.buf = make([]byte, readBufSize)
	}
	need := frameHeader
	if n, ok := r.frameLen(); ok {
		need = n
	}
	if r.head+need <= len(r.buf) && r.tail < len(r.buf) {
		return
	}
	size := len(r.buf)
	if need > size {
		size = max(min(need, have+growStep), readBufSize)
	}
	if size != len(r.buf) {
		b := make([]byte, size)
		copy(b, r.buf[r.head:r.tail])
		r.buf = b
	} else {
		copy(r.buf, r.buf[r.head:r.tail])
	}
	r.head, r.tail = 0, have
}

// fail records the error that ended the stream: io.EOF inside a frame is
// io.ErrUnexpectedEOF.
func (r *Reader) fail(err error) {
	if err == io.EOF && r.tail > r.head {
		err = io.ErrUnexpectedEOF
	}
	r.err = err
}
