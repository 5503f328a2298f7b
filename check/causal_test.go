package check

import (
	"testing"
)

// causalCase is a small hand-written history, checked with the given logs
// (nil: none). bad lists fragments of the expected violation of rule;
// nil bad means the history passes. also lists the other rules the
// history is expected to break.
type causalCase struct {
	name string
	h    []Op
	logs map[string][]LogEntry
	rule Rule
	bad  []string
	also []Rule
}

func runCausalCases(t *testing.T, cases []causalCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Check(tc.h, tc.logs, Options{})
			if tc.bad == nil {
				requireOK(t, r)
				return
			}
			requireViolation(t, r, tc.rule, tc.bad...)
			requireOnly(t, r, append(tc.also, tc.rule)...)
		})
	}
}

func log0(ops ...Op) map[string][]LogEntry { return map[string][]LogEntry{"r0": logOf(ops...)} }

func TestCausalVisibility(t *testing.T) {
	// Session a writes x then y; session b reads y, then x.
	ax := wPut("a", 1, 1, "x1", 0, 10)
	ay := wPut("a", 2, 2, "y1", 20, 30)
	by := wGet("b", 1, 2, "y1", 40, 50)
	// Session c's x0 is read by a before a overwrites it.
	cx := wPut("c", 1, 1, "x0", 0, 5)
	ax0 := wGet("a", 0, 1, "x0", 6, 8)
	runCausalCases(t, []causalCase{{
		name: "cross-session, cross-key: NIL after the causal past wrote the key",
		h:    []Op{ax, ay, by, wGet("b", 2, 1, "", 60, 70)},
		rule: RuleCausalVisibility,
		bad:  []string{"b#2", "returning absent", "a#1", "causal chain a#1 -so-> a#2 -rf-> b#1 -so-> b#2", "NIL precedes every write"},
	}, {
		name: "same, with logs",
		h:    []Op{ax, ay, by, wGet("b", 2, 1, "", 60, 70)},
		logs: log0(ax, ay),
		rule: RuleCausalVisibility,
		bad:  []string{"b#2", "a#1 at slot 1", "replica r0"},
	}, {
		name: "older value of the writer's own session",
		h:    []Op{wPut("a", 0, 1, "x0", -10, -5), ax, ay, by, wGet("b", 2, 1, "x0", 60, 70)},
		rule: RuleCausalVisibility,
		bad:  []string{"b#2", `"x0"`, "a#1", "session a completed a#0 before invoking a#1"},
	}, {
		name: "newest value in the causal past",
		h:    []Op{ax, ay, by, wGet("b", 2, 1, "x1", 60, 70)},
		logs: log0(ax, ay),
	}, {
		name: "older value of a third session: newer only by the log",
		h:    []Op{cx, ax0, ax, ay, by, wGet("b", 2, 1, "x0", 60, 70)},
		logs: log0(cx, ax, ay),
		rule: RuleCausalVisibility,
		bad:  []string{"b#2", `"x0"`, "c#1 at slot 1 precedes a#1 at slot 2", "causal chain a#1 -so-> a#2 -rf-> b#1 -so-> b#2"},
	}, {
		name: "older value of a third session, without logs: not certain",
		h:    []Op{cx, ax0, ax, ay, by, wGet("b", 2, 1, "x0", 60, 70)},
	}, {
		name: "not in the causal past: b never read y",
		h:    []Op{ax, ay, wGet("b", 1, 1, "", 40, 50)},
		logs: log0(ax, ay),
	}, {
		name: "pipelined writes are concurrent: x is not in y's causal past",
		h:    []Op{wPut("a", 1, 1, "x1", 0, 25), ay, by, wGet("b", 2, 1, "", 60, 70)},
		logs: log0(ax, ay),
	}, {
		name: "strong writes in real-time order, without logs",
		h: []Op{sPut("a", 1, 1, "x1", 0, 10), sPut("c", 1, 1, "x2", 20, 30), wPut("c", 2, 2, "y1", 40, 50),
			wGet("b", 1, 2, "y1", 60, 70), wGet("b", 2, 1, "x1", 80, 90)},
		rule: RuleCausalVisibility,
		bad:  []string{"b#2", "c#1", "both are strong and a#1 completed before c#1 was invoked"},
	}, {
		name: "own write then a read of the session is read-your-writes, not repeated",
		h:    []Op{ax, wGet("a", 2, 1, "", 20, 30)},
		rule: RuleReadYourWrites,
		bad:  []string{"a#2"},
	}})
}

func TestCausalArbitration(t *testing.T) {
	ax := wPut("a", 1, 1, "x1", 0, 10)
	ay := wPut("a", 2, 2, "y1", 20, 30)
	bx := wGet("b", 1, 1, "x1", 40, 50)
	bz := wPut("b", 2, 3, "z1", 60, 70)
	runCausalCases(t, []causalCase{{
		name: "session order, log order",
		h:    []Op{ax, ay},
		logs: log0(ax, ay),
	}, {
		name: "session order inverted in the log",
		h:    []Op{ax, ay},
		logs: log0(ay, ax),
		rule: RuleCausalArbitration,
		bad:  []string{"a#2", "slot 1", "a#1", "slot 2", "causal chain a#1 -so-> a#2"},
	}, {
		name: "through another session's read",
		h:    []Op{ax, bx, bz},
		logs: log0(bz, ax),
		rule: RuleCausalArbitration,
		bad:  []string{"b#2", "a#1", "causal chain a#1 -rf-> b#1 -so-> b#2"},
	}, {
		name: "concurrent writes in any order",
		h:    []Op{ax, wPut("b", 1, 2, "y2", 0, 10)},
		logs: log0(wPut("b", 1, 2, "y2", 0, 10), ax),
	}})
}

func TestCausalCycle(t *testing.T) {
	runCausalCases(t, []causalCase{{
		name: "two sessions read each other's later writes",
		h: []Op{
			wGet("a", 1, 1, "b1", 0, 10), wPut("a", 2, 2, "a1", 20, 30),
			wGet("b", 1, 2, "a1", 0, 10), wPut("b", 2, 1, "b1", 20, 30),
		},
		rule: RuleCausalCycle,
		bad:  []string{"the causal order has a cycle", "a#1 -so-> a#2 -rf-> b#1 -so-> b#2 -rf-> a#1"},
		also: []Rule{RuleReadFromFuture},
	}, {
		name: "a read of the session's own later write",
		h:    []Op{wGet("a", 1, 1, "a1", 0, 10), wPut("a", 2, 1, "a1", 20, 30)},
		rule: RuleCausalCycle,
		bad:  []string{"a#1 -so-> a#2 -rf-> a#1"},
		also: []Rule{RuleReadFromFuture},
	}, {
		name: "a read from the future without a cycle",
		h:    []Op{wGet("a", 1, 1, "b1", 0, 10), wPut("b", 1, 1, "b1", 20, 30)},
		rule: RuleReadFromFuture,
		bad:  []string{"a#1"},
	}, {
		name: "overlapping reads of each other's writes",
		h: []Op{
			wGet("a", 1, 1, "b1", 0, 25), wPut("a", 2, 2, "a1", 20, 30),
			wGet("b", 1, 2, "a1", 0, 25), wPut("b", 2, 1, "b1", 20, 30),
		},
	}})
}
