package kvcli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/config"
)

// frozenCluster is a configuration whose replica0, the leader, accepts
// connections and never answers, as a stopped process does, and whose
// other replicas are not there. Its retry period is a minute: a command
// that waits one for the end of its session cannot meet the bound of the
// tests below.
func frozenCluster(t *testing.T) *config.Config {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() { _, _ = io.Copy(io.Discard, c) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	gone := make([]int, 2) // ports free a moment ago, where nothing listens
	for i := range gone {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		gone[i] = l.Addr().(*net.TCPAddr).Port
		require.NoError(t, l.Close())
	}
	text := fmt.Sprintf("-- Replicas --\nreplica0 %s\nreplica1 127.0.0.1:%d\nreplica2 127.0.0.1:%d\n---\n"+
		"protocol: curpht\nretryMs: 60000\nsessionIdleMs: 120000\nclientIdleTimeoutMs: 0\n", ln.Addr(), gone[0], gone[1])
	cfg, err := config.Parse("frozen.conf", strings.NewReader(text))
	require.NoError(t, err)
	return cfg
}

// The timeout bounds the whole command, ending the session included: the
// operation times out, and the session's end, which the leader never
// confirms, is not waited for past the timeout (it was, for a retry
// period). Reading standard input, the end has a timeout of its own.
func TestTimeoutBoundsEndingTheSession(t *testing.T) {
	for _, c := range []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"arguments", "", []string{"put", "1", "x"}, "swiftpaxos: put 1 x: no reply within 200ms"},
		{"standard input", "put 1 x\n", nil, "swiftpaxos: line 1: put 1 x: no reply within 200ms"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			o := Options{Config: frozenCluster(t), Policy: newPolicy,
				Timeout: 200 * time.Millisecond, In: strings.NewReader(c.stdin), Out: &out, Err: &errb}
			done := make(chan int, 1)
			go func() { done <- Run(context.Background(), o, c.args) }()
			select {
			case code := <-done:
				assert.Equal(t, NotFound, code)
			case <-time.After(10 * time.Second): // a failure bound, far below the retry period
				t.Fatal("kv still runs 10 s after a timeout of 200ms: it waits for the session's end")
			}
			assert.Empty(t, out.String())
			assert.True(t, strings.HasPrefix(errb.String(), c.want), errb.String())
		})
	}
}
