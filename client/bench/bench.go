package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"golang.org/x/sync/errgroup"

	"swiftpaxos/client"
	"swiftpaxos/config"
	"swiftpaxos/cost"
	"swiftpaxos/metrics"
	"swiftpaxos/wire/applog"
)

// Options configures one benchmark client process.
type Options struct {
	Config *config.Config
	// Alias is the process's alias; it must be a client of Config.
	Alias string
	// Policy makes the protocol policy of one session.
	Policy func() client.Policy
	Log    *zap.Logger
	// Out receives the human summary (PROTOCOL.md 8.3); nil discards it.
	Out io.Writer
	// Progress receives a one-line report each second once the run has
	// lasted two seconds; nil discards it.
	Progress io.Writer
	// ResultsPath, when set, is where the JSON ProcessResults go.
	ResultsPath string
	// Seed, when non-zero, seeds thread i with Seed+i; otherwise seeds
	// come from the clock. Seeds are logged and stored in the results.
	Seed uint64
	// HistoryPath, when set, is where the run's history goes, in the
	// checker's JSON Lines format (PROTOCOL.md 2.6). Use it with
	// checkerMode, which makes written values unique.
	HistoryPath string
	// JournalPath, with HistoryPath, is where the history is also written
	// as the run goes (journal.go), for a process that may be killed;
	// the file is removed once the history is written.
	JournalPath string
	// Metrics, when set, is where the process's operation metrics are
	// registered (the metrics key; the caller serves the registry).
	Metrics prometheus.Registerer
}

// Run runs the benchmark client process o.Alias (PROTOCOL.md 8):
// clientThreads sessions, each a closed loop of reqs operations after one
// warm-up (or, with runTime, of as many as it issues until runTime has
// passed since the process started its threads), then prints the summary
// and writes the results. A run that
// stops early (reply timeout, ctx ended, session failure) still prints and
// writes what was measured, marked incomplete, and returns an error.
func Run(ctx context.Context, o Options) error {
	if o.Config == nil || o.Policy == nil {
		return fmt.Errorf("benchmark %s: a config and a policy are required", o.Alias)
	}
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	cfg := o.Config.For(o.Alias)
	host, found := cfg.Lookup(o.Alias)
	proc := slices.IndexFunc(cfg.Clients, func(c config.Host) bool { return c.Alias == host.Alias })
	if !found || proc < 0 {
		return fmt.Errorf("benchmark: %q is not a client of the configuration", o.Alias)
	}
	threads, window := cfg.ClientThreads, 1
	if cfg.Pipeline {
		window = max(cfg.Pendings, 1)
	}
	if threads < 1 {
		return fmt.Errorf("benchmark %s: clientThreads is %d", o.Alias, threads)
	}
	wl, err := NewWorkload(WorkloadParamsFrom(&cfg.Params))
	if err != nil {
		return fmt.Errorf("benchmark %s: %w", o.Alias, err)
	}

	var jr *journal
	if o.JournalPath != "" {
		if o.HistoryPath == "" {
			return fmt.Errorf("benchmark %s: a journal needs a history (check mode)", o.Alias)
		}
		if jr, err = openJournal(o.JournalPath); err != nil {
			return fmt.Errorf("benchmark %s: %w", o.Alias, err)
		}
		defer func() { _ = jr.close(false) }() // at once if the run never started
	}

	meter := cost.NewMeter()
	// The threads' sessions share one connection per replica.
	t, err := client.NewTransport(client.TransportOptions{Config: cfg, Alias: o.Alias, Meter: meter, Log: o.Log, Sessions: threads})
	if err != nil {
		return fmt.Errorf("client %s: %w", o.Alias, err)
	}
	defer t.Close()
	sessions, err := dialAll(ctx, cfg, o, t, threads, window, meter)
	closeSessions := sync.OnceFunc(func() {
		// Each Close waits for the cluster to confirm the session's end:
		// at once, not one after the other.
		var closing sync.WaitGroup
		for _, s := range sessions {
			if s != nil {
				closing.Go(func() { _ = s.Close() })
			}
		}
		closing.Wait()
	})
	defer closeSessions()
	if err != nil {
		return fmt.Errorf("client %s: cannot reach the cluster: %w", o.Alias, err)
	}

	// runTime, when set, replaces reqs (config: runLengthWarnings).
	reqs := cfg.Reqs
	if cfg.RunTime > 0 {
		reqs = 0
	}
	seeds := make([]uint64, threads)
	base := o.Seed
	if base == 0 {
		base = uint64(time.Now().UnixNano())
	}
	for i := range seeds {
		seeds[i] = base + uint64(i)
		o.Log.Info("benchmark thread", zap.Int("thread", i), zap.Uint64("seed", seeds[i]),
			zap.Int("reqs", reqs), zap.Duration("run_time", cfg.RunTime), zap.Int("window", window))
	}

	var ops *metrics.Ops
	if o.Metrics != nil {
		ops = metrics.NewOps(o.Metrics)
	}
	start := time.Now()
	now := func() int64 { return int64(time.Since(start)) }
	var done, failed atomic.Int64
	stats := make([]*threadStats, threads)
	errs := make([]error, threads)
	hist := make([]*historyRecorder, threads)
	var wg sync.WaitGroup
	for i := range threads {
		lo := loopOptions{
			Thread: i, Reqs: reqs, RunFor: cfg.RunTime, Window: window, ReplyTimeout: cfg.ReplyTimeout,
			Ops: wl.Generator(ThreadID{Alias: o.Alias, Process: proc, Thread: i}, seeds[i]),
			Now: now, StartUnix: start.Unix(), Progress: &done, Failed: &failed, Log: o.Log,
			Metrics: ops.Thread(),
		}
		if o.HistoryPath != "" {
			hist[i] = &historyRecorder{session: applog.SessionOf(sessions[i].ID())}
			lo.Record = hist[i].record
			if jr != nil {
				lo.Invoked, lo.Record = journaled(hist[i], jr)
			}
		}
		wg.Go(func() { stats[i], errs[i] = runThread(ctx, sessions[i], lo) })
	}
	stop := make(chan struct{})
	var reporter sync.WaitGroup
	reporter.Go(func() {
		reportProgress(o.Progress, o.Alias, int64(threads)*int64(reqs), cfg.RunTime, &done, &failed, stop)
	})
	wg.Wait()
	close(stop)
	reporter.Wait()
	for i, s := range sessions {
		if n := s.Lost(); n > 0 && stats[i] != nil {
			// Acknowledged, then lost: errors, whatever the latency said.
			stats[i].errors += n
		}
	}
	// The process's cost is measured once its connections are closed, so
	// that every batcher has reported what it sent.
	closeSessions()
	usage := cost.Take(o.Alias, cost.RoleClient, meter)

	runErr := errors.Join(errs...)
	res, err := processResults(stats, seeds, runErr)
	if err != nil {
		return fmt.Errorf("benchmark %s: %w", o.Alias, err)
	}
	res.Alias, res.Protocol, res.Threads, res.Pendings, res.Reqs = o.Alias, string(cfg.Protocol), threads, window, reqs
	res.RunTimeS = cfg.RunTime.Seconds()
	res.StartUnixMs = start.UnixMilli()
	res.Cost = &usage
	sum, err := MergeResults([]ProcessResults{res})
	if err != nil {
		return fmt.Errorf("benchmark %s: %w", o.Alias, err)
	}
	var outErrs []error
	if err := sum.WriteText(o.Out); err != nil {
		outErrs = append(outErrs, fmt.Errorf("summary: %w", err))
	}
	if o.ResultsPath != "" {
		outErrs = append(outErrs, WriteResults(o.ResultsPath, &res))
	}
	if o.HistoryPath != "" {
		herr := writeHistory(o.HistoryPath, hist)
		outErrs = append(outErrs, herr)
		if jr != nil {
			outErrs = append(outErrs, jr.close(herr == nil))
		}
	}
	if err := errors.Join(append([]error{runErr}, outErrs...)...); err != nil {
		return fmt.Errorf("client %s: %w", o.Alias, err)
	}
	return nil
}

