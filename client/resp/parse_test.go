package resp

import (
	"errors"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitInline(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string // nil: unbalanced quotes
	}{
		{"PING", []string{"PING"}},
		{"  SET\ta \t b  ", []string{"SET", "a", "b"}},
		{"", []string{}},
		{" \t ", []string{}},
		{`SET a "b c"`, []string{"SET", "a", "b c"}},
		{`SET a 'b c'`, []string{"SET", "a", "b c"}},
		{`"" ''`, []string{"", ""}},
		{`"\x41\x4a\x7e"`, []string{"AJ~"}},
		{`"\x4A\xfF"`, []string{"J\xff"}},
		{`"\xzz\x4"`, []string{"xzzx4"}}, // not two hex digits: \x is x, as in Redis
		{`"\n\r\t\b\a\\\"\q"`, []string{"\n\r\t\b\a\\\"q"}},
		{`'it\'s'`, []string{"it's"}},
		{`'a\nb\\c'`, []string{`a\nb\\c`}}, // single quotes keep backslashes but before '
		{`'a\'`, nil},                      // \' is a quote inside, so none closes
		{`"a b"	'c d'`, []string{"a b", "c d"}},
		{`"a"`, []string{"a"}},
		{`"abc`, nil},
		{`'abc`, nil},
		{`"a"b`, nil}, // a closing quote must end the word
		{`'a'b`, nil},
		{`"abc\"`, nil},
		{`"abc\`, nil},
		{`x "y`, nil},
	} {
		args, err := splitInline([]byte(tc.line))
		if tc.want == nil {
			assert.ErrorIs(t, err, errUnbalanced, "%q", tc.line)
			assert.Nil(t, args)
			continue
		}
		require.NoError(t, err, "%q", tc.line)
		got := []string{}
		for _, a := range args {
			got = append(got, string(a))
		}
		assert.Equal(t, tc.want, got, "%q", tc.line)
	}
}

// readAll reads commands until the parser fails, and returns them with
// the error that ended reading.
func readAll(in string, lim Limits) ([]string, error) {
	p := newParser(strings.NewReader(in), lim)
	var cmds []string
	for {
		args, err := p.next()
		if err != nil {
			return cmds, err
		}
		var words []string
		for _, a := range args {
			words = append(words, string(a))
		}
		cmds = append(cmds, strings.Join(words, " "))
	}
}

func TestParse(t *testing.T) {
	small := Limits{Bulk: 8, Args: 3, Command: 12, Inline: 16}
	real := limitsFor(1024, 1<<20)
	for _, tc := range []struct {
		name, in string
		lim      Limits
		want     []string
		err      string // "": io.EOF ends the input; "EOF": io.ErrUnexpectedEOF
	}{
		{"multibulk", "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", small, []string{"GET k"}, ""},
		{"binary", "*2\r\n$4\r\nECHO\r\n$4\r\n\x00\r\n\xff\r\n", small, []string{"ECHO \x00\r\n\xff"}, ""},
		{"pipeline", "*1\r\n$4\r\nPING\r\nECHO a\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", small, []string{"PING", "ECHO a", "GET k"}, ""},
		{"bare LF", "PING\nSET a b\n*1\n$4\nPING\r\n", small, []string{"PING", "SET a b", "PING"}, ""},
		{"bare LF after a bulk", "*1\r\n$4\r\nPING\n", small, nil, "EOF"},
		{"empty lines skipped", "\r\n\n  \r\nPING\r\n", small, []string{"PING"}, ""},
		{"*0 skipped", "*0\r\nPING\r\n*0\r\n", small, []string{"PING"}, ""},
		{"args at limit", "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n", small, []string{"a b c"}, ""},
		{"bulk at limit", "*1\r\n$8\r\n12345678\r\n", small, []string{"12345678"}, ""},
		{"command at limit", "*2\r\n$6\r\n123456\r\n$6\r\n123456\r\n", small, []string{"123456 123456"}, ""},
		{"too many args", "*4\r\n", small, nil, "invalid multibulk length"},
		{"bulk too long", "*1\r\n$9\r\n", small, nil, "invalid bulk length"},
		{"command too long", "*2\r\n$8\r\n12345678\r\n$5\r\n", small, nil, "command of more than 12 bytes"},
		{"inline too long", strings.Repeat("a", 17) + "\r\n", small, nil, "too big inline request"},
		{"inline past the buffer", strings.Repeat("a", 100<<10), real, nil, "too big inline request"},
		{"inline at limit", strings.Repeat("a", 8) + " " + strings.Repeat("b", 4) + "\r\n", small, []string{"aaaaaaaa bbbb"}, ""},
		{"inline too many args", "a b c d\r\n", small, nil, "too many arguments in inline request"},
		{"inline arg too long", "123456789\r\n", small, nil, "too big argument in inline request"},
		{"inline command too long", "12345678 12345\r\n", Limits{Bulk: 8, Args: 3, Command: 12, Inline: 32}, nil, "command of more than 12 bytes"},
		{"inline unbalanced", "SET a \"b\r\n", small, nil, "unbalanced quotes in request"},
		{"null array", "*-1\r\n", small, nil, "invalid multibulk length"},
		{"null bulk", "*1\r\n$-1\r\n", small, nil, "invalid bulk length"},
		{"not a number", "*x\r\n", small, nil, "invalid multibulk length"},
		{"overflow", "*1\r\n$99999999999999999999\r\n", real, nil, "invalid bulk length"},
		{"not a bulk", "*1\r\n:1\r\n", small, nil, "expected '$', got ':1'"},
		{"no CRLF after bulk", "*1\r\n$4\r\nPINGxx", small, nil, "bulk string not followed by CRLF"},
		{"1 GB bulk", "*2\r\n$3\r\nGET\r\n$1073741824\r\n", real, nil, "invalid bulk length"},
		{"10 million args", "*10000000\r\n", real, nil, "invalid multibulk length"},
		{"truncated bulk", "*2\r\n$3\r\nGET\r\n$5\r\nab", small, nil, "EOF"},
		{"truncated header", "*2\r\n$3", small, nil, "EOF"},
		{"truncated inline", "PING\r\nGET a", small, []string{"PING"}, "EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmds, err := readAll(tc.in, tc.lim)
			assert.Equal(t, tc.want, cmds)
			switch tc.err {
			case "":
				assert.ErrorIs(t, err, io.EOF)
			case "EOF":
				assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
			default:
				var pe *ProtocolError
				require.True(t, errors.As(err, &pe), "%v", err)
				assert.Equal(t, tc.err, pe.Msg)
			}
		})
	}
}

// An array header announces; only the arguments that arrive are
// allocated: a header at the limit followed by one argument costs the
// parser next to nothing (making room for the announced count would take
// 24 MB).
func TestParseArrayHeaderCostsNothing(t *testing.T) {
	lim := limitsFor(1024, 1<<20)
	in := "*" + strconv.Itoa(lim.Args) + "\r\n$1\r\na\r\n"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := readAll(in, lim)
	runtime.ReadMemStats(&after)
	// The input ends where the next header would be.
	require.True(t, errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF), "%v", err)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(256<<10))
}
