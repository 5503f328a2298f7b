package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"swiftpaxos/config"
	"swiftpaxos/cost"
)

// ClassJSON is one consistency class of summary.json: all its operations,
// then reads and writes apart. Percentiles are true percentiles over every
// operation of every process.
type ClassJSON struct {
	Ops      int64        `json:"ops"`
	MeanMs   float64      `json:"mean_ms"`
	P50Ms    float64      `json:"p50_ms"`
	P99Ms    float64      `json:"p99_ms"`
	P999Ms   float64      `json:"p999_ms"`
	Read     LatencyStats `json:"read"`
	Write    LatencyStats `json:"write"`
	FastPath *int64       `json:"fast_path,omitempty"`
	SlowPath *int64       `json:"slow_path,omitempty"`
}

// CheckJSON says whether the run was checked and what the checker found.
type CheckJSON struct {
	Ran        bool     `json:"ran"`
	OK         bool     `json:"ok"`
	Violations int      `json:"violations"`
	Checked    int      `json:"checked"`
	Unknown    int      `json:"unknown"`
	First      []string `json:"first_violations,omitempty"`
}

// RunSummary is summary.json: the merged results of all client processes
// of one run.
type RunSummary struct {
	Protocol      string    `json:"protocol"`
	Replicas      int       `json:"replicas"`
	Clients       int       `json:"clients"`
	Threads       int       `json:"threads"`
	Pendings      int       `json:"pendings"`
	Ops           int64     `json:"ops"`
	Errors        int64     `json:"errors"`
	Timeouts      int64     `json:"timeouts"`
	DurationS     float64   `json:"duration_s"`
	ThroughputOps float64   `json:"throughput_ops"`
	Strong        ClassJSON `json:"strong"`
	Weak          ClassJSON `json:"weak"`
	// Timeline[i] counts the operations of all processes completed in
	// second i since StartUnixMs, the earliest process start;
	// TimelineFast[i] and TimelineSlow[i] the strong ones on each path.
	Timeline     []int64 `json:"timeline"`
	TimelineFast []int64 `json:"timeline_fast"`
	TimelineSlow []int64 `json:"timeline_slow"`
	StartUnixMs  int64   `json:"start_unix_ms"`
	// Complete is false when a client process stopped early or, named in
	// MissingClients, left no results: the figures then cover only some
	// of the run.
	Complete       bool     `json:"complete"`
	MissingClients []string `json:"missing_clients,omitempty"`
	// KilledClients are the client processes the launcher's nemesis
	// killed: they left no results, and with --check their journals
	// stand for their histories. The figures leave them out, and the run
	// is complete without them.
	KilledClients []string      `json:"killed_clients,omitempty"`
	Processes     []ProcessLine `json:"processes"`
	Check         CheckJSON     `json:"check"`
	// Events are the launcher's kills and restarts (events.txt), Restart
	// the last restart and what followed (results_restart.go).
	Events  []EventJSON  `json:"events,omitempty"`
	Restart *RestartJSON `json:"restart,omitempty"`
	// Outage is a whole-cluster crash and restart (results_outage.go).
	Outage *OutageJSON `json:"outage,omitempty"`
	// Kill is a replica killed for good and the view that followed
	// (results_kill.go).
	Kill *KillJSON `json:"kill,omitempty"`
	// Nemesis lists the faults of a --nemesis run (results_events.go) and
	// Availability how the run fared through them (results_nemesis.go).
	// A run with a nemesis has no Restart, Outage or Kill: those follow
	// one fault.
	Nemesis      []FaultJSON       `json:"nemesis,omitempty"`
	Availability *AvailabilityJSON `json:"availability,omitempty"`
	// Cost is what the processes spent per operation (results_cost.go);
	// absent when none reported.
	Cost *cost.Section `json:"cost,omitempty"`
	// Interrupted says that the user stopped the run (Ctrl-C): the
	// figures cover what the clients completed and saved before.
	Interrupted bool `json:"interrupted,omitempty"`
}

// OK reports whether the run is one whose numbers can be trusted: it ran
// to its end, every process completed, no operation failed, and the check
// (if any) passed.
func (r *RunSummary) OK() bool {
	return !r.Interrupted && r.Complete && r.Errors == 0 && r.Timeouts == 0 && (!r.Check.Ran || r.Check.OK)
}

// SummaryOptions are what the launcher knows of a run beyond its files.
type SummaryOptions struct {
	// Interrupted: the user stopped the run before its end.
	Interrupted bool
}

