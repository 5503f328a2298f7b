package kvcli

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"swiftpaxos/client"
	"swiftpaxos/kvs"
)

// usage lists the commands, for "help" and for the errors that need it.
const usage = `get KEY | put KEY VALUE | del KEY | scan START END LIMIT | incr KEY [DELTA] | cas KEY absent|value OLD|version N set NEW|delete; each optionally after strong or weak; "..." takes Go escapes such as \x00; quit`

// command is one parsed command.
type command struct {
	text  string // as the user wrote it, for messages
	level client.Level
	cmd   kvs.Command
}

// word is one word of a command: its text as written (raw) and the text
// from it to the end of the command (rest), since a PUT's value is the
// rest of the line.
type word struct {
	raw  string
	rest string
}

// decode is the bytes w stands for: a word that starts with a double
// quote is a Go string literal (escapes \xNN, \n, \t, \\, \", \u...),
// which is how a key or value holds blanks, binary bytes or nothing at
// all (""); any other word is its own bytes.
func (w word) decode() (string, error) {
	if !strings.HasPrefix(w.raw, `"`) {
		return w.raw, nil
	}
	s, err := strconv.Unquote(w.raw)
	if err != nil {
		return "", fmt.Errorf("%s is not a Go string literal (\"...\" with escapes such as \\x00, \\\" and \\\\)", w.raw)
	}
	return s, nil
}

