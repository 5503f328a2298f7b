package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"

	"swiftpaxos/config"
	"swiftpaxos/config/certs"
	"swiftpaxos/replica/server"
)

// cluster runs the replicas of a configuration in this process, each
// with its own cancel so that a test can stop one.
type cluster struct {
	stop    []context.CancelFunc
	done    []chan struct{} // closed when the replica's Serve returned
	wg      sync.WaitGroup
	elected chan string // the alias of each replica that logs "elected leader"
	quiet   chan string // the alias of each leader that falls quiet
}

// startCluster runs the replicas; regs, when given, are their metrics
// registries by replica index.
func startCluster(t *testing.T, path string, regs ...*prometheus.Registry) *cluster {
	t.Helper()
	cfg, err := config.Load(path)
	require.NoError(t, err)
	c := &cluster{elected: make(chan string, 16), quiet: make(chan string, 16)}
	ready := make(chan struct{}, cfg.N())
	// The initial leader serves once a majority told it they are members
	// (replica/founding.go), until when status shows it founding; a
	// leader elected instead serves once its view started.
	serving := make(chan struct{}, 1)
	for i := range cfg.N() {
		alias := fmt.Sprintf("replica%d", i)
		hook := zap.Hooks(func(e zapcore.Entry) error {
			switch e.Message {
			case "cluster bootstrapped", "rejoined as a full member":
				ready <- struct{}{}
			case "a majority are members: serving", "a majority are members on disk: serving":
				offer(serving, struct{}{})
			case "view started":
				offer(c.elected, alias)
				offer(serving, struct{}{})
			case "leader falls quiet: no majority heard from":
				offer(c.quiet, alias)
			}
			return nil
		})
		ctx, cancel := context.WithCancel(context.Background())
		c.stop = append(c.stop, cancel)
		done := make(chan struct{})
		c.done = append(c.done, done)
		o := server.Options{Config: cfg, Alias: alias, ClusterNew: true, Policy: protocols[string(cfg.Protocol)].replica,
			Log: zaptest.NewLogger(t, zaptest.WrapOptions(hook)).Named(alias)}
		if i < len(regs) {
			o.Metrics = regs[i]
		}
		c.wg.Go(func() {
			defer close(done)
			err := server.Serve(ctx, o)
			if ctx.Err() == nil {
				t.Errorf("%s stopped: %v", alias, err)
				ready <- struct{}{}
				offer(serving, struct{}{})
			}
		})
	}
	t.Cleanup(func() {
		for _, s := range c.stop {
			s()
		}
		c.wg.Wait()
	})
	for range cfg.N() {
		<-ready
	}
	select {
	case <-serving:
	case <-time.After(30 * time.Second):
		t.Fatal("no leader serves 30 s after every replica started")
	}
	return c
}

// offer sends v on ch unless ch is full: a log hook must not block.
func offer[T any](ch chan T, v T) {
	select {
	case ch <- v:
	default:
	}
}

func runStatus(t *testing.T, conf string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run([]string{"-run", "status", "-config", conf, "-timeout", "2s"}, strings.NewReader(""), &out, &errb)
	t.Logf("status (exit %d):\n%s%s", code, out.String(), errb.String())
	return code, out.String(), errb.String()
}

// statusRoles maps each replica of a status table to its role.
func statusRoles(t *testing.T, table string) map[string]string {
	t.Helper()
	roles := map[string]string{}
	row := regexp.MustCompile(`^\s*(replica\d)\s+[\d.]+:\d+\s+(\S+)`)
	for _, line := range strings.Split(table, "\n") {
		if m := row.FindStringSubmatch(line); m != nil {
			roles[m[1]] = m[2]
		}
	}
	return roles
}

