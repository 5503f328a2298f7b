package client_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"swiftpaxos/client"
	"swiftpaxos/config"
	curpht "swiftpaxos/curp-ht"
	"swiftpaxos/kvs"
	"swiftpaxos/replica"
)

// A session against a cluster of three CURP-HT replicas: strong and weak
// operations, a SCAN, and what Do tells about an operation.
func Example() {
	// A running cluster's configuration: here three replicas started in
	// this process on 127.0.0.1; a program would config.Load the file
	// its replicas run with.
	cfg, stop, err := startLocalCluster()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := client.Dial(ctx, client.SessionOptions{Config: cfg, Policy: curpht.NewClientPolicy()})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	for i, fruit := range []string{"apple", "banana", "cherry"} {
		if err := s.Put(ctx, kvs.Key(10+i), kvs.Value(fruit), client.Strong); err != nil {
			fmt.Println(err)
			return
		}
	}
	// A weak read sees the session's own earlier writes.
	v, err := s.Get(ctx, 11, client.Weak)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("weak get 11: %s\n", v)

	// Keys 9..13: only those that hold a value come back.
	items, err := s.Scan(ctx, 9, 5, client.Strong)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, it := range items {
		fmt.Printf("scan: %d=%s\n", it.Key, it.Value)
	}

	// Do returns the whole result: which path a strong operation took
	// and which replica answered are in it too.
	r, err := s.Do(ctx, client.Op{Level: client.Strong, Command: kvs.Command{Op: kvs.OpGet, Key: 12}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("strong get 12: %s (the path and the replica are known: %v)\n", r.Value, r.Path != client.PathNone && r.Replica != client.NoReplica)

	v, _ = s.Get(ctx, 99, client.Strong)
	fmt.Printf("absent key: %q\n", v)
	// Output:
	// weak get 11: banana
	// scan: 10=apple
	// scan: 11=banana
	// scan: 12=cherry
	// strong get 12: cherry (the path and the replica are known: true)
	// absent key: ""
}

// startLocalCluster runs three CURP-HT replicas in this process, on free
// ports of 127.0.0.1, until stop is called.
func startLocalCluster() (cfg *config.Config, stop func(), err error) {
	// The three stay reserved until each has its own port (closed one by
	// one, the system may hand the same port out twice), then are freed
	// for the replicas.
	var addrs []any
	var lns []net.Listener
	for range 3 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, nil, err
		}
		lns = append(lns, ln)
		addrs = append(addrs, ln.Addr().String())
	}
	for _, ln := range lns {
		ln.Close()
	}
	// A replica answers no client before the cluster has formed, and a
	// session asks again after retryMs: a short one spares a first wait.
	text := fmt.Sprintf("-- Replicas --\nreplica0 %s\nreplica1 %s\nreplica2 %s\n---\nprotocol: curpht\nretryMs: 100\n", addrs...)
	if cfg, err = config.Parse("example.conf", strings.NewReader(text)); err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	ready := make(chan error, cfg.N())
	for i := range cfg.N() {
		alias := fmt.Sprintf("replica%d", i)
		wg.Go(func() {
			err := replica.Serve(ctx, replica.ServerOptions{Config: cfg, Alias: alias, ClusterNew: true, Policy: curpht.NewReplicaPolicy,
				Ready: func(net.Addr) { ready <- nil }})
			if ctx.Err() == nil {
				ready <- fmt.Errorf("%s stopped: %v", alias, err)
			}
		})
	}
	stop = func() {
		cancel()
		wg.Wait()
	}
	for range cfg.N() {
		if err := <-ready; err != nil {
			stop()
			return nil, nil, err
		}
	}
	return cfg, stop, nil
}
