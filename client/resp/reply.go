package resp

import (
	"strconv"
	"strings"
)

// The RESP2 replies, appended to a connection's output buffer.

func appendSimple(b []byte, s string) []byte {
	b = append(b, '+')
	b = append(b, s...)
	return append(b, '\r', '\n')
}

var okReply = appendSimple(nil, "OK")

// appendError appends an error reply. msg starts with its code (ERR,
// WRONGTYPE, NOAUTH, ...); line ends in it become spaces, since an error
// reply is one line.
func appendError(b []byte, msg string) []byte {
	b = append(b, '-')
	b = append(b, strings.NewReplacer("\r", " ", "\n", " ").Replace(msg)...)
	return append(b, '\r', '\n')
}

func appendInt(b []byte, n int64) []byte {
	b = append(b, ':')
	b = strconv.AppendInt(b, n, 10)
	return append(b, '\r', '\n')
}

func appendBulk(b, v []byte) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(v)), 10)
	b = append(b, '\r', '\n')
	b = append(b, v...)
	return append(b, '\r', '\n')
}

func appendBulkString(b []byte, s string) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, '\r', '\n')
	b = append(b, s...)
	return append(b, '\r', '\n')
}

// appendNull appends the RESP2 null bulk string: "no value".
func appendNull(b []byte) []byte { return append(b, "$-1\r\n"...) }

func appendArray(b []byte, n int) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, '\r', '\n')
}

// appendStrings appends an array of bulk strings.
func appendStrings(b []byte, ss ...string) []byte {
	b = appendArray(b, len(ss))
	for _, s := range ss {
		b = appendBulkString(b, s)
	}
	return b
}
