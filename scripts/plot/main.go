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

-csv draws, for every swept key, KEY-throughput.png and KEY-latency.png;
-runs draws the exact latency CDF of each run (cdf-LABEL.png) and, for
several runs, cdf-compare.png. Both may be given at once.
`

func plotMain(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("plot", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), usage); fs.PrintDefaults() }
	csvs := fs.String("csv", "", "comma-separated sweep.csv files (scripts/sweep.sh)")
	runs := fs.String("runs", "", "comma-separated run directories (run-multi-client.sh -o)")
	labels := fs.String("labels", "", "comma-separated labels of the -runs (default: directory names)")
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
	if *out == "" || (*csvs == "" && *runs == "") {
		return errors.New("need -out and -csv or -runs\n" + usage)
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
		dirs, names := split(*runs), split(*labels)
		if len(names) > 0 && len(names) != len(dirs) {
			return fmt.Errorf("-labels has %d labels for %d -runs", len(names), len(dirs))
		}
		var rs []run
		for i, d := range dirs {
			r, err := loadRun(d)
			if err != nil {
				return err
			}
			if len(names) > 0 {
				r.Label = names[i]
			}
			rs = append(rs, r)
		}
		fs, err := writeRunCharts(rs, *out, *prefix)
		if err != nil {
			return err
		}
		files = append(files, fs...)
	}
	for _, f := range files {
		fmt.Fprintln(stdout, f)
	}
	return nil
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