// Summarize merges dir/results-*.json (and the replicas' dir/cost-*.json)
// into dir/summary.json and dir/summary.txt (also written to out) and,
// when the run recorded histories (dir/history-*.jsonl), checks them
// against the replicas' applied logs (dir/log-*.jsonl, one per replica
// lifetime). The launcher's kills and restarts (dir/events.txt) are
// placed on the timeline, and a restart is followed in the replica's log
// (results_restart.go). It returns the summary; the caller decides the
// exit status with OK.
func Summarize(dir string, cfg *config.Config, out io.Writer, o SummaryOptions) (*RunSummary, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "results-*.json"))
	if err != nil || len(paths) == 0 {
		return nil, fmt.Errorf("no results-*.json in %s", dir)
	}
	sort.Strings(paths)
	var rs []ProcessResults
	pendings := 0
	for _, p := range paths {
		r, err := ReadResults(p)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
		pendings = max(pendings, r.Pendings)
	}
	sum, err := MergeResults(rs)
	if err != nil {
		return nil, err
	}
	rep := &RunSummary{
		Protocol: sum.Protocol, Replicas: cfg.N(), Clients: len(rs), Threads: sum.Threads, Pendings: pendings,
		Ops: sum.Ops, Errors: sum.Errors, Timeouts: sum.Timeouts, DurationS: sum.DurationS, ThroughputOps: sum.ThroughputOps,
		Timeline: sum.Timeline, TimelineFast: sum.TimelineFast, TimelineSlow: sum.TimelineSlow, StartUnixMs: sum.StartUnixMs,
		Complete: sum.Complete, Processes: sum.Processes,
		Strong: classJSON(sum.Strong), Weak: classJSON(sum.Weak), Interrupted: o.Interrupted,
	}
	rep.Strong.FastPath, rep.Strong.SlowPath = &sum.FastPath, &sum.SlowPath
	ev, err := readEvents(dir, sum.StartUnixMs)
	if err != nil {
		return nil, err
	}
	rep.Events = ev.procs
	if len(ev.faults) > 0 {
		clients := make([]string, len(cfg.Clients))
		for i, h := range cfg.Clients {
			clients[i] = h.Alias
		}
		rep.Nemesis, rep.KilledClients = ev.faults, killedClients(clients, ev.procs)
	}
	rep.MissingClients = missingClients(cfg, rs, rep.KilledClients)
	rep.Complete = rep.Complete && len(rep.MissingClients) == 0
	if rep.Nemesis == nil {
		if rep.Outage, err = outageOf(dir, rep.Events, cfg.N(), &sum); err != nil {
			return nil, err
		}
	}
	if rep.Nemesis == nil && rep.Outage == nil {
		if rep.Restart, err = restartOf(dir, rep.Events, &sum); err != nil {
			return nil, err
		}
		if rep.Kill, err = killOf(dir, rep.Events, cfg, &sum); err != nil {
			return nil, err
		}
	}
	chk, err := checkRun(dir, rep.KilledClients)
	if err != nil {
		return nil, err
	}
	if rep.Nemesis != nil {
		rep.Availability = availabilityOf(rep.Nemesis, chk.ops, &sum, issuedUntil(rs))
		placeViolations(&chk, rep.Nemesis)
	}
	rep.Check = chk.json
	if rep.Cost, err = costOf(dir, cfg, rs, rep.Ops); err != nil {
		return nil, err
	}

	var txt strings.Builder
	if rep.Interrupted {
		fmt.Fprintln(&txt, "INTERRUPTED RUN: stopped before its end; the figures cover what the clients completed and saved")
	}
	for _, a := range rep.KilledClients {
		fmt.Fprintf(&txt, "Killed by the nemesis: %s, whose results are lost with it; the figures leave it out\n", a)
	}
	for _, a := range rep.MissingClients {
		fmt.Fprintf(&txt, "INCOMPLETE RUN: %s left no results-%s.json: the process did not run, or did not finish; the figures leave it out\n", a, a)
	}
	if err := sum.WriteText(&txt); err != nil {
		return nil, err
	}
	if rep.Cost != nil {
		fmt.Fprintln(&txt, "\n"+rep.Cost.Line())
	}
	if rep.Restart != nil {
		writeRestartText(&txt, rep.Restart, &sum)
	}
	if rep.Kill != nil {
		writeKillText(&txt, rep.Kill, &sum)
	}
	if rep.Outage != nil {
		writeOutageText(&txt, rep.Outage)
	}
	if rep.Availability != nil {
		writeNemesisText(&txt, rep.Nemesis, rep.Availability)
	}
	switch {
	case !rep.Check.Ran:
		fmt.Fprintln(&txt, "Check: not run (use --check)")
	case rep.Check.OK:
		fmt.Fprintf(&txt, "Check: checked %d operations: OK\n", rep.Check.Checked)
	case rep.Check.Checked == 0:
		fmt.Fprintf(&txt, "Check: FAILED: %s\n", strings.Join(rep.Check.First, "; "))
	default:
		fmt.Fprintf(&txt, "Check: checked %d operations: %d violations, %d undecided\n", rep.Check.Checked, rep.Check.Violations, rep.Check.Unknown)
		for _, v := range rep.Check.First {
			fmt.Fprintf(&txt, "  %s\n", v)
		}
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := errors.Join(
		os.WriteFile(filepath.Join(dir, "summary.json"), append(b, '\n'), 0o644),
		os.WriteFile(filepath.Join(dir, "summary.txt"), []byte(txt.String()), 0o644),
	); err != nil {
		return nil, err
	}
	_, err = io.WriteString(out, txt.String())
	return rep, err
}

// issuedUntil is when the first client process stopped issuing
// operations (its start plus runTime), in Unix ms; 0 for a run of reqs.
func issuedUntil(rs []ProcessResults) int64 {
	var until int64
	for _, r := range rs {
		if r.RunTimeS <= 0 {
			return 0
		}
		end := r.StartUnixMs + int64(r.RunTimeS*1000)
		if until == 0 || end < until {
			until = end
		}
	}
	return until
}

// missingClients names the client processes of cfg without results in
// rs, in the configuration's order, but those in killed.
func missingClients(cfg *config.Config, rs []ProcessResults, killed []string) []string {
	var missing []string
	for _, h := range cfg.Clients {
		if !slices.Contains(killed, h.Alias) && !slices.ContainsFunc(rs, func(r ProcessResults) bool { return strings.EqualFold(r.Alias, h.Alias) }) {
			missing = append(missing, h.Alias)
		}
	}
	return missing
}

func classJSON(c ClassSummary) ClassJSON {
	return ClassJSON{Ops: c.Count, MeanMs: c.All.MeanMs, P50Ms: c.All.P50Ms, P99Ms: c.All.P99Ms, P999Ms: c.All.P999Ms, Read: c.Reads, Write: c.Writes}
}
