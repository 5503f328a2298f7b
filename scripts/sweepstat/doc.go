// Command sweepstat is the bookkeeping half of scripts/sweep.sh, in Go so
// that a sweep needs nothing the build does not (no python, no jq):
//
//	sweepstat row -csv FILE -param P -value V -iteration I [-protocol P] -status N RUNDIR
//	    appends the row of one run to FILE (a sweep.csv, created with its
//	    header when missing) from RUNDIR/summary.json, and prints the run's
//	    throughput in ops/s, or "-" when it left no summary. -status is the
//	    launcher's exit status: the row is ok only when it is 0 and the
//	    summary says the run completed without errors.
//	sweepstat summary [-md] FILE
//	    prints sweep-summary.csv for the sweep.csv FILE (per value: runs,
//	    ok runs, and median, min and max of throughput, latencies and
//	    fast-path share over the ok runs), or with -md a Markdown table.
package main
