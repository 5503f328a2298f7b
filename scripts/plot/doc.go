// Command plot renders the PNG charts of docs/TUNING.md from benchmark
// output, with gonum.org/v1/plot:
//
//	go run ./scripts/plot -csv DIR/sweep.csv[,DIR2/sweep.csv] -out OUTDIR
//	go run ./scripts/plot -runs RUNDIR1[,RUNDIR2...] [-labels a,b] -out OUTDIR
//	go run ./scripts/plot -memory RUNDIR1[,RUNDIR2...] [-labels a,b] -out OUTDIR
//	go run ./scripts/plot -timeline RUNDIR1[,RUNDIR2...] [-labels a,b] -out OUTDIR
//	go run ./scripts/plot -peers PEERSDIR -out OUTDIR
//
// From sweep.csv files (written by scripts/sweep.sh), for every swept key:
//
//   - KEY-throughput.png: throughput against the swept value, the median
//     of the iterations with min-max bars and every iteration as a dot,
//     one line per protocol;
//   - KEY-latency.png: median and P99 latency of strong and weak
//     operations against throughput, one point per value (labelled with
//     it, on a white box at the side of the point its lines leave free),
//     the median of the iterations.
//
// Only runs with ok=true count. Several CSVs (say, one per protocol) are
// drawn on the same charts.
//
// From run directories (written by run-multi-client.sh), the exact
// latency distribution of each run: the results-*.json of its client
// processes are read with bench.ReadResults, their HDR histograms merged
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
// From run directories of the memory experiment (run-multi-client.sh
// --sample-rss 10, see scripts/memory.conf), whether a long run's state
// stays bounded: dir/rss.csv holds every replica's VmRSS every 10 s and
// dir/summary.json the run's start and its throughput second by second.
//
//   - memory-LABEL.png per run: the RSS of each replica against seconds
//     since the clients started (the line broken where a replica was not
//     running), above the throughput timeline and its 10-s moving
//     average, with the windows of the acceptance rule marked;
//   - on stdout, markdown tables to paste into the docs: the verdict of
//     the rule "every replica's RSS over the last tenth of the run is
//     within 10% of its RSS at the end of the first tenth, and
//     throughput over the last tenth within 10% of the first", and each
//     run's RSS curve, one row per pass of the sampler.
//
// The run length T is the length of the timeline in seconds. A replica's
// reference is its reading nearest T/10; its readings in [0.9T, T] must
// all lie within 10% of it (readings after T, once the clients have
// stopped, are drawn but not judged, and a replica with no reading there
// fails). Throughput compares the mean of seconds [0, T/10) with that of
// [0.9T, T). A malformed line of either file is an error naming the file
// and line, as is a replica with fewer than two readings.
//
// From run directories, what a run did over time, and through the faults
// of run-multi-client.sh --nemesis (summary.json's nemesis list):
//
//   - timeline-LABEL.png per run: the operations completed per second,
//     all and strong ones, in 100-ms bins from the histories (and a
//     killed client's journal) of a checked run, else in the seconds of
//     summary.json's timeline, over a translucent band per fault, from
//     its start to its heal, one colour per kind (a client kill, which
//     has no length, a narrow band; a replica killed for good, a band to
//     the end).
//
// From the output directory of scripts/peers/run.sh (issue 31's YCSB
// comparison of swiftpaxos, etcd and Redis, docs/PEERS.md):
//
//   - peers-throughput.png: a panel per thread setting, a group of bars
//     per workload, a bar per system: the median throughput of the
//     cell's ok rounds (peers.csv's rows with status ok), labelled with
//     it, a whisker from the slowest round to the fastest when there are
//     several, and "no ok run" where the cell has rows but none ok;
//   - peers-cdf-W.png and peers-tail-W.png for every workload W with raw
//     latencies (run.sh keeps them for workload A only, in
//     PEERSDIR/lat/ROUND-THREADS-SYSTEM-W.csv.gz, go-ycsb's
//     measurementtype=raw): a row per thread setting, a column per
//     operation (READ, UPDATE...), a curve per system, the exact
//     empirical CDF of every operation of its ok rounds, and latency by
//     percentile. Latency is on a log axis: the systems differ by orders
//     of magnitude.
//
// A system has the same colour on every chart: its place in the order in
// which systems first appear in peers.csv (run.sh's -s order). The
// columns of peers.csv are found by name; a missing one, a malformed
// field, a cell with two ok rows or a file with no ok row is an error
// naming the line. An ok cell without its latency file (a comparison
// begun before run.sh kept them) is left out of the CDF, which says so
// in its title and on stdout.
//
// The x axis of a sweep chart shows exactly the swept values: linear when
// they are numbers of similar size, logarithmic when they span more than
// two decades, and evenly spaced categories when they are not numbers
// (override with -xscale).
package main
