package kvcli

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/client"
	"swiftpaxos/kvs"
)

// parseLine parses a line of standard input as the runner does.
func parseLine(line string, level client.Level, l kvs.Limits) (command, error) {
	ws, err := splitLine(line)
	if err != nil {
		return command{}, err
	}
	return parse(ws, level, l)
}

func TestParseCommands(t *testing.T) {
	for _, c := range []struct {
		line  string
		level client.Level
		cmd   kvs.Command
	}{
		{"get 7", client.Strong, kvs.Command{Op: kvs.OpGet, Key: "7"}},
		{"weak get user:42", client.Weak, kvs.Command{Op: kvs.OpGet, Key: "user:42"}},
		{"put k   two  words ", client.Strong, kvs.Command{Op: kvs.OpPut, Key: "k", Value: kvs.Value("two  words ")}},
		{" strong\tput 9 x", client.Strong, kvs.Command{Op: kvs.OpPut, Key: "9", Value: kvs.Value("x")}},
		{`put k ""`, client.Strong, kvs.Command{Op: kvs.OpPut, Key: "k", Value: kvs.Value("")}},
		{`put "a key" "a \"quoted\" value\n"`, client.Strong, kvs.Command{Op: kvs.OpPut, Key: "a key", Value: kvs.Value("a \"quoted\" value\n")}},
		{`get "\x00\xffbin"`, client.Strong, kvs.Command{Op: kvs.OpGet, Key: "\x00\xffbin"}},
		{"weak del k", client.Weak, kvs.Command{Op: kvs.OpDelete, Key: "k"}},
		{"weak scan a b 1000", client.Weak, kvs.Command{Op: kvs.OpScan, Key: "a", End: "b", Limit: 1000}},
		{`scan "" "" 1`, client.Strong, kvs.Command{Op: kvs.OpScan, Limit: 1}},
		{"incr hits", client.Strong, kvs.Command{Op: kvs.OpIncr, Key: "hits", Delta: 1}},
		{"incr hits -9223372036854775808", client.Strong, kvs.Command{Op: kvs.OpIncr, Key: "hits", Delta: -1 << 63}},
		{"cas lock absent set me and you", client.Strong, kvs.Command{Op: kvs.OpCAS, Key: "lock", Expect: kvs.ExpectAbsent, Value: kvs.Value("me and you")}},
		{`cas lock value "me" delete`, client.Strong, kvs.Command{Op: kvs.OpCAS, Key: "lock", Expect: kvs.ExpectValue, ExpectValue: kvs.Value("me"), Delete: true}},
		{`cas n version 42 set ""`, client.Strong, kvs.Command{Op: kvs.OpCAS, Key: "n", Expect: kvs.ExpectVersion, ExpectVersion: 42, Value: kvs.Value("")}},
	} {
		got, err := parseLine(c.line, client.Strong, kvs.DefaultLimits)
		require.NoError(t, err, c.line)
		assert.Equal(t, c.level, got.level, c.line)
		assert.Equal(t, c.cmd, got.cmd, c.line)
	}
}

// Each bad command is refused with an error that says what is wrong,
// before anything is sent.
func TestParseRefusesBadInput(t *testing.T) {
	small := kvs.Limits{MaxKey: 4, MaxValue: 8}
	for line, want := range map[string]string{
		"":                                "no command",
		"weak":                            "no command",
		"get":                             "usage: get KEY",
		"get 1 2":                         "usage: get KEY",
		`get ""`:                          "an empty key",
		"get toolong":                     "a key of 7 bytes, over maxKeyBytes 4",
		"put 1":                           "usage: put KEY VALUE",
		"put k 123456789":                 "a value of 9 bytes, over maxValueBytes 8",
		`put k "v" more`:                  "text after a quoted value",
		`get "\q"`:                        "not a Go string literal",
		`get "open`:                       "no closing quote",
		`get "a"b`:                        "a blank must follow a closing quote",
		"del":                             "usage: del KEY",
		"scan 1":                          "usage: scan START END LIMIT",
		"scan 1 2 10001":                  `LIMIT "10001"`,
		"scan 1 2 x":                      `LIMIT "x"`,
		"scan b a 1":                      `the end "a" is before the start "b"`,
		"incr":                            "usage: incr KEY [DELTA]",
		"incr k 9223372036854775808":      `DELTA "9223372036854775808" is not a decimal 64-bit integer`,
		"incr k 1.5":                      `DELTA "1.5"`,
		"weak incr k":                     "strong level",
		"weak cas k absent set v":         "strong level",
		"cas k":                           "usage: cas KEY",
		"cas k maybe set v":               `"maybe": the expectation is absent, value OLD or version N`,
		"cas k version -1 set v":          `version "-1"`,
		"cas k absent keep":               "usage: cas KEY",
		"cas k absent delete now":         "usage: cas KEY",
		"frob 1":                          "unknown command",
		"cas k value 123456789 set v":     "a value of 9 bytes",
		"scan 12345 \"\" 1":               "a key of 5 bytes",
		"put k " + strings.Repeat("v", 9): "over maxValueBytes 8",
	} {
		_, err := parseLine(line, client.Strong, small)
		assert.ErrorContains(t, err, want, "%.40q", line)
	}
	_, err := parseLine("weak incr k", client.Strong, small)
	assert.True(t, errors.Is(err, client.ErrStrongOnly), "a weak INCR is refused as strong only: %v", err)
}

// A command given as arguments takes each argument as one word (the
// shell quoted it), so a key may hold blanks without Go quoting, and a
// PUT's value is the remaining arguments joined by blanks.
func TestParseArguments(t *testing.T) {
	c, err := parse(argWords([]string{"weak", "put", "a key", "two", "words"}), client.Strong, kvs.DefaultLimits)
	require.NoError(t, err)
	assert.Equal(t, client.Weak, c.level)
	assert.Equal(t, kvs.Command{Op: kvs.OpPut, Key: "a key", Value: kvs.Value("two words")}, c.cmd)
	c, err = parse(argWords([]string{"get", `"\x01"`}), client.Strong, kvs.DefaultLimits)
	require.NoError(t, err)
	assert.Equal(t, kvs.Key("\x01"), c.cmd.Key)
}

// A key is printed as a command takes it back: plain text as it is,
// anything else as a Go string literal.
func TestDisplayRoundTrips(t *testing.T) {
	for _, k := range []kvs.Key{"plain", "00000000000000000042", "a b", "\x00\xff", `"q`, "", "tab\there", "é"} {
		shown := display(k)
		ws, err := splitLine("get " + shown)
		require.NoError(t, err, shown)
		if k == "" {
			assert.Equal(t, `""`, shown)
			continue
		}
		require.Len(t, ws, 2, shown)
		got, err := ws[1].decode()
		require.NoError(t, err, shown)
		assert.Equal(t, string(k), got, shown)
	}
	assert.Equal(t, "plain", display("plain"))
	assert.Equal(t, `"\x00\xff"`, display("\x00\xff"))
}
