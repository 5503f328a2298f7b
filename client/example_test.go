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
	curpho "swiftpaxos/curp-ho"
	"swiftpaxos/curp-ho/horeplica"
	curpht "swiftpaxos/curp-ht"
	"swiftpaxos/curp-ht/htreplica"
	"swiftpaxos/kvs"
	"swiftpaxos/replica/server"
)

// A session against a cluster of three CURP-HT replicas: strong and weak
// operations, a SCAN, and what Do tells about an operation.
func Example() {
	// A running cluster's configuration: here three replicas started in
	// this process on 127.0.0.1; a program would config.Load the file
	// its replicas run with.
	cfg, stop, err := startLocalCluster(curpht.Name)
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

	for _, kv := range [][2]string{{"fruit:a", "apple"}, {"fruit:b", "banana"}, {"fruit:c", "cherry"}} {
		if _, err := s.Put(ctx, []byte(kv[0]), []byte(kv[1]), client.Strong); err != nil {
			fmt.Println(err)
			return
		}
	}
	// A weak read sees the session's own earlier writes.
	g, err := s.Get(ctx, []byte("fruit:b"), client.Weak)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("weak get fruit:b: %s\n", g.Value)

	// The keys of [fruit:, fruit;) that hold a value, two at a time.
	sc, err := s.Scan(ctx, []byte("fruit:"), []byte("fruit;"), 2, client.Strong)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, it := range sc.Items {
		fmt.Printf("scan: %s=%s\n", it.Key, it.Value)
	}
	fmt.Printf("more: %v\n", sc.More)

	// Do returns the whole result: which path a strong operation took
	// and which replica answered are in it too.
	r, err := s.Do(ctx, client.Op{Level: client.Strong, Command: kvs.Command{Op: kvs.OpGet, Key: "fruit:c"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("strong get fruit:c: %s (the path and the replica are known: %v)\n", r.Value, r.Path != client.PathNone && r.Replica != client.NoReplica)

	d, _ := s.Delete(ctx, []byte("fruit:a"), client.Strong)
	fmt.Printf("deleted fruit:a, which existed: %v\n", d.Existed)
	g, _ = s.Get(ctx, []byte("fruit:a"), client.Strong)
	fmt.Printf("absent key: found %v\n", g.Found)

	n, _ := s.Incr(ctx, []byte("visits"), 5)
	fmt.Printf("incr visits: %d\n", n)
	c, _ := s.CompareAndSwap(ctx, []byte("lock"), client.ExpectAbsent(), client.SetValue([]byte("me")))
	fmt.Printf("cas lock: applied %v\n", c.Applied)
	// Output:
	// weak get fruit:b: banana
	// scan: fruit:a=apple
	// scan: fruit:b=banana
	// more: true
	// strong get fruit:c: cherry (the path and the replica are known: true)
	// deleted fruit:a, which existed: true
	// absent key: found false
	// incr visits: 5
	// cas lock: applied true
}

// startLocalCluster runs three replicas of protocol (curpht.Name or
// curpho.Name) in this process, on free ports of 127.0.0.1, until stop
// is called.
func startLocalCluster(protocol string) (cfg *config.Config, stop func(), err error) {
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
	text := fmt.Sprintf("-- Replicas --\nreplica0 %s\nreplica1 %s\nreplica2 %s\n---\nprotocol: %s\nretryMs: 100\n", append(addrs, protocol)...)
	if cfg, err = config.Parse("example.conf", strings.NewReader(text)); err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	ready := make(chan error, cfg.N())
	for i := range cfg.N() {
		alias := fmt.Sprintf("replica%d", i)
		wg.Go(func() {
			policy := htreplica.NewPolicy
			if protocol == curpho.Name {
				policy = horeplica.NewPolicy
			}
			err := server.Serve(ctx, server.Options{Config: cfg, Alias: alias, ClusterNew: true, Policy: policy,
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
