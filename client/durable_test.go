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
	curpht "swiftpaxos/curp-ht"
	"swiftpaxos/curp-ht/htreplica"
	"swiftpaxos/replica/server"
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
