package check

import (
	"testing"
)

func TestReadYourWrites(t *testing.T) {
	cases := []struct {
		name string
		h    []Op
		logs map[string][]LogEntry
		bad  []string // fragments of the expected message; nil means OK
	}{{
		name: "weak read misses own earlier write",
		h: []Op{
			wPut("s", 1, 3, "x1", 0, 10),
			wPut("s", 2, 3, "x2", 20, 30),
			wGet("s", 3, 3, "x1", 40, 50),
		},
		bad: []string{"s#3", "s#2", `"x2"`, "completed s#1 before invoking s#2"},
	}, {
		name: "weak read of NIL after own write",
		h: []Op{
			wPut("s", 1, 3, "x1", 0, 10),
			wGet("s", 2, 3, "", 20, 30),
		},
		bad: []string{"s#2", "returning absent", "s#1"},
	}, {
		name: "pipelined write still in flight",
		h: []Op{
			wPut("s", 1, 3, "x1", 0, 10),
			wPut("s", 2, 3, "x2", 20, 50),
			wGet("s", 3, 3, "x1", 40, 60), // overlaps s#2
		},
	}, {
		name: "another session's newer write",
		h: []Op{
			wPut("s", 1, 3, "x1", 0, 10),
			wPut("o", 1, 3, "y1", 5, 15),
			wGet("s", 2, 3, "y1", 20, 30),
		},
		logs: map[string][]LogEntry{"r0": logOf(
			wPut("s", 1, 3, "x1", 0, 10),
			wPut("o", 1, 3, "y1", 5, 15),
		)},
	}, {
		name: "another session's write ordered before own write",
		h: []Op{
			wPut("s", 1, 3, "x1", 0, 10),
			wPut("o", 1, 3, "y1", 5, 15),
			wGet("s", 2, 3, "y1", 20, 30),
		},
		logs: map[string][]LogEntry{"r0": logOf(
			wPut("o", 1, 3, "y1", 5, 15),
			wPut("s", 1, 3, "x1", 0, 10),
		)},
		bad: []string{"s#2", "o#1 at slot 1", "s#1 at slot 2", "replica r0"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Check(tc.h, tc.logs, Options{})
			if tc.bad == nil {
				requireOK(t, r)
				return
			}
			requireViolation(t, r, RuleReadYourWrites, tc.bad...)
			requireOnly(t, r, RuleReadYourWrites)
		})
	}
}

func TestMonotonicReads(t *testing.T) {
	writes := []Op{
		wPut("w", 1, 4, "v1", 0, 10),
		wPut("w", 2, 4, "v2", 20, 30),
	}
	cases := []struct {
		name  string
		reads []Op
		logs  bool
		bad   []string
	}{{
		name:  "newer then older",
		reads: []Op{wGet("r", 1, 4, "v2", 40, 50), wGet("r", 2, 4, "v1", 60, 70)},
		bad:   []string{"r#2", "r#1", `"v1"`, `"v2"`, "completed w#1 before invoking w#2"},
	}, {
		name:  "newer then older, by log",
		reads: []Op{wGet("r", 1, 4, "v2", 40, 50), wGet("r", 2, 4, "v1", 60, 70)},
		logs:  true,
		bad:   []string{"r#2", "r#1", "w#1 at slot 1", "w#2 at slot 2"},
	}, {
		name:  "value then NIL",
		reads: []Op{wGet("r", 1, 4, "v1", 40, 50), wGet("r", 2, 4, "", 60, 70)},
		bad:   []string{"r#2", "returning absent", "r#1"},
	}, {
		name:  "older then newer",
		reads: []Op{wGet("r", 1, 4, "v1", 40, 50), wGet("r", 2, 4, "v2", 60, 70)},
		logs:  true,
	}, {
		name:  "overlapping reads are concurrent",
		reads: []Op{wGet("r", 1, 4, "v2", 40, 65), wGet("r", 2, 4, "v1", 60, 70)},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := append(append([]Op{}, writes...), tc.reads...)
			var logs map[string][]LogEntry
			if tc.logs {
				logs = map[string][]LogEntry{"r0": logOf(writes...)}
			}
			r := Check(h, logs, Options{})
			if tc.bad == nil {
				requireOK(t, r)
				return
			}
			requireViolation(t, r, RuleMonotonicReads, tc.bad...)
			requireOnly(t, r, RuleMonotonicReads)
		})
	}
}

func TestReadNeverWritten(t *testing.T) {
	r := Check([]Op{
		wPut("w", 1, 4, "v1", 0, 10),
		wGet("r", 1, 4, "v1", 20, 30),
		wGet("r", 2, 4, "ghost", 40, 50),
	}, nil, Options{})
	requireViolation(t, r, RuleReadNeverWritten, "r#2", `"ghost"`, "no write")
	requireOnly(t, r, RuleReadNeverWritten)

	r = Check([]Op{
		wPut("w", 1, 5, "v1", 0, 10),
		sGet("r", 1, 4, "v1", 20, 30),
	}, nil, Options{})
	requireViolation(t, r, RuleReadNeverWritten, "r#1", "written to key \"5\" by w#1, not to key \"4\"")
	requireOnly(t, r, RuleReadNeverWritten)
}

func TestReadFromFuture(t *testing.T) {
	h := []Op{
		wGet("r", 1, 4, "v1", 0, 10),
		wPut("w", 1, 4, "v1", 20, 30),
	}
	r := Check(h, nil, Options{})
	requireViolation(t, r, RuleReadFromFuture, "r#1", "w#1")
	requireOnly(t, r, RuleReadFromFuture)

	h[0].ReturnNS = 25 // overlaps the put: fine
	requireOK(t, Check(h, nil, Options{}))
}

func TestHistoryInvalid(t *testing.T) {
	r := Check([]Op{
		wPut("w", 1, 4, "v1", 0, 10),
		wPut("w", 1, 4, "v2", 20, 30),
		wPut("x", 1, 4, "v1", 20, 30),
		wPut("x", 2, 4, "", 40, 50),
		wPut("x", 3, 5, "", 60, 70), // the empty value is a value, and unique too
		{Session: "y", Seq: 1, Level: Weak, Kind: Incr, Key: "c", Delta: 1, InvokeNS: 1},
	}, nil, Options{})
	requireViolation(t, r, RuleHistoryInvalid, "record 2", "reuses")
	requireViolation(t, r, RuleHistoryInvalid, "record 3", "unique")
	requireViolation(t, r, RuleHistoryInvalid, "record 5", "unique")
	requireViolation(t, r, RuleHistoryInvalid, "record 6", "strong only")
}
