package resp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Limits bound what one command may make the parser hold, as Redis's
// proto-max-bulk-len, client-query-buffer-limit and its inline and
// multibulk bounds do: a peer that announces more is refused before
// anything of that size is allocated.
type Limits struct {
	// Bulk is the longest argument.
	Bulk int
	// Args is the most arguments a command may have.
	Args int
	// Command is the most bytes all the arguments of one command may
	// take together.
	Command int
	// Inline is the longest inline command line (and the longest
	// header line).
	Inline int
}

// maxArgs is the most arguments a command may have. Redis allows more;
// here each key of a multi-key command becomes an operation held until
// the command's reply, so the bound is lower: a longer MGET or DEL is
// split by the client.
const maxArgs = 1 << 16

// limitsFor are the parser's bounds for a store whose values are at most
// maxValue bytes and keys at most maxKey: room for the longest value with
// its key (so that a value over the limit gets the store's error, not a
// closed connection) and for a command of many keys.
func limitsFor(maxKey, maxValue int) Limits {
	bulk := max(maxValue, maxKey) + 64<<10
	return Limits{Bulk: bulk, Args: maxArgs, Command: 2*bulk + 4<<20, Inline: 64 << 10}
}

// ProtocolError is a request the parser cannot read: the connection is
// answered with it and closed, as Redis does, since what follows cannot
// be framed.
type ProtocolError struct{ Msg string }

func (e *ProtocolError) Error() string { return "Protocol error: " + e.Msg }

func protoErr(format string, args ...any) error {
	return &ProtocolError{Msg: fmt.Sprintf(format, args...)}
}

// parser reads commands from a connection: a multibulk array of bulk
// strings (what every client library sends) or an inline line of
// space-separated words (what a person types into telnet).
type parser struct {
	r   *bufio.Reader
	lim Limits
	// scratch gathers a command's arguments, which are then copied into
	// one allocation of their exact size; it is kept for the next
	// command unless a large argument grew it.
	scratch []byte
	ends    []int
}

// keepScratch is the largest scratch kept between commands.
const keepScratch = 64 << 10

func newParser(r io.Reader, lim Limits) *parser {
	return &parser{r: bufio.NewReaderSize(r, 16<<10), lim: lim}
}

// next reads one command: its arguments, which share one allocation of
// their own (the caller keeps them). An empty inline line is skipped, as
// Redis does.
func (p *parser) next() ([][]byte, error) {
	for {
		b, err := p.r.Peek(1)
		if err != nil {
			return nil, err
		}
		if b[0] == '*' {
			args, err := p.multibulk()
			if err != nil || len(args) > 0 {
				return args, err
			}
			continue // "*0": nothing to run, as Redis
		}
		args, err := p.inline()
		if err != nil || len(args) > 0 {
			return args, err
		}
	}
}

// buffered says whether a whole or partial command is already read: the
// connection then holds its replies back, to write them together.
func (p *parser) buffered() bool { return p.r.Buffered() > 0 }