// -run status shows one leader and two followers; once the leader stops,
// it shows the replica that took over, the old one down, and still exits
// 0 (two of three answered); with two down it exits 1.
func TestStatusCommand(t *testing.T) {
	conf := kvConf(t, "curpho")
	c := startCluster(t, conf)

	code, out, _ := runStatus(t, conf)
	require.Equal(t, 0, code)
	roles := statusRoles(t, out)
	require.Len(t, roles, 3, out)
	var leader string
	followers := 0
	for alias, r := range roles {
		switch r {
		case "leader":
			require.Empty(t, leader, "two leaders:\n%s", out)
			leader = alias
		case "follower":
			followers++
		}
	}
	require.NotEmpty(t, leader, out)
	require.Equal(t, 2, followers, out)

	var idx int
	_, err := fmt.Sscanf(leader, "replica%d", &idx)
	require.NoError(t, err)
	c.stop[idx]()
	var next string
	for next = range c.elected {
		if next != leader {
			break
		}
	}
	code, out, _ = runStatus(t, conf)
	require.Equal(t, 0, code)
	roles = statusRoles(t, out)
	require.Equal(t, "down", roles[leader], out)
	require.Equal(t, "leader", roles[next], out)

	for i := range c.stop {
		if fmt.Sprintf("replica%d", i) != next {
			c.stop[i]()
		}
	}
	code, _, errs := runStatus(t, conf)
	require.Equal(t, 1, code)
	require.Contains(t, errs, "1 of 3 replicas answered, a majority needs 2")
}

// Two in-memory replicas, the leader among them, stopped and started
// again come back as learners, which only a leader can make members: no
// leader can be elected. Status still exits 0 (every replica answered)
// but says that there is no leader, why, and what to do.
func TestStatusSaysThereIsNoLeader(t *testing.T) {
	conf := kvConf(t, "curpht")
	c := startCluster(t, conf)
	cfg, err := config.Load(conf)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	learner := make(chan struct{}, 2)
	hook := zap.Hooks(func(e zapcore.Entry) error {
		if e.Message == "joining as a learner: a replica that holds state answered" {
			learner <- struct{}{}
		}
		return nil
	})
	// A write, so that the replicas restarted in memory find a cluster
	// that holds state (with nothing appended anywhere they would found
	// it again, which loses nothing).
	code, _, errs := runKV("", "-config", conf, "-timeout", "10s", "put", "1", "x")
	require.Equal(t, 0, code, errs)
	for i := range 2 { // replica0 leads ballot 0
		c.stop[i]()
		<-c.done[i]
		alias := fmt.Sprintf("replica%d", i)
		listening := make(chan struct{})
		wg.Go(func() {
			err := server.Serve(ctx, server.Options{Config: cfg, Alias: alias, Policy: protocols["curpht"].replica,
				Log: zaptest.NewLogger(t, zaptest.WrapOptions(hook)).Named(alias), Ready: func(net.Addr) { close(listening) }})
			if ctx.Err() == nil {
				t.Errorf("%s stopped: %v", alias, err)
			}
		})
		<-listening
	}
	<-learner
	<-learner

	code, out, _ := runStatus(t, conf)
	require.Equal(t, 0, code)
	roles := statusRoles(t, out)
	require.Equal(t, "learner", roles["replica0"], out)
	require.Equal(t, "learner", roles["replica1"], out)
	require.Contains(t, out, "\nno leader: none of the 3 replicas that answered leads\n")
	require.Contains(t, out, "learners (replica0, replica1) started without state after the cluster was founded, or restarted without it")
	require.Contains(t, out, "restart the whole cluster")
}

// Under mutual TLS, -run status presents the generic client certificate
// and every replica answers.
func TestStatusCommandTLS(t *testing.T) {
	conf := kvConf(t, "curpht")
	cfg, err := config.Load(conf)
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "tls")
	_, err = certs.Generate(cfg, dir)
	require.NoError(t, err)
	appendConf(t, conf, "tls: "+dir)
	startCluster(t, conf)

	code, out, _ := runStatus(t, conf)
	require.Equal(t, 0, code)
	roles := statusRoles(t, out)
	require.Len(t, roles, 3, out)
	for alias, r := range roles {
		require.Contains(t, []string{"leader", "follower"}, r, alias)
	}
}

