// Package sweep is what scripts/sweep.sh, scripts/sweepstat and
// scripts/plot share: the rows of sweep.csv (one per benchmark run), how a
// row is taken from a run's summary.json, and the per-value statistics of
// sweep-summary.csv (median, minimum and maximum over the iterations).
//
// A sweep runs every value of one configuration key several times. The
// statistics use only the runs that succeeded (the row's ok column); a
// failed run stays in sweep.csv so that nobody mistakes a sweep with
// holes for a clean one. Nothing here is safe for concurrent use, and
// nothing needs to be.
package sweep