// splitLine splits a line of standard input into words: runs of
// non-blanks, or a double-quoted literal from its quote to the closing
// one, blanks and escaped quotes included.
func splitLine(line string) ([]word, error) {
	var ws []word
	i := 0
	for {
		for i < len(line) && isBlank(line[i]) {
			i++
		}
		if i == len(line) {
			return ws, nil
		}
		start := i
		if line[i] == '"' {
			i++
			for i < len(line) && line[i] != '"' {
				if line[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(line) {
				return nil, fmt.Errorf("%s: no closing quote", line[start:])
			}
			i++
			if i < len(line) && !isBlank(line[i]) {
				return nil, fmt.Errorf("%s: a blank must follow a closing quote", line[start:])
			}
		} else {
			for i < len(line) && !isBlank(line[i]) {
				i++
			}
		}
		ws = append(ws, word{raw: line[start:i], rest: line[start:]})
	}
}

func isBlank(b byte) bool { return b < 0x80 && unicode.IsSpace(rune(b)) }

// argWords are the words of a command given as arguments: each argument
// is one word (the shell did the quoting), and the rest of the command
// is the arguments joined by blanks.
func argWords(args []string) []word {
	ws := make([]word, len(args))
	for i, a := range args {
		ws[i] = word{raw: a, rest: strings.Join(args[i:], " ")}
	}
	return ws
}

// parse reads one command and checks it against the cluster's limits l,
// as the session would before sending it.
func parse(ws []word, level client.Level, l kvs.Limits) (command, error) {
	raws := make([]string, len(ws))
	for i, w := range ws {
		raws[i] = w.raw
	}
	c := command{text: strings.Join(raws, " "), level: level}
	if len(ws) > 0 && (ws[0].raw == "strong" || ws[0].raw == "weak") {
		c.level = client.Strong
		if ws[0].raw == "weak" {
			c.level = client.Weak
		}
		ws = ws[1:]
	}
	if len(ws) == 0 {
		return c, errors.New("no command: " + usage)
	}
	name := ws[0].raw
	var err error
	if c.cmd, err = parseOp(name, ws[1:]); err != nil {
		return c, fmt.Errorf("%s: %w", name, err)
	}
	if err := (client.Op{Level: c.level, Command: c.cmd}).Validate(l); err != nil {
		return c, fmt.Errorf("%s: %w", name, err)
	}
	return c, nil
}

// parseOp reads the arguments of command name.
func parseOp(name string, args []word) (kvs.Command, error) {
	var cmd kvs.Command
	key := func() error {
		k, err := args[0].decode()
		cmd.Key = kvs.Key(k)
		return err
	}
	switch name {
	case "get", "del":
		if len(args) != 1 {
			return cmd, fmt.Errorf("usage: %s KEY", name)
		}
		cmd.Op = kvs.OpGet
		if name == "del" {
			cmd.Op = kvs.OpDelete
		}
		return cmd, key()
	case "put":
		if len(args) < 2 {
			return cmd, errors.New(`usage: put KEY VALUE (VALUE is the rest of the line, or one "..." word; "" is the empty value)`)
		}
		cmd.Op = kvs.OpPut
		v, err := value(args[1:])
		cmd.Value = kvs.Value(v)
		return cmd, errors.Join(key(), err)
	case "incr":
		if len(args) != 1 && len(args) != 2 {
			return cmd, errors.New("usage: incr KEY [DELTA]")
		}
		cmd.Op, cmd.Delta = kvs.OpIncr, 1
		if len(args) == 2 {
			d, err := strconv.ParseInt(args[1].raw, 10, 64)
			if err != nil {
				return cmd, fmt.Errorf("DELTA %q is not a decimal 64-bit integer", args[1].raw)
			}
			cmd.Delta = d
		}
		return cmd, key()
	case "scan":
		return parseScan(args)
	case "cas":
		return parseCAS(args)
	}
	return cmd, fmt.Errorf("unknown command; %s", usage)
}

// value is a PUT's or a CAS's new value: one quoted word, or the rest of
// the line as written, blanks included.
func value(ws []word) (string, error) {
	if strings.HasPrefix(ws[0].raw, `"`) {
		if len(ws) > 1 {
			return "", fmt.Errorf("%s: text after a quoted value", ws[1].raw)
		}
		return ws[0].decode()
	}
	return ws[0].rest, nil
}

// parseScan reads START END LIMIT. An empty START ("") is the first key,
// an empty END past the last.
func parseScan(args []word) (kvs.Command, error) {
	cmd := kvs.Command{Op: kvs.OpScan}
	if len(args) != 3 {
		return cmd, errors.New(`usage: scan START END LIMIT ("" for START: the first key; for END: past the last)`)
	}
	start, err1 := args[0].decode()
	end, err2 := args[1].decode()
	if err := errors.Join(err1, err2); err != nil {
		return cmd, err
	}
	n, err := strconv.Atoi(args[2].raw)
	if err != nil || n < 1 || n > kvs.MaxScanLimit {
		return cmd, fmt.Errorf("LIMIT %q: a number of keys from 1 to %d", args[2].raw, kvs.MaxScanLimit)
	}
	cmd.Key, cmd.End, cmd.Limit = kvs.Key(start), kvs.Key(end), int64(n)
	return cmd, nil
}

// parseCAS reads KEY, the expectation (absent, value OLD or version N)
// and the update (set NEW or delete).
func parseCAS(args []word) (kvs.Command, error) {
	cmd := kvs.Command{Op: kvs.OpCAS}
	bad := errors.New("usage: cas KEY absent|value OLD|version N set NEW|delete")
	if len(args) < 3 {
		return cmd, bad
	}
	k, err := args[0].decode()
	if err != nil {
		return cmd, err
	}
	cmd.Key = kvs.Key(k)
	rest := args[2:]
	switch args[1].raw {
	case "absent":
		cmd.Expect = kvs.ExpectAbsent
	case "value", "version":
		if len(rest) < 2 {
			return cmd, bad
		}
		if args[1].raw == "value" {
			old, err := rest[0].decode()
			if err != nil {
				return cmd, err
			}
			cmd.Expect, cmd.ExpectValue = kvs.ExpectValue, kvs.Value(old)
		} else {
			n, err := strconv.ParseUint(rest[0].raw, 10, 64)
			if err != nil {
				return cmd, fmt.Errorf("version %q: a slot, a decimal number from 0", rest[0].raw)
			}
			cmd.Expect, cmd.ExpectVersion = kvs.ExpectVersion, kvs.Slot(n)
		}
		rest = rest[1:]
	default:
		return cmd, fmt.Errorf("%q: the expectation is absent, value OLD or version N", args[1].raw)
	}
	switch {
	case len(rest) == 1 && rest[0].raw == "delete":
		cmd.Delete = true
	case len(rest) >= 2 && rest[0].raw == "set":
		v, err := value(rest[1:])
		if err != nil {
			return cmd, err
		}
		cmd.Value = kvs.Value(v)
	default:
		return cmd, bad
	}
	return cmd, nil
}

// display is how a key is printed: as it is when it is plain printable
// text, else as a Go string literal, which a command takes back as it is.
func display(k kvs.Key) string {
	if k == "" || k[0] == '"' {
		return strconv.Quote(string(k))
	}
	for i := 0; i < len(k); i++ {
		if k[i] <= ' ' || k[i] >= 0x7f {
			return strconv.Quote(string(k))
		}
	}
	return string(k)
}
