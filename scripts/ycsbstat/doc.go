// Command ycsbstat prints the summary go-ycsb's histogram measurement
// would have printed for a raw measurement file:
//
//	ycsbstat FILE
//
// FILE is what go-ycsb v1.0.3 writes with -p measurementtype=raw -p
// measurement.output_file=FILE (gzipped when its name ends in .gz): one
// line per operation, and no summary on go-ycsb's stdout.
// scripts/peers/run.sh records workload A's run phase so, for the
// latency CDF of docs/PEERS.md, and appends this command's lines to the
// phase's output, where it reads every other phase's summary. The lines
// have go-ycsb's plain format and its percentiles (see package
// scripts/internal/ycsbraw). An empty or malformed file is an error
// naming the file and line; exit status 1.
package main
