package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"swiftpaxos/scripts/internal/sweep"
)

func main() {
	if err := plotMain(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "plot:", err)
		os.Exit(2)
	}
}

const usage = `usage: go run ./scripts/plot -csv SWEEP.csv[,SWEEP2.csv...] -out DIR [-xscale auto|linear|log|category] [-prefix P]
       go run ./scripts/plot -runs RUNDIR[,RUNDIR2...] [-labels L1,L2...] -out DIR [-prefix P]
       go run ./scripts/plot -memory RUNDIR[,RUNDIR2...] [-labels L1,L2...] -out DIR [-prefix P]
       go run ./scripts/plot -timeline RUNDIR[,RUNDIR2...] [-labels L1,L2...] -out DIR [-prefix P]
       go run ./scripts/plot -peers PEERSDIR -out DIR [-prefix P]

-csv draws, for every swept key, KEY-throughput.png and KEY-latency.png;
-runs draws the exact latency CDF of each run (cdf-LABEL.png) and, for
several runs, cdf-compare.png; -memory draws each run's replica memory
(rss.csv of run-multi-client.sh --sample-rss) and throughput against
time (memory-LABEL.png) and prints, as markdown tables, whether both
stayed within 10% from the first tenth of the run to the last, and the
RSS curve; -timeline draws each run's throughput over time
(timeline-LABEL.png), in 100-ms bins from the histories of a checked
run, else in seconds from summary.json, over shaded bands for the
faults of a --nemesis run, one colour per kind; -peers draws
scripts/peers/run.sh's comparison from PEERSDIR/peers.csv and
PEERSDIR/lat/ (peers-throughput.png, and peers-cdf-W.png and
peers-tail-W.png for every workload W with raw latencies). Any of them
may be given at once; -labels names the directories of -runs, -memory
and -timeline alike.
`

func plotMain(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("plot", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), usage); fs.PrintDefaults() }
	csvs := fs.String("csv", "", "comma-separated sweep.csv files (scripts/sweep.sh)")
	runs := fs.String("runs", "", "comma-separated run directories (run-multi-client.sh -o)")
	memory := fs.String("memory", "", "comma-separated run directories with rss.csv (run-multi-client.sh --sample-rss)")
	timeline := fs.String("timeline", "", "comma-separated run directories (run-multi-client.sh -o), a --nemesis run's faults drawn as bands")
	peersDir := fs.String("peers", "", "output directory of scripts/peers/run.sh (peers.csv, lat/)")
	labels := fs.String("labels", "", "comma-separated labels of the -runs, -memory or -timeline directories (default: directory names)")
	out := fs.String("out", "", "directory for the PNGs (created)")
	prefix := fs.String("prefix", "", "prefix of every file name")
	scale := fs.String("xscale", scaleAuto, "x axis of sweep charts: auto, linear, log or category")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q\n%s", fs.Arg(0), usage)
	}
	if *out == "" || (*csvs == "" && *runs == "" && *memory == "" && *timeline == "" && *peersDir == "") {
		return errors.New("need -out and -csv, -runs, -memory, -timeline or -peers\n" + usage)
	}
	names := split(*labels)
	for _, f := range []struct{ name, dirs string }{{"-runs", *runs}, {"-memory", *memory}, {"-timeline", *timeline}} {
		if n := len(split(f.dirs)); len(names) > 0 && n > 0 && len(names) != n {
			return fmt.Errorf("-labels has %d labels for %d %s directories", len(names), n, f.name)
		}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	var files []string
	if *csvs != "" {
		var rows []sweep.Row
		for _, path := range split(*csvs) {
			rs, err := sweep.ReadCSVFile(path)
			if err != nil {
				return err
			}
			rows = append(rows, rs...)
		}
		fs, err := writeSweepCharts(rows, *out, *prefix, *scale)
		if err != nil {
			return err
		}
		files = append(files, fs...)
	}
	if *runs != "" {
		rs, err := loadAll(split(*runs), names, loadRun, func(r *run, l string) { r.Label = l })
		if err != nil {
			return err
		}
		fs, err := writeRunCharts(rs, *out, *prefix)
		if err != nil {
			return err
		}
		files = append(files, fs...)
	}
	if *memory != "" {
		ms, err := loadAll(split(*memory), names, loadMemoryRun, func(m *memoryRun, l string) { m.Label = l })
		if err != nil {
			return err
		}
		fs, err := writeMemoryCharts(ms, *out, *prefix)
		if err != nil {
			return err
		}
		files = append(files, fs...)
		if err := writeFlatnessReport(stdout, ms); err != nil {
			return err
		}
		fmt.Fprintln(stdout)
	}
	if *timeline != "" {
		ts, err := loadAll(split(*timeline), names, loadTimelineRun, func(r *timelineRun, l string) { r.Label = l })
		if err != nil {
			return err
		}
		fs, err := writeTimelineCharts(ts, *out, *prefix)
		if err != nil {
			return err
		}
		files = append(files, fs...)
	}
	if *peersDir != "" {
		fs, notes, err := writePeersCharts(*peersDir, *out, *prefix)
		if err != nil {
			return err
		}
		files = append(files, fs...)
		for _, n := range notes {
			fmt.Fprintln(stdout, "note:", n)
		}
	}
	for _, f := range files {
		fmt.Fprintln(stdout, f)
	}
	return nil
}

// loadAll loads every run directory of dirs, labelled by names when
// given (one per directory, checked by the caller).
func loadAll[T any](dirs, names []string, load func(string) (T, error), label func(*T, string)) ([]T, error) {
	var out []T
	for i, d := range dirs {
		r, err := load(d)
		if err != nil {
			return nil, err
		}
		if len(names) > 0 {
			label(&r, names[i])
		}
		out = append(out, r)
	}
	return out, nil
}

// split is a comma-separated list without empty items.
func split(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
