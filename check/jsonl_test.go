package check

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// allKinds returns a record of every operation, completed and pending,
// with binary and empty keys and values.
func allKinds() []Op {
	base := Op{Session: "s", Level: Strong, InvokeNS: 1, ReturnNS: 2, OK: true}
	rec := func(seq uint64, lvl Level, cmd kvs.Command, res kvs.Result) Op {
		o := base
		o.Seq, o.Level = wire.Seq(seq), lvl
		return Record(o, cmd, res)
	}
	h := []Op{
		rec(1, Strong, kvs.Command{Op: kvs.OpPut, Key: "k", Value: kvs.Value("a <&> \"q\"")}, kvs.Result{}),
		rec(2, Weak, kvs.Command{Op: kvs.OpPut, Key: "\x00\xff", Value: kvs.Value("")}, kvs.Result{}),
		rec(3, Strong, kvs.Command{Op: kvs.OpGet, Key: "k"}, kvs.Result{Found: true, Value: kvs.Value("\xfe")}),
		rec(4, Weak, kvs.Command{Op: kvs.OpGet, Key: "k"}, kvs.Result{}),
		rec(5, Strong, kvs.Command{Op: kvs.OpDelete, Key: "k"}, kvs.Result{Found: true}),
		rec(6, Weak, kvs.Command{Op: kvs.OpDelete, Key: "k"}, kvs.Result{}),
		rec(7, Strong, kvs.Command{Op: kvs.OpCAS, Key: "k", Expect: kvs.ExpectValue, ExpectValue: kvs.Value("x"), Delete: true}, kvs.Result{Applied: true}),
		rec(8, Strong, kvs.Command{Op: kvs.OpCAS, Key: "k", Expect: kvs.ExpectVersion, ExpectVersion: 9, Value: kvs.Value("y")}, kvs.Result{Found: true, Value: kvs.Value("z")}),
		rec(9, Strong, kvs.Command{Op: kvs.OpCAS, Key: "k", Expect: kvs.ExpectAbsent, Value: kvs.Value("w")}, kvs.Result{Applied: true, Found: true, Value: kvs.Value("w")}),
		rec(10, Strong, kvs.Command{Op: kvs.OpIncr, Key: "c", Delta: -3}, kvs.Result{Found: true, Value: kvs.Value("-3")}),
		rec(11, Strong, kvs.Command{Op: kvs.OpIncr, Key: "c", Delta: 1}, kvs.Result{Found: true, Value: kvs.Value("x"), Err: kvs.ErrNotInteger}),
		rec(12, Weak, kvs.Command{Op: kvs.OpScan, Key: "", End: "\xff", Limit: 3}, kvs.Result{Items: []kvs.Item{{Key: "a", Value: kvs.Value("")}, {Key: "b\n", Value: kvs.Value("v")}}, More: true}),
		rec(13, Strong, kvs.Command{Op: kvs.OpScan, Key: "a", Limit: 1}, kvs.Result{}),
	}
	h[5].FoundUnknown = true
	p := rec(14, Strong, kvs.Command{Op: kvs.OpIncr, Key: "c", Delta: 1}, kvs.Result{})
	p.OK, p.ReturnNS = false, 0
	return append(h, Record(p, kvs.Command{Op: kvs.OpIncr, Key: "c", Delta: 1}, kvs.Result{}))
}

func TestHistoryRoundTrip(t *testing.T) {
	h := allKinds()
	var buf bytes.Buffer
	require.NoError(t, WriteHistory(&buf, h))
	lines := strings.Split(buf.String(), "\n")
	for i, want := range map[int]string{
		0:  `{"session":"s","seq":1,"level":"strong","op":"put","key":"k","value":"a <&> \"q\"","invoke_ns":1,"return_ns":2,"ok":true}`,
		1:  `{"session":"s","seq":2,"level":"weak","op":"put","key_b64":"AP8=","value":"","invoke_ns":1,"return_ns":2,"ok":true}`,
		2:  `{"session":"s","seq":3,"level":"strong","op":"get","key":"k","found":true,"ret_b64":"/g==","invoke_ns":1,"return_ns":2,"ok":true}`,
		3:  `{"session":"s","seq":4,"level":"weak","op":"get","key":"k","found":false,"invoke_ns":1,"return_ns":2,"ok":true}`,
		5:  `{"session":"s","seq":6,"level":"weak","op":"delete","key":"k","found_unknown":true,"invoke_ns":1,"return_ns":2,"ok":true}`,
		6:  `{"session":"s","seq":7,"level":"strong","op":"cas","key":"k","delete":true,"expect":"value","expect_value":"x","applied":true,"found":false,"invoke_ns":1,"return_ns":2,"ok":true}`,
		9:  `{"session":"s","seq":10,"level":"strong","op":"incr","key":"c","delta":-3,"found":true,"ret":"-3","invoke_ns":1,"return_ns":2,"ok":true}`,
		10: `{"session":"s","seq":11,"level":"strong","op":"incr","key":"c","delta":1,"found":true,"ret":"x","err":"not-integer","invoke_ns":1,"return_ns":2,"ok":true}`,
		11: `{"session":"s","seq":12,"level":"weak","op":"scan","key":"","end_b64":"/w==","limit":3,"items":[{"key":"a","value":""},{"key_b64":"Ygo=","value":"v"}],"more":true,"invoke_ns":1,"return_ns":2,"ok":true}`,
		13: `{"session":"s","seq":14,"level":"strong","op":"incr","key":"c","delta":1,"invoke_ns":1,"return_ns":0,"ok":false}`,
	} {
		require.Equal(t, want, lines[i])
	}
	got, err := ReadHistory(&buf, "h.jsonl")
	require.NoError(t, err)
	require.Equal(t, h, got)
}

