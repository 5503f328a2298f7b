package check

import (
	"bytes"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/applog"
)

// scanOf returns the records of a completed scan of [lo, lo+count] by
// session s, with values for the listed keys and NIL elsewhere.
func scanOf(s string, seq uint64, lvl Level, lo kvs.Key, count int64, values map[kvs.Key]string, inv, ret int64) []Op {
	var items []kvs.Item
	for k := lo; k <= lo+kvs.Key(count); k++ {
		if v, ok := values[k]; ok {
			items = append(items, kvs.Item{Key: k, Value: kvs.Value(v), Version: 1})
		}
	}
	return ScanRecords(op(s, seq, lvl, Get, 0, "", inv, ret), kvs.Command{Op: kvs.OpScan, Key: lo, Count: count}, items)
}

// scanLog is the applied-log lines of a scan that returned records.
func scanLog(slot kvs.Slot, records []Op) []LogEntry {
	var out []LogEntry
	for _, o := range records {
		out = append(out, LogEntry{Slot: slot, Session: o.Session, Seq: o.Seq, Kind: Get, Key: o.Key, Value: o.Value, Scan: true})
	}
	return out
}

func TestScanRecordsAndLogEntriesFromTheStore(t *testing.T) {
	st := kvs.NewStore()
	st.Apply(1, kvs.Command{Op: kvs.OpPut, Key: 3, Value: kvs.Value("a")})
	st.Apply(2, kvs.Command{Op: kvs.OpPut, Key: 5, Value: kvs.Value("b")})
	scan := kvs.Command{Op: kvs.OpScan, Key: 2, Count: 4}
	res := st.Apply(3, scan)

	base := op("c", 7, Strong, Get, 0, "", 10, 20)
	base.Path = "slow"
	got := ScanRecords(base, scan, res.Items)
	want := []Op{}
	for k, v := range map[kvs.Key]string{2: "", 3: "a", 4: "", 5: "b", 6: ""} {
		o := base
		o.Key, o.Value, o.Scan = k, v, true
		want = append(want, o)
	}
	require.ElementsMatch(t, want, got)
	require.Equal(t, kvs.Key(2), got[0].Key, "key order")
	require.Equal(t, kvs.Key(6), got[4].Key, "key order")

	p := pending(base)
	for _, o := range ScanRecords(p, scan, res.Items) {
		require.Equal(t, "", o.Value, "a pending scan returned nothing")
		require.False(t, o.OK)
	}

	lines := applog.EntriesOf(3, "c", 7, scan, res)
	require.Equal(t, scanLog(3, got), lines)

	// Other commands are one line, as applog.EntryOf makes it.
	put := kvs.Command{Op: kvs.OpPut, Key: 3, Value: kvs.Value("z")}
	le, _ := applog.EntryOf(4, "c", 8, put, nil)
	require.Equal(t, []LogEntry{le}, applog.EntriesOf(4, "c", 8, put, kvs.Result{}))
	get := kvs.Command{Op: kvs.OpGet, Key: 3}
	require.Equal(t, []LogEntry{{Slot: 5, Session: "c", Seq: 9, Kind: Get, Key: 3, Value: "a"}},
		applog.EntriesOf(5, "c", 9, get, kvs.Result{Value: kvs.Value("a")}))
	require.Equal(t, Noop, applog.EntriesOf(6, "", 0, kvs.Command{Op: kvs.OpNoop}, kvs.Result{})[0].Kind)
	require.Nil(t, applog.EntriesOf(6, "", 0, kvs.Command{Op: kvs.Op(9)}, kvs.Result{}))
	_, ok := applog.EntryOf(3, "c", 7, scan, nil)
	require.False(t, ok)
	require.Nil(t, ScanRecords(base, get, nil))

	// A range running past the largest key stops there.
	top := kvs.Command{Op: kvs.OpScan, Key: math.MaxInt64 - 1, Count: 5}
	require.Len(t, ScanRecords(base, top, nil), 2)
	require.Len(t, applog.EntriesOf(1, "c", 1, top, kvs.Result{}), 2)
}

