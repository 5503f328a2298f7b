package applog

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Keys and values are byte strings, but a JSON string holds Unicode text:
// encoding/json would replace invalid UTF-8 with U+FFFD and lose bytes.
// So a byte string is written as "name":"text" when it is valid UTF-8
// without control characters (every key and value of the benchmark, and
// what a person reads best), and as "name_b64":"..." (standard base64,
// padded) otherwise. A reader takes either, never both; "name" may then
// use any JSON escape. The writer needs no reflection: it runs on the
// replica's hot path.

// IsText reports whether s is written as a plain JSON string: valid UTF-8
// with no control character (below 0x20, or 0x7f).
func IsText(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			if c < 0x20 || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || r >= 0x80 && r <= 0x9f {
			return false // invalid UTF-8, or a C1 control, which terminals do not show
		}
		i += n
	}
	return true
}

// AppendBytes appends the member ,"name":"s" or ,"name_b64":"..." (see
// above) to buf, with the leading comma.
func AppendBytes(buf []byte, name, s string) []byte {
	buf = append(buf, ',', '"')
	buf = append(buf, name...)
	if !IsText(s) {
		buf = append(buf, `_b64":"`...)
		buf = base64.StdEncoding.AppendEncode(buf, []byte(s))
		return append(buf, '"')
	}
	buf = append(buf, `":`...)
	return appendText(buf, s)
}

// appendString appends ,"name":"s" for text that is never base64 (a
// session name): plain text is copied, anything else goes through
// encoding/json, which escapes control characters as JSON requires.
func appendString(buf []byte, name, s string) []byte {
	buf = append(buf, ',', '"')
	buf = append(buf, name...)
	buf = append(buf, `":`...)
	if !IsText(s) {
		b, _ := json.Marshal(s) // a string always encodes
		return append(buf, b...)
	}
	return appendText(buf, s)
}

// appendText appends s, which IsText, as a JSON string.
func appendText(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' {
			buf = append(buf, '\\', c)
		} else {
			buf = append(buf, c)
		}
	}
	return append(buf, '"')
}

// Bytes is the pair of members a byte string may be read from.
type Bytes struct {
	Text *string
	B64  *string
}

// Get returns the byte string and whether either member was present; name
// is for the error when both are, or the base64 is bad.
func (b Bytes) Get(name string) (string, bool, error) {
	switch {
	case b.Text != nil && b.B64 != nil:
		return "", false, fmt.Errorf("both %q and %q", name, name+"_b64")
	case b.Text != nil:
		return *b.Text, true, nil
	case b.B64 != nil:
		v, err := base64.StdEncoding.DecodeString(*b.B64)
		if err != nil {
			return "", false, fmt.Errorf("%s_b64: %v", name, err)
		}
		return string(v), true, nil
	}
	return "", false, nil
}
