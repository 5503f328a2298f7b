package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"swiftpaxos/scripts/internal/ycsbraw"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "ycsbstat:", err)
		os.Exit(1)
	}
}

const usage = "usage: ycsbstat FILE (go-ycsb's measurement.output_file of a measurementtype=raw phase)"

func run(args []string, out io.Writer) error {
	if len(args) != 1 || args[0] == "" || args[0][0] == '-' {
		return errors.New(usage)
	}
	s, err := ycsbraw.ReadFile(args[0])
	if err != nil {
		return err
	}
	if len(s.Ops) == 0 {
		return fmt.Errorf("%s: no operations", args[0])
	}
	return s.WriteSummary(out)
}
