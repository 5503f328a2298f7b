package kvcli

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func collect(t *testing.T, in string) []line {
	t.Helper()
	var got []line
	require.NoError(t, readLines(strings.NewReader(in), testMaxLine, func(l line) bool { got = append(got, l); return true }))
	return got
}

// Lines are numbered from 1, lose their ending (\n or \r\n), and a last
// line without a newline counts.
func TestReadLinesNumbersLines(t *testing.T) {
	assert.Equal(t, []line{{n: 1, text: "get 1"}, {n: 2, text: ""}, {n: 3, text: "put 2 two"}, {n: 4, text: "scan 0 5"}},
		collect(t, "get 1\n\nput 2 two\r\nscan 0 5"))
	assert.Empty(t, collect(t, ""))
}

// testMaxLine is the line limit of the tests of readLines.
const testMaxLine = 100_000

// A line over the limit costs that line only: it is handed on as long, with
// its length, and the lines after it are read (bufio.Scanner stopped the
// whole script at it). A line of exactly the limit is a line.
func TestReadLinesOverLongLine(t *testing.T) {
	long := "put 3 " + strings.Repeat("v", 200_000)
	edge := strings.Repeat("w", testMaxLine)
	got := collect(t, "get 1\n"+long+"\n"+edge+"\nget 2\n"+long)
	require.Len(t, got, 5)
	assert.Equal(t, line{n: 1, text: "get 1"}, got[0])
	assert.Equal(t, line{n: 2, long: len(long)}, got[1])
	assert.Equal(t, line{n: 3, text: edge}, got[2])
	assert.Equal(t, line{n: 4, text: "get 2"}, got[3])
	assert.Equal(t, line{n: 5, long: len(long)}, got[4], "without a newline at the end")
}

// A read error ends the reading and is returned; a caller that stops
// ends it without one.
func TestReadLinesErrorAndStop(t *testing.T) {
	boom := errors.New("boom")
	n := 0
	err := readLines(iotest.TimeoutReader(strings.NewReader("get 1\n")), testMaxLine, func(line) bool { n++; return true })
	assert.ErrorIs(t, err, iotest.ErrTimeout)
	assert.Equal(t, 1, n, "the line before the error")
	err = readLines(iotest.ErrReader(boom), testMaxLine, func(line) bool { return true })
	assert.ErrorIs(t, err, boom)
	n = 0
	require.NoError(t, readLines(strings.NewReader("a\nb\nc\n"), testMaxLine, func(line) bool { n++; return false }))
	assert.Equal(t, 1, n)
}
