package resp

import "swiftpaxos/kvs"

// match reports whether s matches the glob pattern as Redis's MATCH and
// KEYS read it: * any run of bytes, ? one byte, [abc] [^abc] [a-z] a class,
// \x the byte x.
//
// Every element but * matches exactly one byte, so on a mismatch only the
// last * needs to take one byte more: the earlier ones cannot help, since
// any way they could is one the last * covers too. The walk is therefore
// at most len(pattern)*len(s) steps; trying every split at every *
// instead takes exponential time on a pattern such as "*a*a*a*a*b",
// which a client could send to stall its connection and burn a core.
func match(pattern, s []byte) bool {
	p, i := 0, 0
	star, from := -1, 0 // the element after the last *, and where s resumes for it
	for i < len(s) || p < len(pattern) {
		if p < len(pattern) {
			if pattern[p] == '*' {
				star, from = p+1, i
				p++
				continue
			}
			if i < len(s) {
				if ok, n := one(pattern[p:], s[i]); ok {
					p += n
					i++
					continue
				}
			}
		}
		if star < 0 || from >= len(s) {
			return false
		}
		from++
		p, i = star, from
	}
	return true
}

// one matches the byte c against the element pattern starts with (not a
// *), and says how many bytes of pattern the element takes.
func one(pattern []byte, c byte) (bool, int) {
	switch pattern[0] {
	case '?':
		return true, 1
	case '[':
		ok, rest := class(pattern[1:], c)
		return ok, len(pattern) - len(rest)
	case '\\':
		if len(pattern) > 1 {
			return pattern[1] == c, 2
		}
	}
	return pattern[0] == c, 1
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
