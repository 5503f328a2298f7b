package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
	"swiftpaxos/wire/applog"
)

// The JSON Lines form of a history record (doc.go, "History records").
// Keys and values are byte strings, written as applog writes them: a JSON
// string, or a "_b64" member for bytes that are not plain text.

var expectNames = [...]string{kvs.ExpectAbsent: "absent", kvs.ExpectValue: "value", kvs.ExpectVersion: "version"}

// AppendOp appends the JSON line of o, newline included, to buf, without
// reflection: a client may record every operation of a benchmark.
func AppendOp(buf []byte, o Op) []byte {
	buf = append(buf, `{"session":`...)
	b, _ := json.Marshal(string(o.Session))
	buf = append(buf, b...)
	buf = append(buf, `,"seq":`...)
	buf = strconv.AppendUint(buf, uint64(o.Seq), 10)
	lvl, _ := o.Level.MarshalText()
	buf = append(buf, `,"level":"`...)
	buf = append(buf, lvl...)
	buf = append(buf, `","op":"`...)
	buf = append(buf, o.Kind.String()...)
	buf = append(buf, '"')
	buf = applog.AppendBytes(buf, "key", string(o.Key))
	switch o.Kind {
	case Put:
		buf = applog.AppendBytes(buf, "value", o.Value)
	case CAS:
		if o.Delete {
			buf = append(buf, `,"delete":true`...)
		} else {
			buf = applog.AppendBytes(buf, "value", o.Value)
		}
		if o.Expect >= kvs.ExpectAbsent && o.Expect <= kvs.ExpectVersion {
			buf = append(buf, `,"expect":"`...)
			buf = append(buf, expectNames[o.Expect]...)
			buf = append(buf, '"')
		}
		switch o.Expect {
		case kvs.ExpectValue:
			buf = applog.AppendBytes(buf, "expect_value", o.ExpectValue)
		case kvs.ExpectVersion:
			buf = append(buf, `,"expect_version":`...)
			buf = strconv.AppendUint(buf, uint64(o.ExpectVersion), 10)
		}
	case Incr:
		buf = append(buf, `,"delta":`...)
		buf = strconv.AppendInt(buf, o.Delta, 10)
	case Scan:
		if o.End != "" {
			buf = applog.AppendBytes(buf, "end", string(o.End))
		}
		buf = append(buf, `,"limit":`...)
		buf = strconv.AppendInt(buf, o.Limit, 10)
	}
	if o.OK {
		buf = appendResult(buf, o)
	}
	buf = append(buf, `,"invoke_ns":`...)
	buf = strconv.AppendInt(buf, o.InvokeNS, 10)
	buf = append(buf, `,"return_ns":`...)
	buf = strconv.AppendInt(buf, o.ReturnNS, 10)
	buf = append(buf, `,"ok":`...)
	buf = strconv.AppendBool(buf, o.OK)
	if o.Path != "" {
		buf = append(buf, `,"path":`...)
		b, _ := json.Marshal(o.Path)
		buf = append(buf, b...)
	}
	if o.Ordered {
		buf = append(buf, `,"ordered":true`...)
	}
	return append(buf, "}\n"...)
}

// appendResult appends the result members of a completed operation.
func appendResult(buf []byte, o Op) []byte {
	found := func() {
		buf = append(buf, `,"found":`...)
		buf = strconv.AppendBool(buf, o.Found)
		if o.Found && o.Kind != Delete {
			buf = applog.AppendBytes(buf, "ret", o.Ret)
		}
	}
	switch o.Kind {
	case Get, Incr:
		found()
		if o.Err != "" {
			buf = append(buf, `,"err":"`...)
			buf = append(buf, o.Err...)
			buf = append(buf, '"')
		}
	case Delete:
		if o.FoundUnknown {
			buf = append(buf, `,"found_unknown":true`...)
		} else {
			found()
		}
	case CAS:
		buf = append(buf, `,"applied":`...)
		buf = strconv.AppendBool(buf, o.Applied)
		if o.FoundUnknown {
			buf = append(buf, `,"found_unknown":true`...)
		} else {
			found()
		}
	case Scan:
		buf = append(buf, `,"items":[`...)
		for i, it := range o.Items {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, '{')
			n := len(buf)
			buf = applog.AppendBytes(buf, "key", string(it.Key))
			buf = append(buf[:n], buf[n+1:]...) // no comma after '{'
			buf = applog.AppendBytes(buf, "value", it.Value)
			buf = append(buf, '}')
		}
		buf = append(buf, `],"more":`...)
		buf = strconv.AppendBool(buf, o.More)
		if o.Through != "" {
			buf = applog.AppendBytes(buf, "through", string(o.Through))
		}
	}
	return buf
}

// MarshalJSON is AppendOp without the newline.
func (o Op) MarshalJSON() ([]byte, error) {
	b := AppendOp(nil, o)
	return b[:len(b)-1], nil
}

