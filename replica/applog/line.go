package applog

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// AppendLine appends the applied-log line of e, newline included, to buf:
// the bytes encoding/json writes for a command (the checker's WriteLog),
// and the short form {"slot":S,"op":"noop"} (or "snapshot") for a no-op or
// a marker. It is what a replica streams its applied log with, without
// reflection, since it runs for every command the replica executes.
func AppendLine(buf []byte, e Entry) []byte {
	buf = append(buf, `{"slot":`...)
	buf = strconv.AppendUint(buf, uint64(e.Slot), 10)
	if e.Kind == Noop || e.Kind == Snapshot {
		buf = append(buf, `,"op":"`...)
		buf = append(buf, e.Kind.String()...)
		return append(buf, "\"}\n"...)
	}
	buf = append(buf, `,"session":`...)
	buf = appendJSONString(buf, string(e.Session))
	buf = append(buf, `,"seq":`...)
	buf = strconv.AppendUint(buf, uint64(e.Seq), 10)
	buf = append(buf, `,"op":"`...)
	buf = append(buf, e.Kind.String()...)
	buf = append(buf, `","key":`...)
	buf = appendJSONString(buf, string(e.Key))
	buf = append(buf, `,"value":`...)
	buf = appendJSONString(buf, e.Value)
	if e.Scan {
		buf = append(buf, `,"scan":true`...)
	}
	return append(buf, "}\n"...)
}

// appendJSONString appends s as a JSON string, as encoding/json writes it
// without HTML escaping: printable ASCII other than quote and backslash is
// copied, anything else goes through encoding/json.
func appendJSONString(buf []byte, s string) []byte {
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c >= 0x20 && c < 0x7f && c != '"' && c != '\\'
	}
	if plain {
		buf = append(buf, '"')
		buf = append(buf, s...)
		return append(buf, '"')
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(buf, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
}
