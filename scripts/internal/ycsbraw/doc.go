// Package ycsbraw is what scripts/ycsbstat and scripts/plot share about
// go-ycsb's raw measurements: the file go-ycsb (v1.0.3) writes with
// measurementtype=raw and measurement.output_file=FILE, one line per
// operation ("operation,timestamp_us,latency_us"), and the summary
// go-ycsb's default histogram measurement would have printed for the
// same operations.
//
// With measurementtype=raw go-ycsb keeps every latency and prints no
// summary at all, so scripts/peers/run.sh, which reads the summary,
// gets it from here instead. The summary uses go-ycsb's histogram
// geometry (1 µs to 24 h, three significant digits) and hdrhistogram's
// percentile rule, so its percentiles are those go-ycsb would have
// printed. Nothing here is safe for concurrent use, and nothing needs
// to be.
package ycsbraw
