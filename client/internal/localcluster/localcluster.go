package localcluster

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"swiftpaxos/config"
	"swiftpaxos/curp-ht/htreplica"
	"swiftpaxos/replica/server"
)

// FreePorts reserves n TCP ports on 127.0.0.1 and releases them.
func FreePorts(t testing.TB, n int) []int {
	t.Helper()
	ports := make([]int, n)
	for i := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		ports[i] = ln.Addr().(*net.TCPAddr).Port
		defer ln.Close()
	}
	return ports
}

// Config is the configuration of three replicas on ports and a client
// process client0, all on 127.0.0.1, with the extra settings.
func Config(t testing.TB, ports []int, settings string) *config.Config {
	t.Helper()
	text := fmt.Sprintf(`-- Replicas --
replica0 127.0.0.1:%d
replica1 127.0.0.1:%d
replica2 127.0.0.1:%d
-- Clients --
client0 127.0.0.1
-- Proxy --
server_alias replica0
client0 (local)
---
protocol: curpht
%s
`, ports[0], ports[1], ports[2], settings)
	cfg, err := config.Parse("bench.conf", strings.NewReader(text))
	require.NoError(t, err)
	return cfg
}

// Start runs the three CURP-HT replicas until the test ends or stop is
// called, each writing its cost report into costDir when it stops. Every
// replica listens before any dials its peers (a replica calls Ready
// before it dials, and Ready waits for the others): a dial to a peer not
// yet listening is tried again only after 100 ms, longer than a short
// test's whole run, which would then miss that replica.
func Start(t *testing.T, cfg *config.Config, costDir string) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var listening atomic.Int32
	all := make(chan struct{})
	ready := func(net.Addr) {
		if int(listening.Add(1)) == cfg.N() {
			close(all)
		}
		select {
		case <-all:
		case <-ctx.Done():
		}
	}
	for i := range cfg.N() {
		alias := fmt.Sprintf("replica%d", i)
		wg.Go(func() {
			err := server.Serve(ctx, server.Options{Config: cfg, Alias: alias, ClusterNew: true, Policy: htreplica.NewPolicy,
				Log: zaptest.NewLogger(t).Named(alias), Ready: ready,
				CostPath: filepath.Join(costDir, "cost-"+alias+".json")})
			if ctx.Err() == nil || err != nil {
				t.Errorf("%s stopped: %v", alias, err)
			}
		})
	}
	stop = sync.OnceFunc(func() {
		cancel()
		wg.Wait()
	})
	t.Cleanup(stop)
	<-all
	return stop
}
