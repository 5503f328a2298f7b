package kvcli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"swiftpaxos/kvs"
)

// maxLine bounds a line of standard input under the cluster's limits l:
// room for any legal command, whose values (two for a CAS) and key may
// each be written with \xNN escapes, four bytes a byte, with its words
// and blanks.
func maxLine(l kvs.Limits) int { return 4*(2*l.MaxValue+l.MaxKey) + 1024 }

// line is one line of standard input: its number (from 1) and its text
// without the line ending, or, for a line longer than the limit, its
// length and no text.
type line struct {
	n    int
	text string
	long int // the length of a line over maxLine; 0 for others
}

// readLines calls yield with each line of in until yield returns false or
// in ends, and returns the error that ended the reading (nil at the end
// of in). A line over maxLine bytes is read to its end and handed on as
// long, so that it costs its own line, not the rest of the script.
func readLines(in io.Reader, maxLine int, yield func(line) bool) error {
	br := bufio.NewReaderSize(in, 64<<10)
	var buf []byte
	for n := 1; ; n++ {
		buf = buf[:0]
		length := 0
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			length += len(chunk)
			if len(buf) <= maxLine {
				buf = append(buf, chunk...)
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if length == 0 { // the end of in
			return nil
		}
		if err == nil {
			length-- // the newline
		}
		l := line{n: n}
		if length > maxLine {
			l.long = length
		} else {
			l.text = string(bytes.TrimSuffix(bytes.TrimSuffix(buf, []byte("\n")), []byte("\r")))
		}
		if !yield(l) || err != nil {
			return nil
		}
	}
}

// lines runs every command of o.In and returns the exit status: a
// script's worst line; a person's OK at quit or the end of In.
func (r *runner) lines(ctx context.Context) int {
	worst := OK
	// Lines are read on a goroutine of their own, so that an interrupt
	// ends a run that waits for input.
	lines := make(chan line)
	var readErr error
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(lines)
		readErr = readLines(r.o.In, maxLine(r.limits), func(l line) bool { // read once lines is closed
			select {
			case lines <- l:
				return true
			case <-stop:
				return false
			}
		})
	}()
	last := 0
	for {
		r.at = 0
		if r.o.Interactive {
			fmt.Fprint(r.o.Out, "kv> ")
		}
		var l line
		var ok bool
		select {
		case l, ok = <-lines:
		case <-ctx.Done():
			r.errorf("interrupted")
			return max(r.ended(worst), NotFound)
		}
		if !ok {
			if r.o.Interactive {
				fmt.Fprintln(r.o.Out)
			}
			if readErr != nil {
				r.errorf("reading commands after line %d: %v", last, readErr)
				return max(r.ended(worst), NotFound)
			}
			return r.ended(worst)
		}
		r.at, last = l.n, l.n
		if l.long > 0 {
			r.errorf("a line of %d bytes, over the limit of %d: no command needs that much", l.long, maxLine(r.limits))
			worst = max(worst, Usage)
			continue
		}
		words, err := splitLine(l.text)
		if err != nil {
			r.errorf("%v", err)
			worst = max(worst, Usage)
			continue
		}
		if len(words) == 0 || strings.HasPrefix(words[0].raw, "#") {
			continue
		}
		switch words[0].raw {
		case "quit", "exit":
			return r.ended(worst)
		case "help":
			fmt.Fprintln(r.o.Out, usage)
			continue
		}
		c, err := parse(words, r.o.Level, r.limits)
		if err != nil {
			r.errorf("%v", err)
			worst = max(worst, Usage)
			continue
		}
		if r.s == nil {
			if err := r.dial(ctx); err != nil {
				worst = max(worst, NotFound)
				continue
			}
		}
		worst = max(worst, r.do(ctx, c))
	}
}

// ended is the exit status of a run of standard input that ends with
// worst its worst line: a person at a terminal saw each error as it came,
// so, as with redis-cli, the session itself went well.
func (r *runner) ended(worst int) int {
	if r.o.Interactive {
		return OK
	}
	return worst
}