// line reads up to CRLF (or a bare LF, as Redis accepts inline) without
// the line end. The result is valid until the next read.
func (p *parser) line() ([]byte, error) {
	b, err := p.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		// Longer than the buffer: gather it up to the inline bound.
		acc := append([]byte(nil), b...)
		for err == bufio.ErrBufferFull {
			if len(acc) > p.lim.Inline {
				return nil, protoErr("too big inline request")
			}
			b, err = p.r.ReadSlice('\n')
			acc = append(acc, b...)
		}
		b = acc
	}
	if err != nil {
		if err == io.EOF && len(b) > 0 {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	if len(b) > p.lim.Inline+2 {
		return nil, protoErr("too big inline request")
	}
	b = b[:len(b)-1]
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b, nil
}

// header reads a "<prefix><integer>" line.
func (p *parser) header(prefix byte, what string) (int, error) {
	b, err := p.line()
	if err != nil {
		return 0, err
	}
	if len(b) < 2 || b[0] != prefix {
		return 0, protoErr("expected '%c', got '%s'", prefix, clip(b))
	}
	n, err := strconv.ParseInt(string(b[1:]), 10, 64)
	if err != nil {
		return 0, protoErr("invalid %s length", what)
	}
	if n < 0 {
		// A null array or bulk is not a command.
		return 0, protoErr("invalid %s length", what)
	}
	if n > int64(^uint(0)>>1) {
		return 0, protoErr("invalid %s length", what)
	}
	return int(n), nil
}

func (p *parser) multibulk() ([][]byte, error) {
	n, err := p.header('*', "multibulk")
	if err != nil {
		return nil, err
	}
	if n > p.lim.Args {
		return nil, protoErr("invalid multibulk length")
	}
	if n == 0 {
		return nil, nil
	}
	// Gathered as arguments arrive, never sized from the announced
	// count: a header alone costs nothing.
	buf, ends := p.scratch[:0], p.ends[:0]
	for range n {
		size, err := p.header('$', "bulk")
		if err != nil {
			return nil, err
		}
		if size > p.lim.Bulk {
			return nil, protoErr("invalid bulk length")
		}
		if len(buf)+size > p.lim.Command {
			return nil, protoErr("command of more than %d bytes", p.lim.Command)
		}
		start := len(buf)
		buf = append(buf, make([]byte, size+2)...)[:start+size+2]
		if _, err := io.ReadFull(p.r, buf[start:]); err != nil {
			return nil, unexpected(err)
		}
		if buf[start+size] != '\r' || buf[start+size+1] != '\n' {
			return nil, protoErr("bulk string not followed by CRLF")
		}
		buf = buf[:start+size]
		ends = append(ends, len(buf))
	}
	if cap(buf) <= keepScratch && cap(ends) <= keepScratch/8 {
		p.scratch, p.ends = buf, ends
	}
	owned := make([]byte, len(buf))
	copy(owned, buf)
	args := make([][]byte, len(ends))
	from := 0
	for i, e := range ends {
		args[i] = owned[from:e:e]
		from = e
	}
	return args, nil
}

// inline splits a line into words as redis-cli and Redis do: spaces
// separate them, double quotes hold spaces and the escapes \n \r \t \b \a
// \\ \" and \xHH, single quotes hold spaces and \'.
func (p *parser) inline() ([][]byte, error) {
	b, err := p.line()
	if err != nil {
		return nil, err
	}
	args, err := splitInline(b)
	if err != nil {
		return nil, err
	}
	// The line's bound keeps an inline command within the other bounds
	// only while Inline is the smallest of them; checking them here keeps
	// Limits true of every command whatever the bounds are.
	if len(args) > p.lim.Args {
		return nil, protoErr("too many arguments in inline request")
	}
	total := 0
	for _, a := range args {
		if len(a) > p.lim.Bulk {
			return nil, protoErr("too big argument in inline request")
		}
		total += len(a)
	}
	if total > p.lim.Command {
		return nil, protoErr("command of more than %d bytes", p.lim.Command)
	}
	return args, nil
}

var errUnbalanced = protoErr("unbalanced quotes in request")

func splitInline(b []byte) ([][]byte, error) {
	var args [][]byte
	for {
		b = bytes.TrimLeft(b, " \t")
		if len(b) == 0 {
			return args, nil
		}
		var word []byte
		var err error
		switch b[0] {
		case '"':
			word, b, err = doubleQuoted(b[1:])
		case '\'':
			word, b, err = singleQuoted(b[1:])
		default:
			i := bytes.IndexAny(b, " \t")
			if i < 0 {
				i = len(b)
			}
			word, b = append([]byte(nil), b[:i]...), b[i:]
		}
		if err != nil {
			return nil, err
		}
		args = append(args, word)
	}
}

func doubleQuoted(b []byte) (word, rest []byte, err error) {
	word = []byte{}
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			if i+1 < len(b) && b[i+1] != ' ' && b[i+1] != '\t' {
				return nil, nil, errUnbalanced // a closing quote must end the word
			}
			return word, b[i+1:], nil
		case c == '\\' && i+3 < len(b) && b[i+1] == 'x' && isHex(b[i+2]) && isHex(b[i+3]):
			v, _ := strconv.ParseUint(string(b[i+2:i+4]), 16, 8)
			word = append(word, byte(v))
			i += 3
		case c == '\\' && i+1 < len(b):
			i++
			word = append(word, unescape(b[i]))
		default:
			word = append(word, c)
		}
	}
	return nil, nil, errUnbalanced
}

func singleQuoted(b []byte) (word, rest []byte, err error) {
	word = []byte{}
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '\'':
			if i+1 < len(b) && b[i+1] != ' ' && b[i+1] != '\t' {
				return nil, nil, errUnbalanced
			}
			return word, b[i+1:], nil
		case c == '\\' && i+1 < len(b) && b[i+1] == '\'':
			word = append(word, '\'')
			i++
		default:
			word = append(word, c)
		}
	}
	return nil, nil, errUnbalanced
}

func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'b':
		return '\b'
	case 'a':
		return '\a'
	}
	return c
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// unexpected makes an end of stream inside a command an unexpected one.
func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// clip shortens what a protocol error quotes back.
func clip(b []byte) string {
	const n = 32
	if len(b) > n {
		b = b[:n]
	}
	q := strconv.Quote(string(b))
	return q[1 : len(q)-1]
}
