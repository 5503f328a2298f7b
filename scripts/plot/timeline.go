package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"swiftpaxos/check"
	"swiftpaxos/client/bench"
)

// timelineRun is what -timeline reads from one run directory: the
// throughput over time, all operations and strong ones, and the faults
// of a --nemesis run.
type timelineRun struct {
	Label, Protocol string
	// Bin is the width of a point in seconds: 0.1 from the histories of
	// a checked run, 1 from summary.json's timeline otherwise.
	Bin         float64
	All, Strong []float64 // operations per second, bin by bin from the start
	Faults      []faultBand
}

// faultBand is one fault on the run's axis, in seconds since the
// clients started.
type faultBand struct {
	Kind, Target string
	From, To     float64
	// Open: never undone (a replica killed for good): the band runs to
	// the end of the run.
	Open bool
}

// end is the run's last second on the chart.
func (r timelineRun) end() float64 { return float64(len(r.All)) * r.Bin }

// historyBin is the width of a point drawn from the histories.
const historyBin = 0.1

// loadTimelineRun reads dir/summary.json and, when the run recorded them,
// its histories (finer than the summary's seconds).
func loadTimelineRun(dir string) (timelineRun, error) {
	path := filepath.Join(dir, "summary.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return timelineRun{}, err
	}
	var s bench.RunSummary
	if err := json.Unmarshal(data, &s); err != nil {
		return timelineRun{}, jsonError(path, data, err)
	}
	if s.StartUnixMs == 0 || len(s.Timeline) == 0 {
		return timelineRun{}, fmt.Errorf("%s: no start_unix_ms or no timeline", path)
	}
	r := timelineRun{Label: dirLabel(dir), Protocol: s.Protocol}
	ops, _, found, err := bench.RunHistories(dir, s.KilledClients)
	if err != nil {
		return timelineRun{}, err
	}
	if found {
		r.Bin = historyBin
		r.All, r.Strong = binned(ops, s.StartUnixMs, historyBin)
	} else {
		r.Bin = 1
		for i, n := range s.Timeline {
			r.All = append(r.All, float64(n))
			strong := 0.0
			if i < len(s.TimelineFast) && i < len(s.TimelineSlow) {
				strong = float64(s.TimelineFast[i] + s.TimelineSlow[i])
			}
			r.Strong = append(r.Strong, strong)
		}
	}
	for _, f := range s.Nemesis {
		if f.Skipped {
			continue
		}
		b := faultBand{Kind: f.Kind, Target: f.Target, From: f.StartS, To: f.StartS}
		switch {
		case f.EndS != nil:
			b.To = *f.EndS
		case f.Kind != "client":
			b.Open = true
		}
		r.Faults = append(r.Faults, b)
	}
	return r, nil
}

// binned counts the completed operations of ops in bins of bin seconds
// from startMs, as operations per second, all and strong apart.
func binned(ops []check.Op, startMs int64, bin float64) (all, strong []float64) {
	add := func(xs *[]float64, i int) {
		for len(*xs) <= i {
			*xs = append(*xs, 0)
		}
		(*xs)[i] += 1 / bin
	}
	for _, o := range ops {
		if !o.OK {
			continue
		}
		t := float64(o.ReturnNS/1e6-startMs) / 1000
		if t < 0 {
			continue // none should: the start is the earliest process's
		}
		i := int(math.Floor(t / bin))
		add(&all, i)
		if o.Level == check.Strong {
			add(&strong, i)
		}
	}
	for len(strong) < len(all) {
		strong = append(strong, 0)
	}
	return all, strong
}