func TestScanRoundTrip(t *testing.T) {
	h := scanOf("c", 1, Weak, 4, 1, map[kvs.Key]string{5: "v"}, 10, 20)
	var buf bytes.Buffer
	require.NoError(t, WriteHistory(&buf, h))
	require.Equal(t,
		`{"session":"c","seq":1,"level":"weak","op":"get","key":4,"value":"","invoke_ns":10,"return_ns":20,"ok":true,"scan":true}`+"\n"+
			`{"session":"c","seq":1,"level":"weak","op":"get","key":5,"value":"v","invoke_ns":10,"return_ns":20,"ok":true,"scan":true}`+"\n",
		buf.String())
	back, err := ReadHistory(&buf, "h.jsonl")
	require.NoError(t, err)
	require.Equal(t, h, back)

	l := scanLog(3, h)
	buf.Reset()
	require.NoError(t, WriteLog(&buf, l))
	require.Equal(t,
		`{"slot":3,"session":"c","seq":1,"op":"get","key":4,"value":"","scan":true}`+"\n"+
			`{"slot":3,"session":"c","seq":1,"op":"get","key":5,"value":"v","scan":true}`+"\n",
		buf.String())
	lback, err := ReadLog(&buf, "r0.jsonl")
	require.NoError(t, err)
	require.Equal(t, l, lback)

	_, err = ReadHistory(bytes.NewReader([]byte(`{"session":"c","seq":1,"level":"weak","op":"put","key":4,"value":"x","invoke_ns":10,"return_ns":20,"ok":true,"scan":true}`)), "bad.jsonl")
	require.ErrorContains(t, err, "bad.jsonl:1: a scan record must be a get")
	_, err = ReadLog(bytes.NewReader([]byte(`{"slot":1,"op":"noop","scan":true}`)), "bad.jsonl")
	require.ErrorContains(t, err, "bad.jsonl:1: a scan entry must be a get")
}

// A valid history with weak and strong scans passes every rule, with and
// without logs.
func TestValidHistoryWithScans(t *testing.T) {
	x1 := sPut("a", 1, 1, "x1", 0, 10)
	y1 := wPut("a", 2, 2, "y1", 20, 30)
	weak := scanOf("b", 1, Weak, 0, 3, map[kvs.Key]string{1: "x1", 2: "y1"}, 40, 50)
	strong := scanOf("c", 1, Strong, 1, 1, map[kvs.Key]string{1: "x1", 2: "y1"}, 60, 70)
	get := wGet("b", 2, 2, "y1", 80, 90)
	h := append(append(append([]Op{x1, y1}, weak...), strong...), get)
	log := append(logOf(x1, y1), scanLog(3, strong)...)
	requireOK(t, Check(h, nil, Options{}))
	requireOK(t, Check(h, map[string][]LogEntry{"r0": log, "r1": log[:3]}, Options{}))

	// At scale: a tenth of the reads are scans.
	gen, logs := genHistory(5, genParams{ops: 20_000, sessions: 40, keys: 200, hotKeys: 3, hotShare: 0.2, scanShare: 0.1})
	scans := 0
	for _, o := range gen {
		if o.Scan {
			scans++
		}
	}
	require.Greater(t, scans, 1000)
	requireOK(t, Check(gen, logs, Options{}))
	requireOK(t, Check(gen, nil, Options{}))
}

// A weak scan by the session that wrote a key must see the write.
func TestScanPartReadYourWrites(t *testing.T) {
	w := wPut("a", 1, 4, "a1", 0, 10)
	scan := scanOf("a", 2, Weak, 3, 2, map[kvs.Key]string{}, 20, 30) // NIL for key 4
	r := Check(append([]Op{w}, scan...), nil, Options{})
	v := requireViolation(t, r, RuleReadYourWrites, "a#2 (weak scan of keys 3 to 5, returning NIL for key 4", "a#1")
	require.Equal(t, opID("a", 2), v.Ops[0])
	requireOnly(t, r, RuleReadYourWrites)
}

