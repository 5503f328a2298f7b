package wire

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
)

const (
	// readBufSize is the bufio buffer of a Reader: large enough that a batch
	// of small frames costs one read system call.
	readBufSize = 16 << 10
	// growStep is how far a Reader grows its frame buffer ahead of the bytes
	// that have arrived, so that a peer announcing a huge frame and sending
	// little cannot make it allocate much.
	growStep = 64 << 10
	// keepBuf is the largest frame buffer a Reader keeps between frames; a
	// rare huge frame does not pin its buffer for the life of the connection.
	keepBuf = 1 << 20
)

// Reader reads frames from a stream and decodes them. It reads through a
// bufio.Reader into one frame buffer that it reuses, so in steady state Next
// allocates only the decoded message. A Reader belongs to one goroutine.
type Reader struct {
	br   *bufio.Reader
	max  int
	hdr  [frameHeader]byte
	body []byte
	err  error
}

// NewReader returns a Reader of frames from r that rejects frames whose body
// is longer than maxFrame bytes. maxFrame <= 0 or above MaxFrame means
// MaxFrame.
func NewReader(r io.Reader, maxFrame int) *Reader {
	if maxFrame <= 0 || maxFrame > MaxFrame {
		maxFrame = MaxFrame
	}
	return &Reader{br: bufio.NewReaderSize(r, readBufSize), max: maxFrame}
}

// Next returns the next message. It returns io.EOF if the stream ends
// cleanly between frames, io.ErrUnexpectedEOF if it ends inside one, an error
// wrapping ErrMalformed for a frame that is too long, has an unknown type or
// does not decode, and otherwise the error of the underlying reader. Errors
// are sticky: once Next fails, it keeps returning the same error.
func (r *Reader) Next() (Message, error) {
	if r.err != nil {
		return nil, r.err
	}
	m, err := r.next()
	if err != nil {
		r.err = err
		return nil, err
	}
	return m, nil
}

// Buffered reports whether Next can return without reading from the
// stream: a whole frame has arrived (or Next would fail at once). A reader
// goroutine uses it to hand on every message that one read brought in a
// single batch.
func (r *Reader) Buffered() bool {
	if r.err != nil {
		return true
	}
	have := r.br.Buffered()
	if have < frameHeader {
		return false
	}
	hdr, err := r.br.Peek(frameHeader)
	if err != nil {
		return false
	}
	return uint64(have) >= uint64(frameHeader)+uint64(binary.LittleEndian.Uint32(hdr))
}

func (r *Reader) next() (Message, error) {
	if _, err := io.ReadFull(r.br, r.hdr[:]); err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint32(r.hdr[:4])
	t := MsgType(r.hdr[4])
	if !t.Valid() {
		return nil, fmt.Errorf("%w: unknown message type %d", ErrMalformed, uint8(t))
	}
	if uint64(n) > uint64(r.max) {
		return nil, fmt.Errorf("%w: %v frame body of %d bytes exceeds the limit of %d",
			ErrMalformed, t, n, r.max)
	}
	body, err := r.readBody(int(n))
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	m, err := Decode(t, body)
	if cap(r.body) > keepBuf {
		r.body = nil
	}
	return m, err
}

// readBody reads n bytes into the reused frame buffer. If the buffer is too
// small it grows at most growStep bytes ahead of the data received.
func (r *Reader) readBody(n int) ([]byte, error) {
	if n <= cap(r.body) {
		r.body = r.body[:n]
		_, err := io.ReadFull(r.br, r.body)
		return r.body, err
	}
	r.body = r.body[:0]
	for len(r.body) < n {
		have := len(r.body)
		step := min(n-have, growStep)
		r.body = slices.Grow(r.body, step)[:have+step]
		if _, err := io.ReadFull(r.br, r.body[have:]); err != nil {
			return nil, err
		}
	}
	return r.body, nil
}
