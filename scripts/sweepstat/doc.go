// Command sweepstat is the bookkeeping half of scripts/sweep.sh, in Go so
// that a sweep needs nothing the build does not (no python, no jq):
//
//	sweepstat row -csv FILE -param P -value V -iteration I [-protocol P] -status N RUNDIR
//	    appends the row of one run to FILE (a sweep.csv, created with its
//	    header when missing) from RUNDIR/summary.json, and prints the run's
//	    throughput in ops/s, or "-" when it left no summary. -status is the
//	    launcher's exit status: the row is ok only when it is 0 and the
//	    summary says the run completed without errors. The row's
//	    cpu_us_per_op and fsyncs_per_op come from the summary's cost, and
//	    are empty when it has none (an older build's). A FILE from before
//	    these two columns is first rewritten with them, empty in its rows
//	    (a note on stderr says so).
//	sweepstat summary [-md] FILE
//	    prints sweep-summary.csv for the sweep.csv FILE (per value: runs,
//	    ok runs, and median, min and max of throughput, latencies,
//	    fast-path share, CPU and fsyncs per operation over the ok runs),
//	    or with -md a Markdown table. FILE may be from before the cost
//	    columns: its runs then have no CPU or fsync figures.
package main
