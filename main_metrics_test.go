package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"swiftpaxos/client/bench"
	"swiftpaxos/config"
	"swiftpaxos/metrics"
)

// serveMetrics serves reg on a free loopback port until the test ends
// and returns the URL of its /metrics.
func serveMetrics(t *testing.T, reg *prometheus.Registry) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addr, wait, err := metrics.Start(ctx, ":0", reg, zaptest.NewLogger(t))
	require.NoError(t, err)
	t.Cleanup(func() { cancel(); wait() })
	require.Contains(t, addr.String(), "127.0.0.1:", "a bare port binds loopback")
	return "http://" + addr.String() + "/metrics"
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

// scrapeUntil scrapes url until done accepts what it shows, for at most
// 10 s (the replicas publish their state on each tick, and a follower
// executes an entry once it learns of its commit), and returns the last
// scrape either way: the caller's assertions say what was missing.
func scrapeUntil(t *testing.T, url string, done func(text string) bool) string {
	t.Helper()
	text := scrape(t, url)
	for deadline := time.Now().Add(10 * time.Second); !done(text) && time.Now().Before(deadline); {
		text = scrape(t, url)
	}
	return text
}

// sum adds the samples of a metric whose labels contain every given
// label="value" pair.
func sum(t *testing.T, text, name string, labels ...string) float64 {
	t.Helper()
	line := regexp.MustCompile(`^` + name + `(\{[^}]*\})? (\S+)$`)
	total := 0.0
	for _, l := range strings.Split(text, "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		match := true
		for _, want := range labels {
			match = match && strings.Contains(m[1], want)
		}
		if match {
			v, err := strconv.ParseFloat(m[2], 64)
			require.NoError(t, err)
			total += v
		}
	}
	return total
}

// A benchmark client process and three replicas serve metrics: the
// client's operation counters add up to the operations it ran, by level
// and path as its own results count them, and the replicas show one
// leader and what they executed.
func TestMetricsEndpoint(t *testing.T) {
	const threads, reqs = 2, 150
	conf := kvConf(t, "curpho")
	f, err := os.OpenFile(conf, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = fmt.Fprintf(f, "reqs: %d\nclientThreads: %d\nweakRatio: 50\nwrites: 50\n", reqs, threads)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	regs := []*prometheus.Registry{metrics.NewRegistry(), metrics.NewRegistry(), metrics.NewRegistry()}
	startCluster(t, conf, regs...)
	urls := make([]string, len(regs))
	for i, reg := range regs {
		urls[i] = serveMetrics(t, reg)
	}

	cfg, err := config.Load(conf)
	require.NoError(t, err)
	creg := metrics.NewRegistry()
	curl := serveMetrics(t, creg)
	resultsPath := t.TempDir() + "/results.json"
	require.NoError(t, bench.Run(context.Background(), bench.Options{Config: cfg, Alias: "client0",
		Policy: protocols["curpho"].client, Log: zaptest.NewLogger(t), Seed: 1, ResultsPath: resultsPath, Metrics: creg}))

	text := scrape(t, curl)
	ops := "swiftpaxos_client_operations_total"
	require.Equal(t, float64(threads*reqs), sum(t, text, ops), text)
	require.Zero(t, sum(t, text, ops, `path="failed"`))
	res, err := bench.ReadResults(resultsPath)
	require.NoError(t, err)
	require.Equal(t, float64(res.FastPath), sum(t, text, ops, `path="fast"`))
	require.Equal(t, float64(res.SlowPath), sum(t, text, ops, `path="slow"`))
	require.Equal(t, float64(threads*reqs), sum(t, text, "swiftpaxos_client_operation_latency_seconds_count"))
	require.Contains(t, text, "go_goroutines")

	// The leader executed every strong operation before answering it,
	// and once (each thread's warm-up read may be one more).
	strong := sum(t, text, ops, `level="strong"`)
	leaders, became := 0.0, 0.0
	for _, u := range urls {
		rt := scrape(t, u)
		leader := sum(t, rt, "swiftpaxos_replica_role", `role="leader"`)
		leaders += leader
		became += sum(t, rt, "swiftpaxos_replica_became_leader_total")
		require.Contains(t, rt, "swiftpaxos_replica_commit_index")
		if leader == 1 {
			executed := sum(t, rt, "swiftpaxos_replica_executed_total", `level="strong"`)
			require.GreaterOrEqual(t, executed, strong, rt)
			require.LessOrEqual(t, executed, strong+threads, rt)
		}
	}
	require.Equal(t, 1.0, leaders)
	require.GreaterOrEqual(t, became, 1.0, "the leader's election is counted")
	pp := scrape(t, strings.TrimSuffix(curl, "metrics")+"debug/pprof/")
	require.Contains(t, pp, "goroutine")
}

// With -metrics, a benchmark client process serves its endpoint while it
// runs and exits when its run is over (the endpoint must not keep it).
func TestMetricsFlagClientExits(t *testing.T) {
	conf := kvConf(t, "curpht")
	f, err := os.OpenFile(conf, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = fmt.Fprint(f, "reqs: 20\nclientThreads: 1\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	startCluster(t, conf)
	dir := t.TempDir()
	var out, errb strings.Builder
	code := run([]string{"-run", "client", "-config", conf, "-alias", "client0", "-metrics", ":0",
		"-results", dir + "/r.json", "-loglevel", "error"}, strings.NewReader(""), &out, &errb)
	require.Equal(t, 0, code, errb.String())
}

// executed_total counts every write the log holds under kind="put" (a
// DELETE, a CAS and an INCR too), as the client's metrics do, at every
// replica once it has executed them.
func TestExecutedCountsEveryWrite(t *testing.T) {
	conf := kvConf(t, "curpht")
	regs := []*prometheus.Registry{metrics.NewRegistry(), metrics.NewRegistry(), metrics.NewRegistry()}
	startCluster(t, conf, regs...)
	writes := [][]string{{"put", "k", "v"}, {"incr", "n", "2"}, {"cas", "k", "value", "v", "set", "w"}, {"del", "k"}}
	for _, w := range writes {
		code, out, errs := runKV("", append([]string{"-config", conf}, w...)...)
		require.Equal(t, 0, code, "%v: %s%s", w, out, errs)
	}
	for i, reg := range regs {
		url := serveMetrics(t, reg)
		text := scrapeUntil(t, url, func(text string) bool {
			return sum(t, text, "swiftpaxos_replica_executed_total", `kind="put"`) >= float64(len(writes))
		})
		require.Equal(t, float64(len(writes)), sum(t, text, "swiftpaxos_replica_executed_total", `level="strong"`, `kind="put"`), "replica%d:\n%s", i, text)
	}
}
