package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/client/bench"
)

const conf = "../nemesis.conf"

func runCmd(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestPlanCommand(t *testing.T) {
	code, out, errs := runCmd("plan", "-config", conf, "-kinds", "kill,restart,pause", "-every", "4s", "-seed", "9")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "# replay: --nemesis kill,restart,pause --nemesis-every 4s --nemesis-seed 9\n")
	_, again, _ := runCmd("plan", "-config", conf, "-kinds", "kill,restart,pause", "-every", "4s", "-seed", "9")
	assert.Equal(t, out, again, "the same seed, the same plan")
}

func TestCommandRefusesBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "want plan, run or soak"},
		{[]string{"plan", "-config", conf, "-kinds", "kill"}, "-every is required"},
		{[]string{"plan", "-config", conf, "-kinds", "explode", "-every", "1s", "-seed", "1"}, `-kinds: unknown fault kind "explode"`},
		{[]string{"plan", "-config", conf, "-kinds", "crash-all", "-every", "1s", "-seed", "1"}, "crash-all needs durable replicas"},
		{[]string{"plan", "-config", conf, "-kinds", "kill", "-every", "1s", "-seed", "1", "-start", "5"}, "-start is for nemesis run"},
		{[]string{"run", "-config", conf, "-kinds", "kill", "-every", "1s", "-seed", "1"}, "nemesis run needs -start UNIX_MS"},
		{[]string{"plan", "-config", "/nonexistent.conf", "-kinds", "kill", "-every", "1s", "-seed", "1"}, "no such file"},
		{[]string{"soak", "-p", "raft"}, `-p must be curpht or curpho, not "raft"`},
		{[]string{"soak", "-p", "curpho", "-d", "0s"}, "-d 0s: give a duration above 0"},
	} {
		code, _, errs := runCmd(c.args...)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Contains(t, errs, c.want, "%v", c.args)
	}
}

// TestSoakTally: a line per run, a replay command per failure, the
// totals over the runs.
func TestSoakTally(t *testing.T) {
	tt := newTally()
	o := soakOptions{conf: "scripts/nemesis.conf", proto: "curpho", kinds: "kill,restart", every: "5s"}
	f := func(kind string, served float64) bench.FaultJSON {
		return bench.FaultJSON{Kind: kind, FirstOpAfterS: &served, GapS: &served}
	}
	ok := &bench.RunSummary{Check: bench.CheckJSON{Ran: true, OK: true, Checked: 1000},
		Nemesis:      []bench.FaultJSON{f("kill", 0.2), f("kill", 0.4), f("pause", 0.1), {Kind: "kill", Skipped: true}},
		Availability: &bench.AvailabilityJSON{Seconds: 30, SecondsWithOps: 29, Share: 29.0 / 30, LongestGapS: 1.2}}
	var w bytes.Buffer
	tt.add(1, 11, runResult{sum: ok}, o, &w)
	tt.add(2, 22, runResult{sum: ok, failure: "check: 1 violations", dir: "d/run-002"}, o, &w)
	tt.print(&w, 90*time.Second, false)
	assert.Equal(t, `run 1 seed 11: OK: 3 faults (kill 2, pause 1), 1000 operations checked, availability 96.7%, longest gap 1.200 s
FAIL run 2 seed 22: check: 1 violations
  replay: ./run-multi-client.sh -c scripts/nemesis.conf -p curpho --check --nemesis kill,restart --nemesis-every 5s --nemesis-seed 22
  (kept in d/run-002)
  faults: kill 4, pause 2 (skipped: kill 2)
  availability: operations completed in 58 of 60 seconds (96.67%); longest gap 1.200 s (run 1)
  per kind, the median time from a fault until an operation invoked after it completed, and the median longest gap without a completion from the fault until 1 s after its heal (or the first completion after it): kill 0.300 s, gap 0.300 s; pause 0.100 s, gap 0.100 s
nemesis-soak: 2 runs, 2000 operations checked in 1m30s: 1 failures
`, w.String())
}
