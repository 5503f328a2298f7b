package resp_test

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"

	"swiftpaxos/client"
	"swiftpaxos/client/internal/localcluster"
	"swiftpaxos/client/resp"
	"swiftpaxos/client/statuscli"
	"swiftpaxos/config"
	curpho "swiftpaxos/curp-ho"
	"swiftpaxos/curp-ho/horeplica"
	curpht "swiftpaxos/curp-ht"
	"swiftpaxos/curp-ht/htreplica"
	"swiftpaxos/replica"
	"swiftpaxos/replica/server"
	"swiftpaxos/wire"
)

// policies are the two protocols' sides, by configuration name.
var policies = map[string]struct {
	replica func() replica.Policy
	client  func() client.Policy
}{
	"curpht": {htreplica.NewPolicy, curpht.NewClientPolicy},
	"curpho": {horeplica.NewPolicy, curpho.NewClientPolicy},
}

// cluster is three replicas, each with its RESP front-end, in this
// process; a test may stop any of them.
type cluster struct {
	cfg     *config.Config
	resp    []string // RESP address by replica
	servers []*resp.Server
	stop    []context.CancelFunc
	done    []chan struct{}
	elected chan string
}

// startCluster runs a cluster of protocol with the extra settings.
func startCluster(t *testing.T, protocol, settings string) *cluster {
	t.Helper()
	return startClusterLogs(t, protocol, settings, "")
}

// startClusterLogs is startCluster whose replicas, when logDir is set,
// write their applied logs there (log-ALIAS.jsonl), for the checker.
func startClusterLogs(t *testing.T, protocol, settings, logDir string) *cluster {
	t.Helper()
	ports := localcluster.FreePorts(t, 3)
	var run []int
	var err error
	for range 20 {
		// The replicas' ports were released: a run may land on one.
		if run, err = listenRun(); err == nil && !slices.ContainsFunc(run, func(p int) bool { return slices.Contains(ports, p) }) {
			break
		}
		err = fmt.Errorf("the RESP ports %v take a replica's port of %v", run, ports)
	}
	require.NoError(t, err, "no free run of RESP ports")
	ports = append(ports, run[0])
	text := fmt.Sprintf(`-- Replicas --
replica0 127.0.0.1:%d
replica1 127.0.0.2:%d
replica2 127.0.0.3:%d
---
protocol: %s
respPort: %d
%s
`, ports[0], ports[1], ports[2], protocol, ports[3], settings)
	cfg, err := config.Parse("resp.conf", strings.NewReader(text))
	require.NoError(t, err)
	c := &cluster{cfg: cfg, elected: make(chan string, 16)}
	ready := make(chan struct{}, 2*cfg.N())
	var wg sync.WaitGroup
	for i := range cfg.N() {
		alias := fmt.Sprintf("replica%d", i)
		addr, _ := cfg.RESPAddr(i)
		c.resp = append(c.resp, addr)
		hook := zap.Hooks(func(e zapcore.Entry) error {
			switch e.Message {
			case "cluster bootstrapped", "rejoined as a full member":
				ready <- struct{}{}
			case "view started":
				select {
				case c.elected <- alias:
				default:
				}
			}
			return nil
		})
		log := zaptest.NewLogger(t, zaptest.WrapOptions(hook), zaptest.Level(zapcore.InfoLevel)).Named(alias)
		p := policies[protocol]
		var appliedLog string
		if logDir != "" {
			appliedLog = filepath.Join(logDir, "log-"+alias+".jsonl")
		}
		// As the swiftpaxos binary runs them (frontend.go): the front-end
		// reaches its replica over a Unix socket.
		local := resp.LocalAddr()
		fe, err := resp.New(resp.Options{Config: cfg, Alias: alias, NewPolicy: p.client, Log: log,
			Ready:     func(net.Addr) { ready <- struct{}{} },
			Status:    func(ctx context.Context) (*wire.StatusReply, error) { return statuscli.Ask(ctx, cfg, i) },
			LocalAddr: local})
		require.NoError(t, err)
		c.servers = append(c.servers, fe)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		c.stop, c.done = append(c.stop, cancel), append(c.done, done)
		wg.Go(func() {
			defer close(done)
			var inner sync.WaitGroup
			inner.Go(func() {
				if err := server.Serve(ctx, server.Options{Config: cfg, Alias: alias, ClusterNew: true, Policy: p.replica,
					Log: log, FrontEndConns: fe.Conns, AppliedLogPath: appliedLog, LocalAddr: local}); ctx.Err() == nil {
					t.Errorf("%s stopped: %v", alias, err)
				}
			})
			if err := fe.Serve(ctx); ctx.Err() == nil {
				t.Errorf("%s RESP stopped: %v", alias, err)
			}
			inner.Wait()
		})
	}
	t.Cleanup(func() {
		for _, s := range c.stop {
			s()
		}
		wg.Wait()
	})
	for range 2 * cfg.N() {
		<-ready
	}
	return c
}

// listenRun finds a port p such that replica i's RESP address,
// 127.0.0.(i+1):p+i, is free for each of the three.
func listenRun() ([]int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	base := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	lns := make([]net.Listener, 0, 3)
	defer func() {
		for _, l := range lns {
			l.Close()
		}
	}()
	for i := range 3 {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.%d:%d", i+1, base+i))
		if err != nil {
			return nil, err
		}
		lns = append(lns, l)
	}
	return []int{base, base + 1, base + 2}, nil
}

// client opens a go-redis client of replica i's front-end.
func (c *cluster) client(t *testing.T, i int, o ...func(*redis.Options)) *redis.Client {
	t.Helper()
	opts := &redis.Options{Addr: c.resp[i], DisableIdentity: false, MaxRetries: -1}
	for _, f := range o {
		f(opts)
	}
	rc := redis.NewClient(opts)
	t.Cleanup(func() { rc.Close() })
	return rc
}
