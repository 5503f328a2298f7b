package applog

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
)

// TestAppendLineFormat pins the line of each kind: the on-disk format that
// doc.go documents.
func TestAppendLineFormat(t *testing.T) {
	for _, c := range []struct {
		e    Entry
		want string
	}{
		{Entry{Slot: 2, Kind: Noop}, `{"slot":2,"op":"noop"}`},
		{Entry{Slot: 9, Kind: Snapshot}, `{"slot":9,"op":"snapshot"}`},
		{Entry{Slot: 3, Session: "a1", Seq: 1, Kind: Put, Key: "k\"1", Value: ""}, `{"slot":3,"session":"a1","seq":1,"op":"put","key":"k\"1","value":""}`},
		{Entry{Slot: 4, Session: "a1", Seq: 2, Kind: Get, Key: "k", Ret: "v", Found: true}, `{"slot":4,"session":"a1","seq":2,"op":"get","key":"k","found":true,"ret":"v"}`},
		{Entry{Slot: 5, Session: "a1", Seq: 3, Kind: Get, Key: "\x00\xff"}, `{"slot":5,"session":"a1","seq":3,"op":"get","key_b64":"AP8=","found":false}`},
		{Entry{Slot: 6, Session: "a1", Seq: 4, Kind: Delete, Key: "k", Found: true}, `{"slot":6,"session":"a1","seq":4,"op":"delete","key":"k","found":true}`},
		{Entry{Slot: 7, Session: "a1", Seq: 5, Kind: CAS, Key: "k", Delete: true}, `{"slot":7,"session":"a1","seq":5,"op":"cas","key":"k","delete":true,"applied":false,"found":false}`},
		{Entry{Slot: 8, Session: "a1", Seq: 6, Kind: Incr, Key: "c", Delta: -2, Applied: true, Found: true, Ret: "-2"}, `{"slot":8,"session":"a1","seq":6,"op":"incr","key":"c","delta":-2,"applied":true,"found":true,"ret":"-2"}`},
		{Entry{Slot: 10, Session: "a1", Seq: 7, Kind: Scan, Key: "", End: "z", Limit: 5, Items: 2, More: true}, `{"slot":10,"session":"a1","seq":7,"op":"scan","key":"","end":"z","limit":5,"items":2,"more":true}`},
	} {
		got := string(AppendLine(nil, c.e))
		require.Equal(t, c.want+"\n", got)
		var back Entry
		require.NoError(t, json.Unmarshal([]byte(c.want), &back), c.want)
		require.Equal(t, c.e, back)
	}
}

// randBytes returns a byte string drawn to hit every representation:
// ASCII, quotes and backslashes, UTF-8, control characters, invalid UTF-8.
func randBytes(rng *rand.Rand, n int) string {
	alphabet := []string{"a", "Z", "\"", "\\", "é", "\u2028", "\x00", "\n", "\x7f", "\xff", "\xc3", "\u0085", "/", "<"}
	var b []byte
	for range rng.IntN(n + 1) {
		b = append(b, alphabet[rng.IntN(len(alphabet))]...)
	}
	return string(b)
}

// TestBytesRoundTrip: any key and value survive AppendLine and the reader,
// and encoding/json through MarshalJSON, byte for byte.
func TestBytesRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		e := Entry{Slot: kvs.Slot(rng.Uint64N(1 << 40)), Session: "s", Seq: 3, Kind: Kind(rng.IntN(4)*2 + 2)}
		if e.Kind == Snapshot {
			e.Kind = CAS
		}
		e.Key = kvs.Key(randBytes(rng, 6))
		switch e.Kind {
		case Get:
			e.Found = rng.IntN(2) == 0
			if e.Found {
				e.Ret = randBytes(rng, 6)
			}
		case CAS:
			e.Value, e.Applied, e.Found, e.Ret = randBytes(rng, 6), true, true, randBytes(rng, 3)
		case Scan:
			e.End, e.Limit = kvs.Key(randBytes(rng, 4)), 3
		}
		line := AppendLine(nil, e)
		require.True(t, json.Valid(line), "%q", line)
		var back Entry
		require.NoError(t, json.Unmarshal(line, &back), "%q", line)
		require.Equal(t, e, back, "%q", line)
		m, err := json.Marshal(e)
		require.NoError(t, err)
		back = Entry{}
		require.NoError(t, json.Unmarshal(m, &back)) // json.Marshal may escape <, U+2028
		require.Equal(t, e, back)
	}
}

// TestUnmarshalStrict: the reader refuses what a replica never writes.
func TestUnmarshalStrict(t *testing.T) {
	for _, bad := range []string{
		`{"op":"put"}`,
		`{"slot":1,"session":"s","seq":1,"op":"put","key":"k"}`,
		`{"slot":1,"session":"s","seq":1,"op":"put","key":"k","key_b64":"aw==","value":"v"}`,
		`{"slot":1,"session":"s","seq":1,"op":"get","key":"k","found":false,"ret":"v"}`,
		`{"slot":1,"session":"s","seq":1,"op":"get","key":"k","bogus":1}`,
		`{"slot":1,"session":"s","seq":1,"op":"get","key_b64":"!!"}`,
		`{"slot":1,"session":"","seq":1,"op":"get","key":"k"}`,
	} {
		var e Entry
		require.Error(t, json.Unmarshal([]byte(bad), &e), bad)
	}
}

// TestEntryOf: each operation's line carries its command and result.
func TestEntryOf(t *testing.T) {
	e, ok := EntryOf(4, "s", 2, kvs.Command{Op: kvs.OpCAS, Key: "k", Expect: kvs.ExpectAbsent, Value: kvs.Value("v")},
		kvs.Result{Applied: true, Found: true, Value: kvs.Value("v"), Version: 4})
	require.True(t, ok)
	require.Equal(t, Entry{Slot: 4, Session: "s", Seq: 2, Kind: CAS, Key: "k", Value: "v", Applied: true, Found: true, Ret: "v"}, e)
	require.True(t, e.Writes())
	e, _ = EntryOf(5, "s", 3, kvs.Command{Op: kvs.OpIncr, Key: "c", Delta: 1}, kvs.Result{Found: true, Value: kvs.Value("x"), Err: kvs.ErrNotInteger})
	require.False(t, e.Writes())
	es := EntriesOf(6, "s", 4, kvs.Command{Op: kvs.OpScan, Key: "a", End: "b", Limit: 2}, kvs.Result{Items: []kvs.Item{{Key: "a", Found: true}}, More: true})
	require.Equal(t, []Entry{{Slot: 6, Session: "s", Seq: 4, Kind: Scan, Key: "a", End: "b", Limit: 2, Items: 1, More: true}}, es)
	es = EntriesOf(7, "s", 5, kvs.Command{Op: kvs.OpNoop}, kvs.Result{})
	require.Equal(t, []Entry{{Slot: 7, Kind: Noop}}, es)
	require.Nil(t, EntriesOf(8, "s", 6, kvs.Command{Op: 99}, kvs.Result{}))
}