// opRecord mirrors Op with pointers so that missing members are detected.
type opRecord struct {
	Session        *SessionID   `json:"session"`
	Seq            *wire.Seq    `json:"seq"`
	Level          *Level       `json:"level"`
	Kind           *OpKind      `json:"op"`
	Key            *string      `json:"key"`
	KeyB64         *string      `json:"key_b64"`
	End            *string      `json:"end"`
	EndB64         *string      `json:"end_b64"`
	Limit          *int64       `json:"limit"`
	Value          *string      `json:"value"`
	ValueB64       *string      `json:"value_b64"`
	Delete         *bool        `json:"delete"`
	Expect         *string      `json:"expect"`
	ExpectValue    *string      `json:"expect_value"`
	ExpectValueB64 *string      `json:"expect_value_b64"`
	ExpectVersion  *kvs.Slot    `json:"expect_version"`
	Delta          *int64       `json:"delta"`
	Found          *bool        `json:"found"`
	FoundUnknown   *bool        `json:"found_unknown"`
	Ret            *string      `json:"ret"`
	RetB64         *string      `json:"ret_b64"`
	Applied        *bool        `json:"applied"`
	Err            *string      `json:"err"`
	Items          []itemRecord `json:"items"`
	More           *bool        `json:"more"`
	Through        *string      `json:"through"`
	ThroughB64     *string      `json:"through_b64"`
	InvokeNS       *int64       `json:"invoke_ns"`
	ReturnNS       *int64       `json:"return_ns"`
	OK             *bool        `json:"ok"`
	Path           *string      `json:"path"`
	Ordered        *bool        `json:"ordered"`
}

type itemRecord struct {
	Key      *string `json:"key"`
	KeyB64   *string `json:"key_b64"`
	Value    *string `json:"value"`
	ValueB64 *string `json:"value_b64"`
}

// UnmarshalJSON reads a record strictly: unknown members, missing ones
// and invalid records (validateOp) are errors.
func (o *Op) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var r opRecord
	if err := dec.Decode(&r); err != nil {
		return err
	}
	var missing []string
	need := func(present bool, name string) {
		if !present {
			missing = append(missing, name)
		}
	}
	need(r.Session != nil, "session")
	need(r.Seq != nil, "seq")
	need(r.Level != nil, "level")
	need(r.Kind != nil, "op")
	need(r.InvokeNS != nil, "invoke_ns")
	need(r.ReturnNS != nil, "return_ns")
	need(r.OK != nil, "ok")
	if len(missing) > 0 {
		return fmt.Errorf("missing member(s) %q", missing)
	}
	out := Op{Session: *r.Session, Seq: *r.Seq, Level: *r.Level, Kind: *r.Kind,
		InvokeNS: *r.InvokeNS, ReturnNS: *r.ReturnNS, OK: *r.OK}
	var err error
	get := func(name string, text, b64 *string, need bool) string {
		v, ok, e := applog.Bytes{Text: text, B64: b64}.Get(name)
		if e == nil && need && !ok {
			e = fmt.Errorf("a %v needs %q", out.Kind, name)
		}
		if err == nil {
			err = e
		}
		return v
	}
	opt := func(p *bool) bool { return p != nil && *p }
	out.Key = kvs.Key(get("key", r.Key, r.KeyB64, true))
	out.End = kvs.Key(get("end", r.End, r.EndB64, false))
	out.Delete = opt(r.Delete)
	out.Value = get("value", r.Value, r.ValueB64, out.Kind == Put || out.Kind == CAS && !out.Delete)
	out.ExpectValue = get("expect_value", r.ExpectValue, r.ExpectValueB64, false)
	out.Ret = get("ret", r.Ret, r.RetB64, false)
	out.Through = kvs.Key(get("through", r.Through, r.ThroughB64, false))
	for _, it := range r.Items { // none is nil
		k := get("key", it.Key, it.KeyB64, true)
		v := get("value", it.Value, it.ValueB64, true)
		out.Items = append(out.Items, Item{Key: kvs.Key(k), Value: v})
	}
	if err != nil {
		return err
	}
	if r.Expect != nil {
		for e, n := range expectNames {
			if n != "" && n == *r.Expect {
				out.Expect = kvs.Expect(e)
			}
		}
		if out.Expect == 0 {
			return fmt.Errorf("expect %q is not \"absent\", \"value\" or \"version\"", *r.Expect)
		}
	}
	if r.ExpectVersion != nil {
		out.ExpectVersion = *r.ExpectVersion
	}
	if r.Limit != nil {
		out.Limit = *r.Limit
	}
	if r.Delta != nil {
		out.Delta = *r.Delta
	}
	if r.Err != nil {
		out.Err = *r.Err
	}
	if r.Ordered != nil {
		out.Ordered = *r.Ordered
	}
	if r.Path != nil {
		out.Path = *r.Path
	}
	out.Found, out.FoundUnknown, out.Applied, out.More = opt(r.Found), opt(r.FoundUnknown), opt(r.Applied), opt(r.More)
	if out.OK && r.Found == nil && !out.FoundUnknown && (out.Kind == Get || out.Kind == Delete || out.Kind == CAS || out.Kind == Incr) {
		return fmt.Errorf("a completed %v needs \"found\"", out.Kind)
	}
	if (r.Ret != nil || r.RetB64 != nil) && !out.Found {
		return errors.New(`"ret" without "found":true`)
	}
	if err := validateOp(out); err != nil {
		return err
	}
	*o = out
	return nil
}