// statusColumn maps each replica of a status table that answered to its
// cell in the named column.
func statusColumn(t *testing.T, table, name string) map[string]string {
	t.Helper()
	lines := strings.Split(table, "\n")
	col := slices.Index(strings.Fields(lines[0]), name)
	require.GreaterOrEqual(t, col, 0, "no column %s:\n%s", name, table)
	cells := map[string]string{}
	for _, line := range lines[1:] {
		if f := strings.Fields(line); len(f) > col && strings.HasPrefix(f[0], "replica") {
			cells[f[0]] = f[col]
		}
	}
	return cells
}

// A durable replica's status shows its log's fsyncs and their mean; one
// in memory shows none.
func TestStatusCommandShowsFsyncs(t *testing.T) {
	mem := kvConf(t, "curpht")
	startCluster(t, mem)
	code, out, _ := runStatus(t, mem)
	require.Equal(t, 0, code)
	require.Equal(t, map[string]string{"replica0": "-", "replica1": "-", "replica2": "-"}, statusColumn(t, out, "FSYNCS"))

	durable := kvConf(t, "curpht")
	appendConf(t, durable, "dataDir: "+filepath.Join(t.TempDir(), "data"))
	startCluster(t, durable)
	code, _, errs := runKV("", "-config", durable, "put", "1", "one")
	require.Equal(t, 0, code, errs)
	code, out, _ = runStatus(t, durable)
	require.Equal(t, 0, code)
	fsyncs, means := statusColumn(t, out, "FSYNCS"), statusColumn(t, out, "FSYNC")
	require.Len(t, fsyncs, 3, out)
	for alias, n := range fsyncs {
		v, err := strconv.Atoi(n)
		require.NoError(t, err, out)
		require.Positive(t, v, "%s: a durable replica that took a write synced its log", alias)
		d, err := time.ParseDuration(means[alias])
		require.NoError(t, err, out)
		require.Positive(t, d, alias)
	}
}

// appendConf adds lines to the configuration file at path.
func appendConf(t *testing.T, path, lines string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = fmt.Fprintln(f, lines)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// A durable replica refuses a data directory that another cluster wrote
// (here one of the other protocol), and says whose it is; its own
// cluster restarts from it.
func TestDurableReplicaRefusesAnotherClustersData(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	ht := kvConf(t, "curpht")
	appendConf(t, ht, "dataDir: "+data)
	c := startCluster(t, ht)
	for _, stop := range c.stop {
		stop()
	}
	c.wg.Wait()

	ho := kvConf(t, "curpho")
	appendConf(t, ho, "dataDir: "+data)
	cfg, err := config.Load(ho)
	require.NoError(t, err)
	err = server.Serve(t.Context(), server.Options{Config: cfg, Alias: "replica0",
		Policy: protocols["curpho"].replica, Log: zaptest.NewLogger(t)})
	require.ErrorContains(t, err, filepath.Join(data, "replica0")+" holds the state of another cluster "+
		"(protocol curpht, replicas replica0 replica1 replica2), not of this one (protocol curpho, replicas replica0 replica1 replica2)")

	ctx, cancel := context.WithCancel(t.Context())
	cfg, err = config.Load(ht)
	require.NoError(t, err)
	restarted := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		errc <- server.Serve(ctx, server.Options{Config: cfg, Alias: "replica0", Policy: protocols["curpht"].replica,
			Log: zaptest.NewLogger(t), Ready: func(net.Addr) { close(restarted) }})
	}()
	select {
	case <-restarted:
	case err := <-errc:
		t.Fatalf("its own cluster's replica did not start: %v", err)
	}
	cancel()
	require.NoError(t, <-errc)
}
