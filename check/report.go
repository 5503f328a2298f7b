package check

import (
	"fmt"
	"runtime"
	"sort"
	"strings"

	"swiftpaxos/kvs"
)

// Rule names a property the checker verifies. doc.go explains each one.
type Rule string

// The rules, in the order a Report lists them.
const (
	RuleHistoryInvalid   Rule = "history-invalid"
	RuleLogInvalid       Rule = "log-invalid"
	RuleReadNeverWritten Rule = "read-never-written"
	RuleReadFromFuture   Rule = "read-from-future"
	RuleLinearizability  Rule = "linearizability"
	RuleStrongWriteOrder Rule = "strong-write-order"
	RuleStrongReadOrder  Rule = "strong-read-order"
	RuleReadYourWrites   Rule = "read-your-writes"
	RuleMonotonicReads   Rule = "monotonic-reads"
	RuleLogAgreement     Rule = "log-agreement"
	RuleLogMismatch      Rule = "log-mismatch"
	RuleAtMostOnce       Rule = "at-most-once"
	RuleDurability       Rule = "durability"
	RuleOrdered          Rule = "ordered"
	// The causal and hybrid rules of PROTOCOL.md sections 2.3 and 2.4.
	RuleCausalCycle         Rule = "cc-acyclic"
	RuleCausalVisibility    Rule = "cc-vis"
	RuleCausalArbitration   Rule = "cc-arb"
	RuleC1ReadFrom          Rule = "c1-same-session-read-from"
	RuleC2DurabilityOrder   Rule = "c2-durability-order"
	RuleC3VisibilityBarrier Rule = "c3-visibility-barrier"
)

// ruleRank orders rules in reports.
var ruleRank = func() map[Rule]int {
	m := map[Rule]int{}
	for i, r := range []Rule{
		RuleHistoryInvalid, RuleLogInvalid, RuleReadNeverWritten, RuleReadFromFuture,
		RuleCausalCycle, RuleLinearizability, RuleStrongWriteOrder, RuleStrongReadOrder, RuleReadYourWrites,
		RuleMonotonicReads, RuleCausalVisibility, RuleCausalArbitration,
		RuleLogAgreement, RuleLogMismatch, RuleAtMostOnce, RuleDurability, RuleOrdered,
		RuleC1ReadFrom, RuleC2DurabilityOrder, RuleC3VisibilityBarrier,
	} {
		m[r] = i
	}
	return m
}()

// Violation is one broken rule.
type Violation struct {
	Rule Rule
	// Ops are the operations involved, most relevant first.
	Ops []OpID
	// Replica names the replica log involved, for log rules.
	Replica string
	// Message says what happened, naming operations, keys, values and
	// instants, and which guarantee that breaks.
	Message string
	// Visualization is the path of porcupine's HTML rendering of the
	// conflict that makes a key fail linearizability, when
	// Options.VisualizeDir was set and porcupine confirmed it in time.
	Visualization string
}

func (v Violation) String() string { return fmt.Sprintf("[%s] %s", v.Rule, v.Message) }

// Unknown is a check that could not be decided. It is neither a pass nor
// a violation, and makes Report.OK false. doc.go lists what produces one.
type Unknown struct {
	Rule    Rule
	Key     kvs.Key
	Message string
}

func (u Unknown) String() string { return fmt.Sprintf("[%s unknown] %s", u.Rule, u.Message) }

// Skipped is a rule that was not checked, or only partly, because its
// input was missing (typically the applied logs). A skipped rule is not a
// pass: Reason says what was left unverified.
type Skipped struct {
	Rule   Rule
	Reason string
}

func (s Skipped) String() string { return fmt.Sprintf("[%s not checked] %s", s.Rule, s.Reason) }

// Report is the outcome of Check.
type Report struct {
	Violations []Violation
	// Unknown lists checks that could not be decided (doc.go, "Verdict").
	Unknown []Unknown
	// Skipped lists the rules that could not be checked, or only partly,
	// and why. They do not make the report fail, but nothing was verified
	// for them.
	Skipped []Skipped
	// Omitted counts violations per rule beyond Options.MaxPerRule.
	Omitted map[Rule]int
	// Checked is the number of history records examined.
	Checked int
}

