package sweep

import (
	"encoding/json"
	"fmt"
	"math"
	"os"

	"swiftpaxos/client/bench"
	"swiftpaxos/cost"
)

// ReadSummary reads a run's summary.json (written by run-multi-client.sh
// through swiftpaxos -run summary).
func ReadSummary(path string) (*bench.RunSummary, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s bench.RunSummary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &s, nil
}

// Measure fills the measured columns of r from s, and its protocol when r
// has none. It does not set OK: whether the run succeeded is also the
// launcher's exit status, which only the caller knows.
func (r *Row) Measure(s *bench.RunSummary) {
	r.Measured = true
	if r.Protocol == "" {
		r.Protocol = s.Protocol
	}
	r.Throughput = s.ThroughputOps
	r.StrongP50, r.StrongP99 = classLatency(s.Strong)
	r.WeakP50, r.WeakP99 = classLatency(s.Weak)
	if s.Strong.FastPath != nil {
		r.FastPath = *s.Strong.FastPath
	}
	if s.Strong.SlowPath != nil {
		r.SlowPath = *s.Strong.SlowPath
	}
	r.CPUPerOp, r.FsyncsPerOp = costPerOp(s.Cost)
	r.Errors = s.Errors + s.Timeouts
}

// costPerOp is the CPU (µs) and the log fsyncs per operation of every
// process of the run, NaN when the summary has no cost (an older build's),
// no operation to divide by, or misses a process's report (its figures
// would count some processes only). The summary omits fsyncs in memory
// mode: then they are 0, which is what the replicas did.
func costPerOp(c *cost.Section) (cpuUs, fsyncs float64) {
	if c == nil || c.Ops <= 0 || len(c.Missing) > 0 {
		return math.NaN(), math.NaN()
	}
	return c.PerOp.CPUUs, c.PerOp.Fsyncs
}

// classLatency is the median and P99 of a class, NaN when it has no
// operations (summary.json then says 0, which is not a latency).
func classLatency(c bench.ClassJSON) (p50, p99 float64) {
	if c.Ops == 0 {
		return math.NaN(), math.NaN()
	}
	return c.P50Ms, c.P99Ms
}
