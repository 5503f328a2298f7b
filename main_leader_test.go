package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"swiftpaxos/config"
	"swiftpaxos/metrics"
)

// With leaseReads, status shows the leader's lease and the metrics count
// how its leader reads were answered; followers show none.
func TestStatusAndMetricsShowTheLease(t *testing.T) {
	const reads = 5
	conf := kvConf(t, "curpht")
	appendConf(t, conf, "leaseReads: true\nstrongReads: leader")
	regs := []*prometheus.Registry{metrics.NewRegistry(), metrics.NewRegistry(), metrics.NewRegistry()}
	startCluster(t, conf, regs...)
	code, _, errs := runKV("", "-config", conf, "put", "1", "one")
	require.Equal(t, 0, code, errs)
	for range reads {
		code, out, errs := runKV("", "-config", conf, "get", "1")
		require.Equal(t, 0, code, errs)
		require.Equal(t, "one\n", out)
	}

	// The heartbeats renew the lease; between a lease's end and its
	// renewal the leader shows none, so ask until it shows one.
	var leases map[string]string
	var leader string
	for range 100 {
		code, out, _ := runStatus(t, conf)
		require.Equal(t, 0, code)
		leases, leader = statusColumn(t, out, "LEASE"), ""
		for alias, r := range statusRoles(t, out) {
			if r == "leader" {
				leader = alias
			}
		}
		if leader != "" && leases[leader] != "none" {
			break
		}
	}
	require.NotEmpty(t, leader)
	left, err := time.ParseDuration(leases[leader])
	require.NoError(t, err, "the leader's lease: %q", leases[leader])
	cfg, err := config.Load(conf)
	require.NoError(t, err)
	require.Greater(t, left, time.Duration(0))
	require.LessOrEqual(t, left, cfg.ElectionTimeoutMin*3/4)
	for alias, l := range leases {
		if alias != leader {
			require.Equal(t, "-", l, "follower %s", alias)
		}
	}

	var idx int
	_, err = fmt.Sscanf(leader, "replica%d", &idx)
	require.NoError(t, err)
	url, name := serveMetrics(t, regs[idx]), "swiftpaxos_replica_leader_reads_total"
	text := scrapeUntil(t, url, func(text string) bool { return sum(t, text, name) >= reads })
	require.Equal(t, float64(reads), sum(t, text, name), text)
	require.Zero(t, sum(t, text, name, `answered="slot"`), text)
	require.LessOrEqual(t, sum(t, text, "swiftpaxos_replica_lease_seconds"), (cfg.ElectionTimeoutMin * 3 / 4).Seconds())
	require.Contains(t, text, "\nswiftpaxos_replica_quiet 0\n", "a leader that hears its followers")
}

// A leader whose followers are all down falls quiet (docs/DECISIONS.md
// 56): -run status shows it as leader(quiet) and says what that means,
// and its metrics say so too.
func TestStatusShowsAQuietLeader(t *testing.T) {
	conf := kvConf(t, "curpht")
	reg := metrics.NewRegistry()
	c := startCluster(t, conf, reg)
	url := serveMetrics(t, reg)
	code, out, _ := runStatus(t, conf)
	require.Equal(t, 0, code)
	require.Equal(t, "leader", statusRoles(t, out)["replica0"], out)
	require.NotContains(t, out, "quiet")
	// A write completes once the leader heard a majority are members:
	// until then it founds the cluster, which no check-quorum ends
	// (replica/founding.go). startCluster waits for that too; the write
	// keeps the test right should it not.
	code, _, errs := runKV("", "-config", conf, "put", "1", "x")
	require.Equal(t, 0, code, errs)
	for i := 1; i <= 2; i++ {
		c.stop[i]()
		<-c.done[i]
	}
	select {
	case alias := <-c.quiet:
		require.Equal(t, "replica0", alias)
	case <-time.After(30 * time.Second):
		t.Fatal("replica0 did not fall quiet within 30 s of losing both followers")
	}
	text := scrapeUntil(t, url, func(text string) bool { return strings.Contains(text, "\nswiftpaxos_replica_quiet 1\n") })
	require.Contains(t, text, "\nswiftpaxos_replica_quiet 1\n")
	code, out, errs = runStatus(t, conf)
	require.Equal(t, 1, code, "a majority did not answer")
	require.Contains(t, errs, "1 of 3 replicas answered")
	require.Equal(t, "leader(quiet)", statusRoles(t, out)["replica0"], out)
	require.Contains(t, out, "\nreplica0 leads but is quiet: it has heard no majority of members for longer than the longest election timeout")
}
