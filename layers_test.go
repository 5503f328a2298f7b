package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// layers is the project's packages from the bottom up, as
// docs/ARCHITECTURE.md draws them ("Layers"). A package imports only
// packages of lower layers; a new package takes its place here.
var layers = [][]string{
	{"kvs", "config/quorum", "batcher", "cost", "metrics", "scripts/internal/ycsbraw"},
	{"wire", "config"},
	{"wire/applog", "config/certs", "replica/storage"},
	{"replica", "replica/storage/disk", "check", "client"},
	{"replica/server", "curp-ht", "curp-ho", "client/statuscli", "client/kvcli"},
	{"curp-ht/htreplica", "curp-ho/horeplica", "client/resp", "client/bench"},
	{"sim", "client/internal/localcluster", "scripts/internal/nemesis", "scripts/internal/sweep"},
	{"", "scripts/nemesis", "scripts/plot", "scripts/soak", "scripts/sweepstat", "scripts/ycsbstat"},
}

// TestImportsRunDown: every import of a project package by a non-test
// file of this module (tests may reach up: a library test starts
// replicas) goes to a lower layer, and a package nested in another's directory (config/quorum in
// config/) is imported only from above that directory's package too, so
// that a package several use never sits in the room of one of them (the
// quorum arithmetic under replica/ made config import from the replica's
// room).
func TestImportsRunDown(t *testing.T) {
	layer := map[string]int{}
	for i, l := range layers {
		for _, p := range l {
			layer[p] = i
		}
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		p := ours(f[0])
		lp, ok := layer[p]
		require.True(t, ok, "package %q has no layer in layers_test.go (and docs/ARCHITECTURE.md)", f[0])
		for _, imp := range f[1:] {
			if !strings.HasPrefix(imp, "swiftpaxos/") {
				continue
			}
			q := ours(imp)
			_, known := layer[q]
			require.True(t, known, "%s imports %s, which has no layer", f[0], imp)
			require.Less(t, layer[q], lp, "%s (layer %d) imports %s (layer %d)", f[0], lp, imp, layer[q])
			for a := parent(q); a != ""; a = parent(a) {
				la, isPkg := layer[a]
				if !isPkg || a == p || strings.HasPrefix(p, a+"/") {
					continue
				}
				require.Less(t, la, lp, "%s imports %s from the room of %s, which is not below it", f[0], imp, a)
			}
		}
	}
}

// ours is a package's path inside the module ("" for the module's root).
func ours(path string) string {
	return strings.TrimPrefix(strings.TrimPrefix(path, "swiftpaxos"), "/")
}

// parent is the directory above a package's path ("" at the top).
func parent(path string) string {
	i := strings.LastIndex(path, "/")
	if i < 0 {
		return ""
	}
	return path[:i]
}
