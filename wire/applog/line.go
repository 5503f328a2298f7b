package applog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// AppendLine appends the applied-log line of e, newline included, to buf
// (doc.go, "Format"). It is what a replica streams its applied log with,
// without reflection, since it runs for every command the replica
// executes.
func AppendLine(buf []byte, e Entry) []byte {
	buf = append(buf, `{"slot":`...)
	buf = strconv.AppendUint(buf, uint64(e.Slot), 10)
	if e.Kind == Noop || e.Kind == Snapshot || !e.Kind.Valid() {
		buf = append(buf, `,"op":"`...)
		buf = append(buf, e.Kind.String()...)
		return append(buf, "\"}\n"...)
	}
	buf = appendString(buf, "session", string(e.Session))
	buf = append(buf, `,"seq":`...)
	buf = strconv.AppendUint(buf, uint64(e.Seq), 10)
	buf = append(buf, `,"op":"`...)
	buf = append(buf, e.Kind.String()...)
	buf = append(buf, '"')
	buf = AppendBytes(buf, "key", string(e.Key))
	switch e.Kind {
	case Put:
		buf = AppendBytes(buf, "value", e.Value)
	case Get, Delete:
		buf = appendBool(buf, "found", e.Found)
		if e.Kind == Get && e.Found {
			buf = AppendBytes(buf, "ret", e.Ret)
		}
	case CAS:
		if e.Delete {
			buf = append(buf, `,"delete":true`...)
		} else {
			buf = AppendBytes(buf, "value", e.Value)
		}
		buf = appendBool(buf, "applied", e.Applied)
		buf = appendRet(buf, e)
	case Incr:
		buf = append(buf, `,"delta":`...)
		buf = strconv.AppendInt(buf, e.Delta, 10)
		buf = appendBool(buf, "applied", e.Applied)
		buf = appendRet(buf, e)
	case Scan:
		if e.End != "" {
			buf = AppendBytes(buf, "end", string(e.End))
		}
		buf = append(buf, `,"limit":`...)
		buf = strconv.AppendInt(buf, e.Limit, 10)
		buf = append(buf, `,"items":`...)
		buf = strconv.AppendInt(buf, int64(e.Items), 10)
		buf = appendBool(buf, "more", e.More)
	}
	return append(buf, "}\n"...)
}

func appendBool(buf []byte, name string, v bool) []byte {
	buf = append(buf, ',', '"')
	buf = append(buf, name...)
	buf = append(buf, `":`...)
	return strconv.AppendBool(buf, v)
}

// appendRet appends "found" and, when found, "ret".
func appendRet(buf []byte, e Entry) []byte {
	buf = appendBool(buf, "found", e.Found)
	if e.Found {
		buf = AppendBytes(buf, "ret", e.Ret)
	}
	return buf
}

// MarshalJSON is AppendLine without the newline, so that encoding/json
// writes what the replica writes.
func (e Entry) MarshalJSON() ([]byte, error) {
	if !e.Kind.Valid() {
		return nil, fmt.Errorf("invalid op kind %d", uint8(e.Kind))
	}
	b := AppendLine(nil, e)
	return b[:len(b)-1], nil
}

// record mirrors a line with pointers, so that missing members are told
// from zero ones.
type record struct {
	Slot     *kvs.Slot  `json:"slot"`
	Session  *SessionID `json:"session"`
	Seq      *wire.Seq  `json:"seq"`
	Kind     *Kind      `json:"op"`
	Key      *string    `json:"key"`
	KeyB64   *string    `json:"key_b64"`
	End      *string    `json:"end"`
	EndB64   *string    `json:"end_b64"`
	Limit    *int64     `json:"limit"`
	Value    *string    `json:"value"`
	ValueB64 *string    `json:"value_b64"`
	Delete   *bool      `json:"delete"`
	Delta    *int64     `json:"delta"`
	Ret      *string    `json:"ret"`
	RetB64   *string    `json:"ret_b64"`
	Found    *bool      `json:"found"`
	Applied  *bool      `json:"applied"`
	Items    *int       `json:"items"`
	More     *bool      `json:"more"`
}

// UnmarshalJSON reads one line strictly: unknown members and a missing
// one its kind needs are errors.
func (e *Entry) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var r record
	if err := dec.Decode(&r); err != nil {
		return err
	}
	if r.Slot == nil || r.Kind == nil {
		return errors.New(`missing member "slot" or "op"`)
	}
	out := Entry{Slot: *r.Slot, Kind: *r.Kind}
	if out.Kind == Noop || out.Kind == Snapshot {
		*e = out
		return nil // a marker's other members, if any, are ignored
	}
	if r.Session == nil || r.Seq == nil || *r.Session == "" {
		return fmt.Errorf("a %v entry needs a non-empty \"session\" and \"seq\"", out.Kind)
	}
	out.Session, out.Seq = *r.Session, *r.Seq
	var err error
	get := func(name string, text, b64 *string, need bool) string {
		v, ok, e := Bytes{text, b64}.Get(name)
		if e == nil && need && !ok {
			e = fmt.Errorf("a %v entry needs %q", out.Kind, name)
		}
		if err == nil {
			err = e
		}
		return v
	}
	key := get("key", r.Key, r.KeyB64, true)
	out.Key = kvs.Key(key)
	out.End = kvs.Key(get("end", r.End, r.EndB64, false))
	out.Value = get("value", r.Value, r.ValueB64, out.Kind == Put || out.Kind == CAS && (r.Delete == nil || !*r.Delete))
	out.Ret = get("ret", r.Ret, r.RetB64, false)
	if err != nil {
		return err
	}
	opt := func(p *bool) bool { return p != nil && *p }
	out.Delete, out.Found, out.Applied, out.More = opt(r.Delete), opt(r.Found), opt(r.Applied), opt(r.More)
	if r.Delta != nil {
		out.Delta = *r.Delta
	}
	if r.Limit != nil {
		out.Limit = *r.Limit
	}
	if r.Items != nil {
		out.Items = *r.Items
	}
	if (r.Ret != nil || r.RetB64 != nil) && !out.Found {
		return errors.New(`"ret" without "found":true`)
	}
	*e = out
	return nil
}
