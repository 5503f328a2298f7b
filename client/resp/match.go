package resp

import "swiftpaxos/kvs"

// match reports whether s matches the glob pattern as Redis's MATCH and
// KEYS read it: * any run of bytes, ? one byte, [abc] [^abc] [a-z] a class,
// \x the byte x.
func match(pattern, s []byte) bool {
	for len(pattern) > 0 {
		switch pattern[0] {
		case '*':
			for len(pattern) > 1 && pattern[1] == '*' {
				pattern = pattern[1:]
			}
			if len(pattern) == 1 {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if match(pattern[1:], s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if len(s) == 0 {
				return false
			}
			s = s[1:]
		case '[':
			if len(s) == 0 {
				return false
			}
			var ok bool
			ok, pattern = class(pattern[1:], s[0])
			if !ok {
				return false
			}
			s = s[1:]
			continue
		case '\\':
			if len(pattern) > 1 {
				pattern = pattern[1:]
			}
			fallthrough
		default:
			if len(s) == 0 || s[0] != pattern[0] {
				return false
			}
			s = s[1:]
		}
		pattern = pattern[1:]
	}
	return len(s) == 0
}

// class matches c against the class that p starts (after its '['), and
// returns the pattern after the class's ']' (or its end, if unclosed).
func class(p []byte, c byte) (bool, []byte) {
	not := len(p) > 0 && p[0] == '^'
	if not {
		p = p[1:]
	}
	in := false
	for len(p) > 0 && p[0] != ']' {
		switch {
		case p[0] == '\\' && len(p) > 1:
			in = in || p[1] == c
			p = p[2:]
		case len(p) > 2 && p[1] == '-' && p[2] != ']':
			lo, hi := p[0], p[2]
			if lo > hi {
				lo, hi = hi, lo
			}
			in = in || lo <= c && c <= hi
			p = p[3:]
		default:
			in = in || p[0] == c
			p = p[1:]
		}
	}
	if len(p) > 0 {
		p = p[1:]
	}
	return in != not, p
}

// prefixRange is the key range a pattern's literal prefix allows: every
// key that matches lies in [start, end) (end "" is past the last key), so
// a MATCH with a prefix reads only its part of the key space.
func prefixRange(pattern []byte) (start, end kvs.Key) {
	i := 0
	for i < len(pattern) && pattern[i] != '*' && pattern[i] != '?' && pattern[i] != '[' && pattern[i] != '\\' {
		i++
	}
	if i == 0 {
		return "", ""
	}
	prefix := pattern[:i]
	// The end is the prefix with its last byte below 0xff incremented and
	// what follows dropped; a prefix of 0xff bytes has no end.
	e := []byte(string(prefix))
	for len(e) > 0 && e[len(e)-1] == 0xff {
		e = e[:len(e)-1]
	}
	if len(e) > 0 {
		e[len(e)-1]++
	}
	return kvs.Key(prefix), kvs.Key(e)
}