// A strong scan is a strong read of every key of its range.
func TestStrongScanPartLinearizability(t *testing.T) {
	w := sPut("a", 1, 4, "a1", 0, 10)
	scan := scanOf("b", 1, Strong, 3, 2, map[kvs.Key]string{5: "zz"}, 20, 30) // NIL for key 4, and a value never written
	r := Check(append([]Op{w}, scan...), nil, Options{})
	requireViolation(t, r, RuleLinearizability, "key 4", "b#1 (strong scan of keys 3 to 5, returning NIL for key 4", "a#1")
	requireViolation(t, r, RuleReadNeverWritten, "b#1 (strong scan of keys 3 to 5, returning \"zz\" for key 5")
	requireOnly(t, r, RuleLinearizability, RuleReadNeverWritten)
}

// The reads-from edge of a scan part and the session order after a scan
// are causal edges like any other: b#1's scan saw y1, written after x1 by
// a, so b's later get of x cannot return NIL.
func TestScanPartInCausalPast(t *testing.T) {
	x1 := wPut("a", 1, 1, "x1", 0, 10)
	y1 := wPut("a", 2, 2, "y1", 20, 30)
	scan := scanOf("b", 1, Weak, 2, 3, map[kvs.Key]string{2: "y1"}, 40, 50)
	get := wGet("b", 2, 1, "", 60, 70)
	h := append(append([]Op{x1, y1}, scan...), get)
	r := Check(h, nil, Options{})
	requireViolation(t, r, RuleCausalVisibility, "b#2", "a#1", "causal chain a#1 -so-> a#2 -rf-> b#1 -so-> b#2")
	requireOnly(t, r, RuleCausalVisibility)
}

func TestScanRecordsValidated(t *testing.T) {
	scan := func() []Op { return scanOf("c", 1, Weak, 3, 2, map[kvs.Key]string{}, 20, 30) }
	cases := map[string]struct {
		edit func([]Op) []Op
		want string
	}{
		"a get reusing a scan's seq": {func(h []Op) []Op { return append(h, wGet("c", 1, 9, "", 0, 5)) },
			"reuses the (session, seq) of record 1"},
		"parts with different instants": {func(h []Op) []Op { h[1].ReturnNS = 31; return h },
			"differs in return_ns from record 1 of the same scan"},
		"parts with different levels": {func(h []Op) []Op { h[2].Level = Strong; return h },
			"differs in level from record 1"},
		"a key twice": {func(h []Op) []Op { h[2].Key = 3; return h },
			"repeats key 3 of its scan (record 1)"},
		"a missing key": {func(h []Op) []Op { return append(h[:1], h[2]) },
			"its scan has 2 records for keys 3 to 5"},
	}
	requireOK(t, Check(scan(), nil, Options{}))
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := Check(tc.edit(scan()), nil, Options{})
			requireViolation(t, r, RuleHistoryInvalid, tc.want)
		})
	}
}

