package config

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// FuzzParse checks that no input makes the parser panic, that a failure is
// always an *Errors locating each problem in the input, and that a success
// satisfies the invariants doc.go promises.
func FuzzParse(f *testing.F) {
	if repo, err := os.ReadFile("../multi-client.conf"); err == nil {
		f.Add(string(repo))
	}
	f.Add(withHosts("pendingz: 15"))
	f.Add(withHosts("-- Apply to client0 --", "pendings: 3", "-- Proxy --", "server_alias replica0", "client0 (local)", "---"))
	f.Add(withHosts("electionTimeoutMs: 1-2", "zipfSkew: 1e400", "latencyFile: x", "networkDelay: 3"))
	f.Add("-- Replicas --\nreplica0 [::1]:70\nreplica9 1.2.3.4:x\n--\n---\n: :\n")

	f.Fuzz(func(t *testing.T, text string) {
		c, err := parse("fuzz.conf", strings.NewReader(text), noDisk)
		if err != nil {
			var es *Errors
			if !errors.As(err, &es) || len(es.Issues) == 0 {
				t.Fatalf("error %T %q is not a non-empty *Errors", err, err)
			}
			for _, is := range es.Issues {
				if !strings.HasPrefix(is.String(), "fuzz.conf:") || is.Line < 0 {
					t.Fatalf("issue %q does not locate itself in the input", is)
				}
			}
			return
		}
		if c.N() < 3 || c.N()%2 == 0 {
			t.Fatalf("accepted %d replicas", c.N())
		}
		for i := 0; i < c.N(); i++ {
			if j, ok := c.ReplicaIndex(c.Replica(i).Alias); !ok || j != i {
				t.Fatalf("replica %d has index %d, %v", i, j, ok)
			}
		}
		if !(c.Majority() <= c.SuperQuorum() && c.SuperQuorum() <= c.N()) {
			t.Fatalf("quorums M=%d Q=%d n=%d", c.Majority(), c.SuperQuorum(), c.N())
		}
		hosts := append(append([]Host(nil), c.Replicas...), c.Clients...)
		for _, a := range hosts {
			cfg := c.For(a.Alias)
			if !cfg.Fast || cfg.ClientThreads < 1 {
				t.Fatalf("For(%s) unresolved: %+v", a.Alias, cfg.Params)
			}
			for _, b := range hosts {
				if d := c.OneWayDelay(a.Alias, b.Alias); d < 0 {
					t.Fatalf("negative delay %v", d)
				}
			}
		}
	})
}
