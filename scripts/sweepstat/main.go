package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"swiftpaxos/scripts/internal/sweep"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "sweepstat:", err)
		os.Exit(1)
	}
}

const usage = "usage: sweepstat row -csv FILE -param P -value V -iteration I [-protocol P] -status N RUNDIR\n" +
	"       sweepstat summary [-md] FILE"

// run runs the subcommand of args, printing its result on out and notes
// on errOut.
func run(args []string, out, errOut io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	switch args[0] {
	case "row":
		return rowCmd(args[1:], out, errOut)
	case "summary":
		return summaryCmd(args[1:], out)
	}
	return fmt.Errorf("unknown subcommand %q\n%s", args[0], usage)
}

func rowCmd(args []string, out, errOut io.Writer) error {
	fs := flag.NewFlagSet("row", flag.ContinueOnError)
	csvPath := fs.String("csv", "", "sweep.csv to append to")
	r := sweep.Row{}
	fs.StringVar(&r.Param, "param", "", "swept key")
	fs.StringVar(&r.Value, "value", "", "value of the key in this run")
	fs.IntVar(&r.Iteration, "iteration", 0, "iteration, from 1")
	fs.StringVar(&r.Protocol, "protocol", "", "protocol (default: the summary's)")
	status := fs.Int("status", -1, "exit status of run-multi-client.sh")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 || *csvPath == "" || r.Param == "" || r.Iteration < 1 || *status < 0 {
		return errors.New(usage)
	}
	sum, err := sweep.ReadSummary(filepath.Join(fs.Arg(0), "summary.json"))
	if err == nil {
		r.Protocol = "" // the summary says which protocol really ran
		r.Measure(sum)
		r.OK = *status == 0 && sum.OK()
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	// A sweep.csv from before the cost columns (sweep.sh -o with an
	// earlier sweep's directory) gets them, empty in its rows, first.
	upgraded, err := sweep.UpgradeCSVFile(*csvPath)
	if err != nil {
		return err
	}
	if upgraded {
		fmt.Fprintf(errOut, "sweepstat: %s: added the columns cpu_us_per_op and fsyncs_per_op, empty in its earlier rows\n", *csvPath)
	}
	if err := sweep.AppendCSVFile(*csvPath, r); err != nil {
		return err
	}
	if !r.Measured || math.IsNaN(r.Throughput) {
		_, err = fmt.Fprintln(out, "-")
		return err
	}
	_, err = fmt.Fprintf(out, "%.0f\n", r.Throughput)
	return err
}

func summaryCmd(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("summary", flag.ContinueOnError)
	md := fs.Bool("md", false, "print a Markdown table instead of CSV")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New(usage)
	}
	rows, err := sweep.ReadCSVFile(fs.Arg(0))
	if err != nil {
		return err
	}
	gs := sweep.Summarize(rows)
	if *md {
		return sweep.WriteMarkdown(out, gs)
	}
	return sweep.WriteSummaryCSV(out, gs)
}
