package client_test

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"

	"go.uber.org/zap"

	"swiftpaxos/client"
	"swiftpaxos/client/bench"
	"swiftpaxos/client/internal/localcluster"
	curpho "swiftpaxos/curp-ho"
	"swiftpaxos/curp-ho/horeplica"
	curpht "swiftpaxos/curp-ht"
	"swiftpaxos/curp-ht/htreplica"
	"swiftpaxos/kvs"
	"swiftpaxos/replica"
	"swiftpaxos/replica/server"
	"swiftpaxos/wire"
)

// benchProtocols are the two protocols the cluster benchmarks compare.
var benchProtocols = []struct {
	name    string
	replica func() replica.Policy
	client  func() client.Policy
}{
	{"curpht", htreplica.NewPolicy, curpht.NewClientPolicy},
	{"curpho", horeplica.NewPolicy, curpho.NewClientPolicy},
}

// BenchmarkCluster runs three replicas and one session in this process,
// over TCP on 127.0.0.1, so that a regression on the hot path shows in a
// plain `go test -bench Cluster ./client/` (issue: performance). ns/op is
// the time per completed operation and allocs/op counts the whole
// deployment (replicas and session share the process):
//   - strong-put and weak-get: one operation at a time (ns/op is its
//     latency);
//   - mix: the default workload's mix (50% weak; 10% of strong and of
//     weak operations are writes; 1,000 keys) with 15 operations in
//     flight, as one benchmark thread runs it (ns/op is 1/throughput).
func BenchmarkCluster(b *testing.B) {
	for _, p := range benchProtocols {
		b.Run(p.name, func(b *testing.B) {
			s := benchSession(b, p.replica, p.client())
			value := make(kvs.Value, 100)
			b.Run("strong-put", func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					if _, err := s.Put(b.Context(), []byte(testKey(int64(i%1000))), value, wire.Strong); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("weak-get", func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					if _, err := s.Get(b.Context(), []byte(testKey(int64(i%1000))), wire.Weak); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("mix", func(b *testing.B) {
				b.ReportAllocs()
				runMix(b, s, value)
			})
		})
	}
}

// mixOp is operation i of the default mix: every other operation weak,
// one in ten of each class a write, keys spread over 1,000.
func mixOp(i int, value kvs.Value) client.Op {
	level := wire.Strong
	if i%2 == 1 {
		level = wire.Weak
	}
	key := testKey(int64((i * 7919) % 1000))
	if (i/2)%10 == 0 {
		return client.Op{Level: level, Command: kvs.Command{Op: kvs.OpPut, Key: key, Value: value}}
	}
	return client.Op{Level: level, Command: kvs.Command{Op: kvs.OpGet, Key: key}}
}

// runMix keeps benchWindow operations of the mix in flight until b.N have
// completed.
func runMix(b *testing.B, s *client.Session, value kvs.Value) {
	inFlight, issued := 0, 0
	for range b.N {
		for inFlight < benchWindow && issued < b.N {
			if err := s.Submit(mixOp(issued, value)); err != nil {
				b.Fatal(err)
			}
			issued++
			inFlight++
		}
		r := <-s.Completions()
		inFlight--
		if r.Err != nil {
			b.Fatalf("operation %d: %v", r.Seq, r.Err)
		}
	}
}

// benchWindow is the default configuration's pendings.
const benchWindow = 15

// benchSession starts three replicas with policy p on free loopback ports
// and dials one session; both stop when the benchmark ends.
func benchSession(b *testing.B, p func() replica.Policy, cp client.Policy) *client.Session {
	b.Helper()
	// The policies are the benchmark's; the configuration's protocol key
	// is not read here.
	cfg := localcluster.Config(b, localcluster.FreePorts(b, 3), "batchDelayUs: 150")
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	ready := make(chan struct{}, cfg.N())
	failed := make(chan error, cfg.N())
	for i := range cfg.N() {
		alias := fmt.Sprintf("replica%d", i)
		wg.Go(func() {
			err := server.Serve(ctx, server.Options{Config: cfg, Alias: alias, ClusterNew: true, Policy: p,
				Log: zap.NewNop(), Ready: func(net.Addr) { ready <- struct{}{} }})
			if ctx.Err() == nil {
				failed <- fmt.Errorf("%s stopped: %v", alias, err)
			}
		})
	}
	b.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	for range cfg.N() {
		select {
		case <-ready:
		case err := <-failed:
			b.Fatal(err)
		}
	}
	s, err := client.Dial(ctx, client.SessionOptions{Config: cfg, Alias: "client0", Policy: cp, Log: zap.NewNop(), Window: benchWindow})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	// The first operation waits for the new cluster to form.
	if _, err := s.Get(ctx, []byte(testKey(0)), wire.Strong); err != nil {
		b.Fatal(err)
	}
	return s
}

// testKey is the benchmark's key of number i over a million keys.
var testKey = bench.NewKeys(1_000_000, 0).Of
