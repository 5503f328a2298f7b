package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"swiftpaxos/client/bench"
	"swiftpaxos/scripts/internal/nemesis"
)

// The soak's defaults: every kind a configuration allows.
const (
	memoryKinds  = "kill,restart,pause,partition,client"
	durableKinds = "kill,restart,wipe,pause,partition,crash-all,client"
	memoryConf   = "scripts/nemesis.conf"
	durableConf  = "scripts/nemesis-durable.conf"
)

// soakOptions are nemesis soak's flags.
type soakOptions struct {
	d       time.Duration
	proto   string
	durable bool
	kinds   string
	every   string
	conf    string
	out     string
	keep    bool
}

// soakMain runs checked nemesis runs one after another, each with a
// fresh seed, until d has passed, printing a line per run, a replay
// command per failing one, and the totals; it fails when a run did.
func soakMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("nemesis soak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o soakOptions
	fs.DurationVar(&o.d, "d", 30*time.Minute, "how long to start runs for (the last one ends after)")
	fs.StringVar(&o.proto, "p", "", "protocol: curpht or curpho (required)")
	fs.BoolVar(&o.durable, "durable", false, "durable replicas ("+durableConf+"), crash-all and wipe in the mix")
	fs.StringVar(&o.kinds, "kinds", "", "fault kinds (default "+memoryKinds+", with -durable "+durableKinds+")")
	fs.StringVar(&o.every, "every", "5s", "mean time between faults")
	fs.StringVar(&o.conf, "c", "", "configuration (default "+memoryConf+", with -durable "+durableConf+")")
	fs.StringVar(&o.out, "o", "", "directory of the runs (default results/nemesis-soak-<time>)")
	fs.BoolVar(&o.keep, "keep", false, "keep the directories of runs that passed (they hold every history: hundreds of MB)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "nemesis soak: unexpected argument %q\n", fs.Arg(0))
		return 2
	case o.proto != "curpht" && o.proto != "curpho":
		fmt.Fprintf(stderr, "nemesis soak: -p must be curpht or curpho, not %q\n", o.proto)
		return 2
	case o.d <= 0:
		fmt.Fprintf(stderr, "nemesis soak: -d %v: give a duration above 0\n", o.d)
		return 2
	}
	if o.kinds == "" {
		o.kinds = map[bool]string{false: memoryKinds, true: durableKinds}[o.durable]
	}
	if o.conf == "" {
		o.conf = map[bool]string{false: memoryConf, true: durableConf}[o.durable]
	}
	if o.out == "" {
		o.out = filepath.Join("results", "nemesis-soak-"+time.Now().Format("20060102-150405"))
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		fmt.Fprintf(stderr, "nemesis soak: %v\n", err)
		return 2
	}
	mode := "in memory"
	if o.durable {
		mode = "durable"
	}
	fmt.Fprintf(stdout, "nemesis-soak: %s, %s, %s, kinds %s every %s, for %v (runs in %s)\n", o.proto, mode, o.conf, o.kinds, o.every, o.d, o.out)
	t := newTally()
	start := time.Now()
	for n := 1; time.Since(start) < o.d && ctx.Err() == nil; n++ {
		seed, err := freshSeed()
		if err != nil {
			fmt.Fprintf(stderr, "nemesis soak: %v\n", err)
			return 2
		}
		t.add(n, seed, o.run(ctx, n, seed), o, stdout)
	}
	t.print(stdout, time.Since(start), ctx.Err() != nil)
	if t.failed > 0 || t.runs == 0 {
		return 1
	}
	return 0
}

// freshSeed is a random seed short enough to type (48 bits).
func freshSeed() (uint64, error) {
	var b [8]byte
	if _, err := rand.Read(b[:6]); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b[:]), nil
}

// launcherArgs are the launcher's arguments for the run of seed, but -o.
func (o soakOptions) launcherArgs(seed uint64) []string {
	return []string{"-c", o.conf, "-p", o.proto, "--check", "--nemesis", o.kinds, "--nemesis-every", o.every, "--nemesis-seed", fmt.Sprint(seed)}
}

// runResult is one run: its summary, or why there is none to trust.
type runResult struct {
	sum     *bench.RunSummary
	failure string
	dir     string
}

// run runs the launcher once, its output in DIR/run-N.log; an interrupt
// reaches it as one (it stops its processes and writes a partial
// summary).
func (o soakOptions) run(ctx context.Context, n int, seed uint64) runResult {
	dir := filepath.Join(o.out, fmt.Sprintf("run-%03d", n))
	res := runResult{dir: dir}
	logPath := filepath.Join(o.out, fmt.Sprintf("run-%03d.log", n))
	log, err := os.Create(logPath)
	if err != nil {
		res.failure = err.Error()
		return res
	}
	defer log.Close()
	cmd := exec.CommandContext(ctx, "./run-multi-client.sh", append(o.launcherArgs(seed), "-o", dir)...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	runErr := cmd.Run()
	if b, err := os.ReadFile(filepath.Join(dir, "summary.json")); err == nil {
		var s bench.RunSummary
		if err := json.Unmarshal(b, &s); err == nil {
			res.sum = &s
		}
	}
	switch {
	case ctx.Err() != nil:
		res.failure = "interrupted"
	case res.sum == nil:
		res.failure = fmt.Sprintf("no summary (%v); see %s", runErr, logPath)
	case !res.sum.Check.Ran:
		res.failure = "the run was not checked; see " + logPath
	case !res.sum.Check.OK:
		res.failure = fmt.Sprintf("check: %d violations, %d undecided: %s", res.sum.Check.Violations, res.sum.Check.Unknown, strings.Join(res.sum.Check.First, "; "))
	case runErr != nil:
		res.failure = fmt.Sprintf("%v: %s", runErr, lastLine(logPath))
	}
	if res.failure == "" && !o.keep {
		if err := os.RemoveAll(dir); err != nil {
			res.failure = err.Error()
		}
	}
	return res
}

// lastLine is the launcher's last line that says something went wrong,
// else its last line.
func lastLine(path string) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], "run-multi-client.sh:") || strings.HasPrefix(lines[i], "swiftpaxos:") {
			return lines[i]
		}
	}
	return lines[len(lines)-1]
}

