package check

import "testing"

func TestC1SameSessionReadFrom(t *testing.T) {
	w := wPut("a", 1, 1, "x1", 0, 10)
	s := sGet("a", 2, 1, "x1", 20, 30)
	runCausalCases(t, []causalCase{{
		name: "weak write, then strong read, in log order",
		h:    []Op{w, s},
		logs: log0(w, s),
	}, {
		name: "strong read ordered before the weak write",
		h:    []Op{w, s},
		logs: log0(s, w),
		rule: RuleC1ReadFrom,
		bad:  []string{"a#1", "slot 2", "strong get of the same key a#2", "slot 1", "replica r0", "C1"},
	}, {
		name: "weak write lost although the strong read followed it",
		h:    []Op{w, s},
		logs: log0(s),
		rule: RuleC1ReadFrom,
		bad:  []string{"a#1", "missing from the applied log", "a#2"},
		also: []Rule{RuleDurability},
	}, {
		name: "pipelined: the read was invoked before the write completed",
		h:    []Op{w, sGet("a", 2, 1, "x1", 5, 30)},
		logs: log0(sGet("a", 2, 1, "x1", 5, 30), w),
	}, {
		name: "stale value: reported as read-your-writes",
		h:    []Op{w, sGet("a", 2, 1, "", 20, 30)},
		logs: log0(w, sGet("a", 2, 1, "", 20, 30)),
		rule: RuleReadYourWrites,
		bad:  []string{"a#2", "a#1"},
		also: []Rule{RuleLinearizability},
	}})
}

func TestC2DurabilityOrder(t *testing.T) {
	w := wPut("a", 1, 1, "x1", 0, 10)
	s := sGet("a", 2, 2, "", 20, 30)
	p := sPut("a", 2, 2, "y1", 20, 30)
	runCausalCases(t, []causalCase{{
		name: "weak write, then strong op of another key, in log order",
		h:    []Op{w, s},
		logs: log0(w, s),
	}, {
		name: "strong read of another key ordered first",
		h:    []Op{w, s},
		logs: log0(s, w),
		rule: RuleC2DurabilityOrder,
		bad:  []string{"a#1", "slot 2", "strong operation a#2", "slot 1", "C2"},
	}, {
		name: "strong write ordered first",
		h:    []Op{w, p},
		logs: log0(p, w),
		rule: RuleC2DurabilityOrder,
		bad:  []string{"a#1", "a#2"},
		also: []Rule{RuleCausalArbitration},
	}, {
		name: "weak write lost, strong op survived",
		h:    []Op{w, p},
		logs: log0(p),
		rule: RuleC2DurabilityOrder,
		bad:  []string{"a#1", "missing", "a#2"},
		also: []Rule{RuleDurability},
	}, {
		name: "strong op not in the log: nothing to order",
		h:    []Op{w, s},
		logs: log0(w),
	}, {
		name: "another session's strong op",
		h:    []Op{w, sGet("b", 1, 2, "", 20, 30)},
		logs: log0(sGet("b", 1, 2, "", 20, 30), w),
	}})
}

func TestC3VisibilityBarrier(t *testing.T) {
	w := wPut("a", 1, 1, "x1", 0, 10)
	r := wGet("b", 1, 1, "x1", 20, 30)
	s := sGet("b", 1, 1, "x1", 20, 30)
	// c's put z1 never returned, but a read it before writing x1.
	cz := pending(wPut("c", 1, 3, "z1", -20, 0))
	az := wGet("a", 0, 3, "z1", -10, -5)
	runCausalCases(t, []causalCase{{
		name: "foreign weak write read after it became durable",
		h:    []Op{w, r},
		logs: log0(w),
	}, {
		name: "foreign write read but never durable",
		h:    []Op{pending(w), r, wPut("a", 2, 2, "y", 40, 50)},
		logs: log0(wPut("a", 2, 2, "y", 40, 50)),
		rule: RuleC3VisibilityBarrier,
		bad:  []string{"a#1", "was read by b#1 of session b", "missing from the applied log"},
	}, {
		name: "the write's causal past is not durable",
		h:    []Op{cz, az, w, r},
		logs: log0(w),
		rule: RuleC3VisibilityBarrier,
		bad:  []string{"a#1", "b#1", "c#1", "causal chain c#1 -rf-> a#0 -so-> a#1"},
	}, {
		name: "strong read ordered before the foreign write it returned",
		h:    []Op{w, s},
		logs: log0(s, w),
		rule: RuleC3VisibilityBarrier,
		bad:  []string{"b#1", "slot 1", "a#1", "slot 2", "whose value it returned"},
	}, {
		name: "strong read ordered after it",
		h:    []Op{w, s},
		logs: log0(w, s),
	}})
}

// The scenarios the issue asks the checker to catch, each with the rule
// that must name it.
func TestIssueScenarios(t *testing.T) {
	runCausalCases(t, []causalCase{{
		name: "stale strong read after a completed strong write",
		h:    []Op{sPut("a", 1, 1, "x1", 0, 10), sGet("b", 1, 1, "", 20, 30)},
		rule: RuleLinearizability,
		bad:  []string{`key "1"`, "b#1", "a#1"},
	}, {
		name: "weak read missing the session's own earlier write",
		h:    []Op{wPut("a", 1, 1, "x1", 0, 10), wGet("a", 2, 1, "", 20, 30)},
		rule: RuleReadYourWrites,
		bad:  []string{"a#2", "a#1"},
	}, {
		name: "a read returning a value never written",
		h:    []Op{wPut("a", 1, 1, "x1", 0, 10), wGet("b", 1, 1, "x9", 20, 30)},
		rule: RuleReadNeverWritten,
		bad:  []string{"b#1", `"x9"`},
	}, {
		name: "a cross-session causal anomaly across two keys",
		h: []Op{wPut("a", 1, 1, "x1", 0, 10), wPut("a", 2, 2, "y1", 20, 30),
			wGet("b", 1, 2, "y1", 40, 50), wGet("b", 2, 1, "", 60, 70)},
		rule: RuleCausalVisibility,
		bad:  []string{"b#2", "a#1", "causal chain a#1 -so-> a#2 -rf-> b#1 -so-> b#2"},
	}, {
		name: "a strong operation ordered before its session's earlier weak write",
		h:    []Op{wPut("a", 1, 1, "x1", 0, 10), sGet("a", 2, 2, "", 20, 30)},
		logs: log0(sGet("a", 2, 2, "", 20, 30), wPut("a", 1, 1, "x1", 0, 10)),
		rule: RuleC2DurabilityOrder,
		bad:  []string{"a#1", "a#2"},
	}, {
		name: "an operation applied twice",
		h:    []Op{wPut("a", 1, 1, "x1", 0, 10)},
		logs: log0(wPut("a", 1, 1, "x1", 0, 10), wPut("a", 1, 1, "x1", 0, 10)),
		rule: RuleAtMostOnce,
		bad:  []string{"a#1", "twice"},
	}, {
		name: "an acknowledged write missing from the logs",
		h:    []Op{wPut("a", 1, 1, "x1", 0, 10), sPut("b", 1, 2, "y1", 0, 10)},
		logs: log0(sPut("b", 1, 2, "y1", 0, 10)),
		rule: RuleDurability,
		bad:  []string{"a#1", "acknowledged"},
	}})
}
