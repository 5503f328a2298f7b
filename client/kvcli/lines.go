package kvcli

import (
	"bufio"
	"bytes"
	"errors"
	"io"

	"swiftpaxos/kvs"
)

// maxLine bounds a line of standard input: twice the longest value, room
// for any legal command (a put's value is shorter than kvs.MaxValueLen)
// with its words and blanks.
const maxLine = 2 * kvs.MaxValueLen

// line is one line of standard input: its number (from 1) and its text
// without the line ending, or, for a line longer than maxLine, its length
// and no text.
type line struct {
	n    int
	text string
	long int // the length of a line over maxLine; 0 for others
}

// readLines calls yield with each line of in until yield returns false or
// in ends, and returns the error that ended the reading (nil at the end
// of in). A line over maxLine is read to its end and handed on as long,
// so that it costs its own line, not the rest of the script.
func readLines(in io.Reader, yield func(line) bool) error {
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