// tally sums the runs up.
type tally struct {
	runs, failed     int
	checked          int64
	seconds, withOps int
	worstGap         float64
	worstGapRun      int
	faults, skipped  map[string]int
	served, strong   map[string][]float64 // per kind, every fault's time until served again
	gaps             map[string][]float64 // per kind, every fault's longest gap
}

func newTally() tally {
	return tally{faults: map[string]int{}, skipped: map[string]int{}, served: map[string][]float64{}, strong: map[string][]float64{}, gaps: map[string][]float64{}}
}

func (t *tally) add(n int, seed uint64, r runResult, o soakOptions, w io.Writer) {
	if r.failure == "interrupted" {
		return
	}
	t.runs++
	var faults []string
	if s := r.sum; s != nil {
		t.checked += int64(s.Check.Checked)
		for _, f := range s.Nemesis {
			if f.Skipped {
				t.skipped[f.Kind]++
				continue
			}
			t.faults[f.Kind]++
			if f.FirstOpAfterS != nil {
				t.served[f.Kind] = append(t.served[f.Kind], *f.FirstOpAfterS)
			}
			if f.FirstStrongAfterS != nil {
				t.strong[f.Kind] = append(t.strong[f.Kind], *f.FirstStrongAfterS)
			}
			if f.GapS != nil {
				t.gaps[f.Kind] = append(t.gaps[f.Kind], *f.GapS)
			}
		}
		if a := s.Availability; a != nil {
			t.seconds += a.Seconds
			t.withOps += a.SecondsWithOps
			if a.LongestGapS > t.worstGap {
				t.worstGap, t.worstGapRun = a.LongestGapS, n
			}
			faults = append(faults, fmt.Sprintf("availability %.1f%%, longest gap %.3f s", 100*a.Share, a.LongestGapS))
		}
		faults = append([]string{fmt.Sprintf("%d faults (%s)", countFaults(s.Nemesis), kindCounts(s.Nemesis)), fmt.Sprintf("%d operations checked", s.Check.Checked)}, faults...)
	}
	if r.failure != "" {
		t.failed++
		fmt.Fprintf(w, "FAIL run %d seed %d: %s\n  replay: ./run-multi-client.sh %s\n  (kept in %s)\n", n, seed, r.failure, strings.Join(o.launcherArgs(seed), " "), r.dir)
		return
	}
	fmt.Fprintf(w, "run %d seed %d: OK: %s\n", n, seed, strings.Join(faults, ", "))
}

func countFaults(fs []bench.FaultJSON) int {
	n := 0
	for _, f := range fs {
		if !f.Skipped {
			n++
		}
	}
	return n
}

// kindCounts renders a run's faults per kind, "kill 2, pause 1".
func kindCounts(fs []bench.FaultJSON) string {
	c := map[string]int{}
	for _, f := range fs {
		if !f.Skipped {
			c[f.Kind]++
		}
	}
	return perKind(c, func(k string) string { return fmt.Sprint(c[k]) })
}

// perKind renders one item per kind present in c, in the plan's order of
// kinds, "KIND item", joined by ", ", or "none".
func perKind(c map[string]int, item func(kind string) string) string {
	return perKindSep(c, ", ", item)
}

// perKindSep is perKind with items joined by sep.
func perKindSep(c map[string]int, sep string, item func(kind string) string) string {
	var s []string
	for _, k := range nemesis.FaultKinds() {
		if c[string(k)] > 0 {
			s = append(s, string(k)+" "+item(string(k)))
		}
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, sep)
}

func (t *tally) print(w io.Writer, took time.Duration, interrupted bool) {
	fmt.Fprintf(w, "  faults: %s", perKind(t.faults, func(k string) string { return fmt.Sprint(t.faults[k]) }))
	if len(t.skipped) > 0 {
		fmt.Fprintf(w, " (skipped: %s)", perKind(t.skipped, func(k string) string { return fmt.Sprint(t.skipped[k]) }))
	}
	fmt.Fprintln(w)
	if t.seconds > 0 {
		fmt.Fprintf(w, "  availability: operations completed in %d of %d seconds (%.2f%%); longest gap %.3f s (run %d)\n",
			t.withOps, t.seconds, 100*float64(t.withOps)/float64(t.seconds), t.worstGap, t.worstGapRun)
		fmt.Fprintf(w, "  per kind, the median time from a fault until an operation invoked after it completed, and the median longest gap without a completion from the fault until 1 s after its heal (or the first completion after it): %s\n",
			perKindSep(t.faults, "; ", func(k string) string {
				s := fmt.Sprintf("%.3f s", medianOf(t.served[k]))
				if len(t.strong[k]) > 0 {
					s += fmt.Sprintf(" (strong %.3f s)", medianOf(t.strong[k]))
				}
				if len(t.gaps[k]) > 0 {
					s += fmt.Sprintf(", gap %.3f s", medianOf(t.gaps[k]))
				}
				return s
			}))
	}
	end := ""
	if interrupted {
		end = " (interrupted)"
	}
	fmt.Fprintf(w, "nemesis-soak: %d runs, %d operations checked in %v: %d failures%s\n", t.runs, t.checked, took.Round(time.Second), t.failed, end)
}

// medianOf is the median of xs (0 for none).
func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}
