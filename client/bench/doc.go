// Package bench is the benchmark client process (swiftpaxos -run client):
// Run opens clientThreads sessions of the client library, drives each
// with the configured workload (workload.go, workload_zipf.go, keys.go) in
// a window of pendings operations (bench.go, bench_loop.go), records
// latencies per class (results_hist.go), the history of a checked run
// (history.go) and, for a process that may be killed, a journal of its
// invocations (journal.go), and writes its results file.
//
// Summarize and ProcessResults merge the results of a run's processes
// into its summary (runsummary.go, results*.go): throughput, latency per
// class, the cost per operation, and what the launcher's faults did
// (kills, restarts, outages, the nemesis's faults and availability).
//
// It uses only the client library's exported API, as any program would;
// nothing below it imports it.
package bench
