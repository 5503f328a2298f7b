// Command plot renders the PNG charts of docs/TUNING.md from benchmark
// output, with gonum.org/v1/plot:
//
//	go run ./scripts/plot -csv DIR/sweep.csv[,DIR2/sweep.csv] -out OUTDIR
//	go run ./scripts/plot -runs RUNDIR1[,RUNDIR2...] [-labels a,b] -out OUTDIR
//
// From sweep.csv files (written by scripts/sweep.sh), for every swept key:
//
//   - KEY-throughput.png: throughput against the swept value, the median
//     of the iterations with min-max bars and every iteration as a dot,
//     one line per protocol;
//   - KEY-latency.png: median and P99 latency of strong and weak
//     operations against throughput, one point per value (labelled with
//     it), the median of the iterations.
//
// Only runs with ok=true count. Several CSVs (say, one per protocol) are
// drawn on the same charts.
//
// From run directories (written by run-multi-client.sh), the exact
// latency distribution of each run: the results-*.json of its client
// processes are read with client.ReadResults, their HDR histograms merged
// bucket by bucket, and the cumulative counts drawn, so a curve is the
// run's true empirical CDF at the histogram's resolution (three
// significant digits), not an interpolation between a few percentiles:
//
//   - cdf-LABEL.png per run: the CDF of each class (strong/weak,
//     read/write) and, beside it, latency by percentile on a log scale,
//     which shows the tail the CDF squeezes into its top edge;
//   - cdf-compare.png when there are several runs: one panel per class,
//     one curve per run.
//
// The x axis of a sweep chart shows exactly the swept values: linear when
// they are numbers of similar size, logarithmic when they span more than
// two decades, and evenly spaced categories when they are not numbers
// (override with -xscale).
package main