// dialAll opens one session per thread, concurrently. On an error the
// sessions already open are returned too, for the caller to close.
func dialAll(ctx context.Context, cfg *config.Config, o Options, t *client.Transport, threads, window int, meter *cost.Meter) ([]*client.Session, error) {
	sessions := make([]*client.Session, threads)
	g, gctx := errgroup.WithContext(ctx)
	for i := range threads {
		g.Go(func() error {
			s, err := client.Dial(gctx, client.SessionOptions{Config: cfg, Alias: o.Alias, Policy: o.Policy(),
				Log: o.Log.With(zap.Int("thread", i)), Window: window, Meter: meter, Transport: t})
			if err != nil {
				return fmt.Errorf("thread %d: %w", i, err)
			}
			sessions[i] = s
			return nil
		})
	}
	return sessions, g.Wait()
}

// processResults aggregates the threads of a process (PROTOCOL.md 8.3):
// counts add, histograms merge, the duration is the longest thread's, and
// throughput is the total over that duration.
func processResults(stats []*threadStats, seeds []uint64, runErr error) (ProcessResults, error) {
	r := ProcessResults{Seeds: seeds, Timeline: []int64{}, TimelineFast: []int64{}, TimelineSlow: []int64{}, Complete: runErr == nil}
	if runErr != nil {
		r.Error = runErr.Error()
	}
	var longest time.Duration
	for _, st := range stats {
		if err := r.Latency.Merge(&st.lat); err != nil {
			return r, err
		}
		r.Ops += st.ops
		r.Errors += st.errors
		r.Timeouts += st.timeouts
		r.FastPath += st.fast
		r.SlowPath += st.slow
		longest = max(longest, st.duration())
		for i, n := range st.timeline {
			addAt(&r.Timeline, i, n)
		}
		for i, n := range st.timelineFast {
			addAt(&r.TimelineFast, i, n)
		}
		for i, n := range st.timelineSlow {
			addAt(&r.TimelineSlow, i, n)
		}
	}
	r.DurationS = longest.Seconds()
	if longest > 0 {
		r.ThroughputOps = float64(r.Ops) / longest.Seconds()
	}
	return r, nil
}

// reportProgress writes one line per second (operations done out of
// total, or seconds run out of runTime when it is set; the current rate;
// the failed operations) from the second second on, until stop is closed.
// run-multi-client.sh reads the last line of each client process for its
// own progress line: the fields keep their places (1 alias, 2 seconds,
// 3 done[/total], 5 rate, 7 failed).
func reportProgress(w io.Writer, alias string, total int64, runTime time.Duration, done, failed *atomic.Int64, stop <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var prev int64
	for sec := 1; ; sec++ {
		select {
		case <-stop:
			return
		case <-t.C:
			n := done.Load()
			switch {
			case sec < 2:
			case runTime > 0:
				fmt.Fprintf(w, "%s: %3ds/%.0fs  %d ops  %d ops/s  %d errors\n", alias, sec, runTime.Seconds(), n, n-prev, failed.Load())
			default:
				fmt.Fprintf(w, "%s: %3ds  %d/%d ops  %d ops/s  %d errors\n", alias, sec, n, total, n-prev, failed.Load())
			}
			prev = n
		}
	}
}