func TestLogRoundTrip(t *testing.T) {
	l := []LogEntry{
		{Slot: 1, Session: "a", Seq: 1, Kind: Put, Key: "1", Value: "a1"},
		{Slot: 2, Kind: Noop},
		{Slot: 4, Session: "c", Seq: 3, Kind: Get, Key: "1"},
	}
	var buf bytes.Buffer
	require.NoError(t, WriteLog(&buf, l))
	require.Equal(t,
		`{"slot":1,"session":"a","seq":1,"op":"put","key":"1","value":"a1"}`+"\n"+
			`{"slot":2,"op":"noop"}`+"\n"+
			`{"slot":4,"session":"c","seq":3,"op":"get","key":"1","found":false}`+"\n",
		buf.String())
	got, err := ReadLog(&buf, "r0.jsonl")
	require.NoError(t, err)
	require.Equal(t, l, got)
}

func TestReadHistoryBadLine(t *testing.T) {
	good := `{"session":"a","seq":1,"level":"strong","op":"put","key":"1","value":"a1","invoke_ns":0,"return_ns":10,"ok":true}`
	cases := map[string]string{
		"malformed JSON":    `{"session":"a",`,
		"unknown field":     strings.Replace(good, `"ok":true`, `"ok":true,"colour":"red"`, 1),
		"missing field":     strings.Replace(good, `"seq":1,`, ``, 1),
		"bad level":         strings.Replace(good, `"strong"`, `"medium"`, 1),
		"noop in history":   strings.Replace(good, `"put"`, `"noop"`, 1),
		"return before":     strings.Replace(good, `"return_ns":10`, `"return_ns":-1`, 1),
		"put without value": strings.Replace(good, `,"value":"a1"`, ``, 1),
		"weak cas":          `{"session":"a","seq":1,"level":"weak","op":"cas","key":"k","expect":"absent","value":"v","invoke_ns":0,"return_ns":10,"ok":false}`,
		"get without found": `{"session":"a","seq":1,"level":"weak","op":"get","key":"k","invoke_ns":0,"return_ns":10,"ok":true}`,
		"ret not found":     `{"session":"a","seq":1,"level":"weak","op":"get","key":"k","found":false,"ret":"v","invoke_ns":0,"return_ns":10,"ok":true}`,
		"key twice":         strings.Replace(good, `"key":"1"`, `"key":"1","key_b64":"MQ=="`, 1),
		"empty key":         strings.Replace(good, `"key":"1"`, `"key":""`, 1),
		"scan items order":  `{"session":"a","seq":1,"level":"weak","op":"scan","key":"","limit":3,"items":[{"key":"b","value":""},{"key":"a","value":""}],"more":false,"invoke_ns":0,"return_ns":10,"ok":true}`,
		"scan over limit":   `{"session":"a","seq":1,"level":"weak","op":"scan","key":"","limit":1,"items":[{"key":"a","value":""},{"key":"b","value":""}],"more":false,"invoke_ns":0,"return_ns":10,"ok":true}`,
		"trailing garbage":  good + ` {}`,
		"bad path":          strings.Replace(good, `"ok":true`, `"ok":true,"path":"medium"`, 1),
		"instant at -inf":   strings.Replace(good, `"invoke_ns":0`, `"invoke_ns":-9223372036854775808`, 1),
	}
	for name, bad := range cases {
		t.Run(name, func(t *testing.T) {
			in := good + "\n\n" + bad + "\n" + good + "\n" // the bad record is on line 3
			_, err := ReadHistory(strings.NewReader(in), "runs/h.jsonl")
			require.Error(t, err)
			require.True(t, strings.HasPrefix(err.Error(), "runs/h.jsonl:3: "), err.Error())
			var pe *ParseError
			require.True(t, errors.As(err, &pe))
			require.Equal(t, 3, pe.Line)
			require.Equal(t, "runs/h.jsonl", pe.File)
		})
	}
}

func TestReadLogBadLine(t *testing.T) {
	in := `{"slot":1,"session":"a","seq":1,"op":"put","key":"1","value":"a1"}` + "\n" +
		`{"slot":2,"session":"a","op":"put","key":"1","value":"a2"}` + "\n"
	_, err := ReadLog(strings.NewReader(in), "r0.jsonl")
	require.ErrorContains(t, err, "r0.jsonl:2: ")
}

func FuzzReadHistory(f *testing.F) {
	var all bytes.Buffer
	_ = WriteHistory(&all, allKinds())
	f.Add(all.Bytes())
	f.Add([]byte(`{"session":"a","seq":1,"level":"weak","op":"get","key":"1","invoke_ns":0,"return_ns":0,"ok":false}`))
	f.Add([]byte("{}\n\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ReadHistory(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		// Whatever parses writes back and re-reads identically.
		var buf bytes.Buffer
		require.NoError(t, WriteHistory(&buf, h))
		again, err := ReadHistory(&buf, "again")
		require.NoError(t, err)
		require.Equal(t, h, again)
	})
}
