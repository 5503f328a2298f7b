package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swiftpaxos/client"
	"swiftpaxos/client/internal/localcluster"
	curpht "swiftpaxos/curp-ht"
)

// CloseContext stops waiting for the leader's confirmation of the end when
// its context ends, not a retry period later: a leader that accepts the
// connection but never answers would otherwise hold the close for retryMs
// (a minute here, so that the bound below cannot be met by the retry
// period ending).
func TestCloseContextIsBoundedByItsContext(t *testing.T) {
	for _, c := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
	}{
		{"ended before", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			return ctx, cancel
		}},
		{"deadline while waiting", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(t.Context(), 50*time.Millisecond)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ports := localcluster.FreePorts(t, 3) // released: replica1 and replica2 are not there
			ports[0] = silentReplica(t)
			cfg := localcluster.Config(t, ports, "retryMs: 60000\nsessionIdleMs: 120000\nclientIdleTimeoutMs: 0")
			s, err := client.Dial(t.Context(), client.SessionOptions{Config: cfg, Policy: curpht.NewClientPolicy()})
			require.NoError(t, err)

			ctx, cancel := c.ctx()
			defer cancel()
			closed := make(chan error, 1)
			go func() { closed <- s.CloseContext(ctx) }()
			select {
			case err := <-closed:
				require.NoError(t, err)
			case <-time.After(10 * time.Second): // a failure bound, a sixth of retryMs
				t.Fatal("CloseContext still waits for the end's confirmation after its context ended")
			}
			// Stopped: a second close returns at once, whatever its context.
			require.NoError(t, s.Close())
		})
	}
}
