package check

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHistoryRoundTrip(t *testing.T) {
	h := []Op{
		sPut("a", 1, 1, "a1 <&> \"quoted\"", 0, 10),
		pending(wPut("b", 1, -2, "b1", 5, 0)),
		sGet("c", 1, 1, "", 20, 30),
	}
	h[0].Path = "fast"
	var buf bytes.Buffer
	require.NoError(t, WriteHistory(&buf, h))
	require.Equal(t,
		`{"session":"a","seq":1,"level":"strong","op":"put","key":1,"value":"a1 <&> \"quoted\"","invoke_ns":0,"return_ns":10,"ok":true,"path":"fast"}`+"\n"+
			`{"session":"b","seq":1,"level":"weak","op":"put","key":-2,"value":"b1","invoke_ns":5,"return_ns":0,"ok":false}`+"\n"+
			`{"session":"c","seq":1,"level":"strong","op":"get","key":1,"value":"","invoke_ns":20,"return_ns":30,"ok":true}`+"\n",
		buf.String())
	got, err := ReadHistory(&buf, "h.jsonl")
	require.NoError(t, err)
	require.Equal(t, h, got)
}

func TestLogRoundTrip(t *testing.T) {
	l := []LogEntry{
		{Slot: 1, Session: "a", Seq: 1, Kind: Put, Key: 1, Value: "a1"},
		{Slot: 2, Kind: Noop},
		{Slot: 4, Session: "c", Seq: 3, Kind: Get, Key: 1},
	}
	var buf bytes.Buffer
	require.NoError(t, WriteLog(&buf, l))
	require.Equal(t,
		`{"slot":1,"session":"a","seq":1,"op":"put","key":1,"value":"a1"}`+"\n"+
			`{"slot":2,"session":"","seq":0,"op":"noop","key":0,"value":""}`+"\n"+
			`{"slot":4,"session":"c","seq":3,"op":"get","key":1,"value":""}`+"\n",
		buf.String())
	got, err := ReadLog(&buf, "r0.jsonl")
	require.NoError(t, err)
	require.Equal(t, l, got)

	// A minimal no-op record is accepted too.
	got, err = ReadLog(strings.NewReader(`{"slot":9,"op":"noop"}`), "r1.jsonl")
	require.NoError(t, err)
	require.Equal(t, []LogEntry{{Slot: 9, Kind: Noop}}, got)
}

func TestReadHistoryBadLine(t *testing.T) {
	good := `{"session":"a","seq":1,"level":"strong","op":"put","key":1,"value":"a1","invoke_ns":0,"return_ns":10,"ok":true}`
	cases := map[string]string{
		"malformed JSON":   `{"session":"a",`,
		"unknown field":    strings.Replace(good, `"ok":true`, `"ok":true,"colour":"red"`, 1),
		"missing field":    strings.Replace(good, `"seq":1,`, ``, 1),
		"bad level":        strings.Replace(good, `"strong"`, `"medium"`, 1),
		"noop in history":  strings.Replace(good, `"put"`, `"noop"`, 1),
		"return before":    strings.Replace(good, `"return_ns":10`, `"return_ns":-1`, 1),
		"empty put value":  strings.Replace(good, `"a1"`, `""`, 1),
		"trailing garbage": good + ` {}`,
		"bad path":         strings.Replace(good, `"ok":true`, `"ok":true,"path":"medium"`, 1),
		"instant at -inf":  strings.Replace(good, `"invoke_ns":0`, `"invoke_ns":-9223372036854775808`, 1),
		"scan put":         strings.Replace(good, `"ok":true`, `"ok":true,"scan":true`, 1),
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
	in := `{"slot":1,"session":"a","seq":1,"op":"put","key":1,"value":"a1"}` + "\n" +
		`{"slot":2,"session":"a","op":"put","key":1,"value":"a2"}` + "\n"
	_, err := ReadLog(strings.NewReader(in), "r0.jsonl")
	require.ErrorContains(t, err, "r0.jsonl:2: ")
}

func FuzzReadHistory(f *testing.F) {
	f.Add([]byte(`{"session":"a","seq":1,"level":"weak","op":"get","key":1,"value":"","invoke_ns":0,"return_ns":0,"ok":false}`))
	f.Add([]byte("{}\n\n{"))
	f.Add([]byte(`{"session":"a","seq":1,"level":"strong","op":"get","key":1,"value":"","invoke_ns":0,"return_ns":3,"ok":true,"scan":true}`))
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
