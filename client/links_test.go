package client_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLibraryLinksNoServer: a program that opens sessions of either
// protocol (it imports client and curp-ht or curp-ho) links the client
// library and the packages below it, never the benchmark, the checker,
// the replica or its server, and no module beyond the design card's
// (zap, x/sync, uuid) and the store's ordered tree.
func TestLibraryLinksNoServer(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}",
		"swiftpaxos/client", "swiftpaxos/curp-ht", "swiftpaxos/curp-ho").CombinedOutput()
	require.NoError(t, err, "%s", out)
	ours := []string{"swiftpaxos/client", "swiftpaxos/curp-ht", "swiftpaxos/curp-ho", "swiftpaxos/config",
		"swiftpaxos/config/certs", "swiftpaxos/config/quorum", "swiftpaxos/kvs", "swiftpaxos/batcher", "swiftpaxos/cost",
		"swiftpaxos/wire", "swiftpaxos/wire/applog", "swiftpaxos/config/quorum"}
	modules := []string{"go.uber.org/zap", "go.uber.org/multierr", "golang.org/x/sync", "github.com/google/uuid", "github.com/tidwall/btree"}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "swiftpaxos") {
			require.Contains(t, ours, p, "a session links %s", p)
			continue
		}
		known := false
		for _, m := range modules {
			known = known || p == m || strings.HasPrefix(p, m+"/")
		}
		require.True(t, known, "a session links module %s", p)
	}
}