// OK reports whether every check passed: no violation and nothing unknown.
func (r Report) OK() bool {
	return len(r.Violations) == 0 && len(r.Unknown) == 0 && len(r.Omitted) == 0
}

// String renders the report for humans, one finding per line.
func (r Report) String() string {
	var b strings.Builder
	switch {
	case r.OK():
		fmt.Fprintf(&b, "OK: %d operations checked\n", r.Checked)
	case len(r.Violations) == 0:
		fmt.Fprintf(&b, "UNKNOWN: %d operations checked, %d undecided check(s)\n", r.Checked, len(r.Unknown))
	default:
		n := len(r.Violations)
		for _, c := range r.Omitted {
			n += c
		}
		fmt.Fprintf(&b, "VIOLATED: %d operations checked, %d violation(s)\n", r.Checked, n)
	}
	for _, v := range r.Violations {
		b.WriteString(v.String())
		b.WriteByte('\n')
	}
	for _, u := range r.Unknown {
		b.WriteString(u.String())
		b.WriteByte('\n')
	}
	for _, s := range r.Skipped {
		b.WriteString(s.String())
		b.WriteByte('\n')
	}
	rules := make([]Rule, 0, len(r.Omitted))
	for rule := range r.Omitted {
		rules = append(rules, rule)
	}
	sort.Slice(rules, func(i, j int) bool { return ruleRank[rules[i]] < ruleRank[rules[j]] })
	for _, rule := range rules {
		fmt.Fprintf(&b, "[%s] ... %d more not shown\n", rule, r.Omitted[rule])
	}
	return b.String()
}

// Options tune Check. The zero value is ready to use.
type Options struct {
	// VisualizeDir, when not empty, receives porcupine's HTML rendering of
	// the conflict of every key that fails linearizability (created if
	// missing). The verdict does not depend on it.
	VisualizeDir string
	// Parallelism is the number of keys checked at once; zero means
	// GOMAXPROCS.
	Parallelism int
	// MaxPerRule caps the violations kept per rule (the rest are counted in
	// Report.Omitted); zero means no cap.
	MaxPerRule int
	// Crashed lists the sessions whose client crashed. Their acknowledged
	// weak puts may be lost (PROTOCOL.md 6.8: only if the leader crashed
	// too, and then nobody else observed them), so the durability rule
	// skips them; C2, C3 and the causal rules still apply.
	Crashed map[SessionID]bool
}

func (o Options) withDefaults() Options {
	if o.Parallelism <= 0 {
		o.Parallelism = runtime.GOMAXPROCS(0)
	}
	return o
}

// collector accumulates findings. It is used by one goroutine.
type collector struct {
	max        int
	violations []Violation
	unknown    []Unknown
	skipped    []Skipped
	perRule    map[Rule]int
	omitted    map[Rule]int
	// flagged holds the reads reported by read-your-writes or monotonic
	// reads, which cc-vis generalises and so does not report again.
	flagged map[int32]bool
}

func newCollector(maxPerRule int) *collector {
	return &collector{max: maxPerRule, perRule: map[Rule]int{}, omitted: map[Rule]int{}, flagged: map[int32]bool{}}
}

func (c *collector) add(v Violation) {
	if c.max > 0 && c.perRule[v.Rule] >= c.max {
		c.omitted[v.Rule]++
		return
	}
	c.perRule[v.Rule]++
	c.violations = append(c.violations, v)
}

// wants reports whether a violation of rule would be kept rather than only
// counted, so that callers can skip composing costly messages.
func (c *collector) wants(rule Rule) bool { return c.max <= 0 || c.perRule[rule] < c.max }

func (c *collector) report(checked int) Report {
	sort.SliceStable(c.violations, func(i, j int) bool {
		return ruleRank[c.violations[i].Rule] < ruleRank[c.violations[j].Rule]
	})
	r := Report{Violations: c.violations, Unknown: c.unknown, Skipped: c.skipped, Checked: checked}
	if len(c.omitted) > 0 {
		r.Omitted = c.omitted
	}
	return r
}
