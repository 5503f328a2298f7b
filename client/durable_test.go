package client_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"swiftpaxos/client"
	"swiftpaxos/client/internal/localcluster"
	"swiftpaxos/client/statuscli"
	curpht "swiftpaxos/curp-ht"
	"swiftpaxos/curp-ht/htreplica"
	"swiftpaxos/replica/server"
	"swiftpaxos/replica/storage/disk"
	"swiftpaxos/wire"
)

// TestDurableClusterComesBackFromDisk: three durable replicas (dataDir)
// take strong and weak writes, all stop at once, and start again on the
// same directories: a new session reads every acknowledged write back. In
// memory mode the second cluster would start empty and the reads fail.
func TestDurableClusterComesBackFromDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a localhost cluster twice")
	}
	data := t.TempDir()
	cfg := localcluster.Config(t, localcluster.FreePorts(t, 3), "retryMs: 200\ndataDir: "+data)
	require.Equal(t, data, cfg.DataPath)
	serve := func() (stop func()) {
		ctx, cancel := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		ready := make(chan struct{}, 3)
		for i := range 3 {
			alias := fmt.Sprintf("replica%d", i)
			wg.Go(func() {
				err := server.Serve(ctx, server.Options{Config: cfg, Alias: alias, Policy: htreplica.NewPolicy,
					Log: zaptest.NewLogger(t).Named(alias), Ready: func(net.Addr) { ready <- struct{}{} }})
				if err != nil {
					t.Errorf("%s: %v", alias, err)
				}
			})
		}
		for range 3 {
			<-ready
		}
		return func() { cancel(); wg.Wait() }
	}
	session := func() *client.Session {
		s, err := client.Dial(t.Context(), client.SessionOptions{Config: cfg, Alias: "client0", Policy: curpht.NewClientPolicy(),
			Log: zaptest.NewLogger(t)})
		require.NoError(t, err)
		return s
	}

	stop := serve()
	s := session()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for k := range int64(20) {
		level := wire.Strong
		if k%2 == 1 {
			level = wire.Weak
		}
		_, err := s.Put(ctx, []byte(testKey(k)), []byte(fmt.Sprint("v", k)), level)
		require.NoError(t, err)
	}
	// A strong read after the weak writes: the session's weak writes
	// were committed before they completed (CURP-HT).
	_, err := s.Get(ctx, []byte(testKey(0)), wire.Strong)
	require.NoError(t, err)
	s.Close()
	stop()
	for i := range 3 {
		_, err := os.Stat(filepath.Join(data, fmt.Sprintf("replica%d", i), "db"))
		require.NoError(t, err, "replica%d keeps its files in DATADIR/ALIAS", i)
	}

	stop = serve()
	defer stop()
	s = session()
	defer s.Close()
	for k := range int64(20) {
		v, err := s.Get(ctx, []byte(testKey(k)), wire.Strong)
		require.NoError(t, err)
		require.Equal(t, fmt.Sprint("v", k), string(v.Value), "key %d after the restart", k)
	}
}

// TestDurableReplicaThatLostItsDiskRejoins: docs/DECISIONS.md 52 on real
// servers. Three durable replicas take writes; replica2 stops, its data
// directory is emptied, and it starts again, a new life that rejoins as a
// learner and becomes a member. Then replica0 stops: replicas 1 and 2
// still read every write back, and replica1's hard state on disk names
// replica2's new life.
func TestDurableReplicaThatLostItsDiskRejoins(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a localhost cluster")
	}
	data := t.TempDir()
	cfg := localcluster.Config(t, localcluster.FreePorts(t, 3), "retryMs: 200\ndataDir: "+data)
	serve := func(i int) (stop func()) {
		ctx, cancel := context.WithCancel(t.Context())
		ready := make(chan struct{}, 1)
		done := make(chan struct{})
		alias := fmt.Sprintf("replica%d", i)
		go func() {
			defer close(done)
			err := server.Serve(ctx, server.Options{Config: cfg, Alias: alias, Policy: htreplica.NewPolicy,
				Log: zaptest.NewLogger(t).Named(alias), Ready: func(net.Addr) { ready <- struct{}{} }})
			if err != nil {
				t.Errorf("%s: %v", alias, err)
			}
		}()
		<-ready
		return func() { cancel(); <-done }
	}
	var stops [3]func()
	for i := range 3 {
		stops[i] = serve(i)
	}
	defer func() {
		for _, stop := range stops {
			if stop != nil {
				stop()
			}
		}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	s, err := client.Dial(ctx, client.SessionOptions{Config: cfg, Alias: "client0", Policy: curpht.NewClientPolicy(),
		Log: zaptest.NewLogger(t)})
	require.NoError(t, err)
	defer s.Close()
	for k := range int64(10) {
		_, err := s.Put(ctx, []byte(testKey(k)), []byte(fmt.Sprint("v", k)), wire.Strong)
		require.NoError(t, err)
	}

	stops[2]()
	stops[2] = nil
	require.NoError(t, os.RemoveAll(filepath.Join(data, "replica2")))
	restarted := uint64(time.Now().UnixNano())
	stops[2] = serve(2)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		st, err := statuscli.Ask(ctx, cfg, 2)
		if err == nil && st.Member {
			break
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("replica2 did not become a member again: %v (last status %+v, %v)", ctx.Err(), st, err)
		}
	}

	stops[0]()
	stops[0] = nil
	for k := range int64(10) {
		v, err := s.Get(ctx, []byte(testKey(k)), wire.Strong)
		require.NoError(t, err)
		require.Equal(t, fmt.Sprint("v", k), string(v.Value), "key %d without replica0", k)
	}
	s.Close()
	stops[1]()
	stops[1] = nil
	store, st, err := disk.Open(filepath.Join(data, "replica1"), disk.Cluster{Protocol: string(cfg.Protocol),
		Replicas: []string{"replica0", "replica1", "replica2"}}, nil)
	require.NoError(t, err)
	defer store.Close()
	require.Len(t, st.Hard.Lives, 3)
	require.GreaterOrEqual(t, st.Hard.Lives[2], restarted, "replica1's disk names replica2's new life")
}