func TestScanInLogs(t *testing.T) {
	w := sPut("a", 1, 4, "a1", 0, 10)
	scan := scanOf("b", 1, Strong, 3, 2, map[kvs.Key]string{4: "a1"}, 20, 30)
	h := append([]Op{w}, scan...)
	good := append(logOf(w), scanLog(2, scan)...)
	requireOK(t, Check(h, map[string][]LogEntry{"r0": good}, Options{}))

	edit := func(f func([]LogEntry) []LogEntry) map[string][]LogEntry {
		return map[string][]LogEntry{"r0": f(append([]LogEntry{}, good...))}
	}
	t.Run("keys out of order", func(t *testing.T) {
		r := Check(h, edit(func(l []LogEntry) []LogEntry { l[2], l[3] = l[3], l[2]; return l }), Options{})
		requireViolation(t, r, RuleLogInvalid, "entry 4 (slot 2: b#1 scan part for key 4 returning", "keys once each, in increasing order")
	})
	t.Run("a slot shared with another command", func(t *testing.T) {
		r := Check(h, edit(func(l []LogEntry) []LogEntry { l[1].Slot = 1; return l }), Options{})
		requireViolation(t, r, RuleLogInvalid, "only the lines of one scan share a slot")
	})
	t.Run("applied twice", func(t *testing.T) {
		r := Check(h, edit(func(l []LogEntry) []LogEntry { return append(l, scanLog(3, scan)...) }), Options{})
		v := requireViolation(t, r, RuleAtMostOnce, "b#1 twice", "slot 2", "slot 3")
		require.Equal(t, opID("b", 1), v.Ops[0])
		require.Len(t, r.Violations, 1, "a scan is one command: %s", r)
	})
	t.Run("a key the client did not scan", func(t *testing.T) {
		extra := LogEntry{Slot: 2, Session: "b", Seq: 1, Kind: Get, Key: 6, Scan: true}
		r := Check(h, edit(func(l []LogEntry) []LogEntry { return append(l, extra) }), Options{})
		requireViolation(t, r, RuleLogMismatch, "slot 2: b#1 scan part for key 6", "the client issued b#1 (strong scan of keys 3 to 5")
		requireOnly(t, r, RuleLogMismatch)
	})
	t.Run("a key of the client's range missing", func(t *testing.T) {
		r := Check(h, edit(func(l []LogEntry) []LogEntry { return l[:3] }), Options{})
		requireViolation(t, r, RuleLogMismatch, "applied the scan b#1 at slot 2 without key 5")
		requireOnly(t, r, RuleLogMismatch)
	})
	t.Run("a get applied for the scan", func(t *testing.T) {
		r := Check(h, edit(func(l []LogEntry) []LogEntry {
			l[1].Scan = false
			return l[:2]
		}), Options{})
		requireViolation(t, r, RuleLogMismatch, "slot 2: b#1 get of key 3", "the client issued b#1 (strong scan")
	})
	t.Run("a scan applied for a get", func(t *testing.T) {
		g := sGet("d", 1, 4, "a1", 20, 30)
		l := append(logOf(w), LogEntry{Slot: 2, Session: "d", Seq: 1, Kind: Get, Key: 4, Value: "a1", Scan: true})
		r := Check([]Op{w, g}, map[string][]LogEntry{"r0": l}, Options{})
		requireViolation(t, r, RuleLogMismatch, "slot 2: d#1 scan part for key 4", "the client issued d#1 (strong get")
	})
	t.Run("a strong scan ordered before the write it read", func(t *testing.T) {
		w2 := sPut("c", 1, 4, "c1", 0, 10)
		s2 := scanOf("b", 1, Strong, 3, 2, map[kvs.Key]string{4: "c1"}, 20, 30)
		l := append(scanLog(1, s2), LogEntry{Slot: 2, Session: "c", Seq: 1, Kind: Put, Key: 4, Value: "c1"})
		r := Check(append([]Op{w2}, s2...), map[string][]LogEntry{"r0": l}, Options{})
		requireViolation(t, r, RuleC3VisibilityBarrier, "b#1 (strong scan of keys 3 to 5, returning \"c1\" for key 4", "slot 1", "slot 2")
	})
}

// The parts of a scan take one place in one lane, so a session of
// sequential scans needs one lane however wide they are: clocks stay as
// small as without scans.
func TestScanPartsShareALane(t *testing.T) {
	var h []Op
	for i := range 10 {
		h = append(h, scanOf("c", uint64(i+1), Weak, 0, 99, nil, int64(20*i), int64(20*i+10))...)
	}
	h = append(h, wPut("c", 11, 3, "c11", 500, 510))
	ss := newSessions(newHistory(h, newCollector(0)))
	require.Equal(t, 1, ss.lanes)
	require.Equal(t, int32(10), ss.rank[len(h)-1])
	requireOK(t, Check(h, nil, Options{}))
}

// A strong scan is held to the log order of each key it reads.
func TestStrongScanPartReadOrder(t *testing.T) {
	a := sPut("a", 1, 4, "a1", 0, 10)
	b := sPut("b", 1, 4, "b1", 5, 30) // concurrent with a#1
	scan := scanOf("c", 1, Strong, 3, 2, map[kvs.Key]string{4: "b1"}, 40, 50)
	h := append([]Op{a, b}, scan...)
	requireOK(t, Check(h, logs1(append(logOf(a, b), scanLog(3, scan)...)), Options{}))
	r := Check(h, logs1(append(logOf(b, a), scanLog(3, scan)...)), Options{})
	requireViolation(t, r, RuleStrongReadOrder, "c#1 (strong scan of keys 3 to 5, returning \"b1\" for key 4", "a#1 (strong put")
	requireOnly(t, r, RuleStrongReadOrder)
}
