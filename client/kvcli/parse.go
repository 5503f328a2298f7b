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

// command is one parsed command.
type command struct {
	text  string // as the user wrote it, for messages
	level client.Level
	op    kvs.Op
	key   kvs.Key
	value kvs.Value
	count int
}

// parse reads one command: words are its blank-separated words, line the
// text they come from (a PUT's value is the rest of the line after the
// key, blanks included).
func parse(words []string, line string, level client.Level) (command, error) {
	c := command{text: strings.Join(words, " "), level: level}
	if len(words) > 0 {
		switch words[0] {
		case "strong", "weak":
			if words[0] == "weak" {
				c.level = client.Weak
			} else {
				c.level = client.Strong
			}
			words = words[1:]
			line = restAfter(line, 1)
		}
	}
	if len(words) == 0 {
		return c, errors.New("no command: put KEY VALUE, get KEY or scan FROM COUNT")
	}
	var err error
	switch words[0] {
	case "put":
		if len(words) < 3 {
			return c, errors.New("usage: put KEY VALUE")
		}
		c.op = kvs.OpPut
		c.value = kvs.Value(restAfter(line, 2))
		if len(c.value) >= kvs.MaxValueLen {
			return c, fmt.Errorf("put: a value of %d bytes: values are shorter than %d bytes", len(c.value), kvs.MaxValueLen)
		}
	case "get":
		if len(words) != 2 {
			return c, errors.New("usage: get KEY")
		}
		c.op = kvs.OpGet
	case "scan":
		if len(words) != 3 {
			return c, errors.New("usage: scan FROM COUNT")
		}
		c.op = kvs.OpScan
		n, err := strconv.Atoi(words[2])
		if err != nil || n < 1 || n > kvs.MaxScanCount+1 {
			return c, fmt.Errorf("scan: COUNT %q: a number of keys from 1 to %d", words[2], kvs.MaxScanCount+1)
		}
		c.count = n
	default:
		return c, fmt.Errorf("unknown command %q: put KEY VALUE, get KEY or scan FROM COUNT, each optionally after strong or weak", words[0])
	}
	if c.key, err = parseKey(words[1]); err != nil {
		return c, fmt.Errorf("%s: %w", words[0], err)
	}
	return c, nil
}

func parseKey(s string) (kvs.Key, error) {
	k, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("key %q: keys are 64-bit decimal integers", s)
	}
	return kvs.Key(k), nil
}

// restAfter is line without its first n blank-separated words and the
// blanks after them.
func restAfter(line string, n int) string {
	s := strings.TrimLeftFunc(line, unicode.IsSpace)
	for range n {
		i := strings.IndexFunc(s, unicode.IsSpace)
		if i < 0 {
			return ""
		}
		s = strings.TrimLeftFunc(s[i:], unicode.IsSpace)
	}
	return s
}
