package replica

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCoreDoesNoIO: the core imports nothing that reaches a socket, a
// file, another goroutine or a TLS session, and reads no clock of its
// own (ARCHITECTURE.md rule 2): what the simulator establishes about it
// then holds wherever it runs. time is imported for its Duration only.
func TestCoreDoesNoIO(t *testing.T) {
	forbidden := map[string]bool{"net": true, "os": true, "sync": true, "sync/atomic": true, "crypto/tls": true,
		"syscall": true, "io/fs": true, "path/filepath": true, "math/rand": true, "go.uber.org/zap": true}
	clock := map[string]bool{"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true, "AfterFunc": true,
		"Tick": true, "NewTimer": true, "NewTicker": true}
	files, err := os.ReadDir(".")
	require.NoError(t, err)
	for _, de := range files {
		name := de.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		require.NoError(t, err)
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			require.False(t, forbidden[p], "%s imports %s", name, p)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "time" {
					require.False(t, clock[sel.Sel.Name], "%s calls time.%s", name, sel.Sel.Name)
				}
			}
			return true
		})
	}
}

// TestCoreLinksNoServer: nothing the core imports, however indirectly,
// opens a socket or speaks TLS, and the only module outside the standard
// library in its tree is the store's ordered tree (kvs). os and sync are
// there only because fmt, io and time import them (and the tree its
// optional locks); the core's own files never call them (TestCoreDoesNoIO).
func TestCoreLinksNoServer(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if .Standard}}std {{end}}{{.ImportPath}}", ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		switch {
		case line == "std net" || line == "std crypto/tls":
			t.Errorf("the core links %s", line)
		case strings.HasPrefix(line, "swiftpaxos"):
			require.Contains(t, []string{"swiftpaxos/kvs", "swiftpaxos/wire", "swiftpaxos/replica/storage",
				"swiftpaxos/config/quorum", "swiftpaxos/replica"}, line, "the core links a package of the process around it")
		case !strings.HasPrefix(line, "std "):
			require.True(t, strings.HasPrefix(line, "github.com/tidwall/btree"), "the core links module %s", line)
		}
	}
}

// TestCoreTestsNeedNoShell: the core's tests and the simulator run the
// core without anything of the process around it.
func TestCoreTestsNeedNoShell(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-test", ".", "../sim").CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, p := range strings.Fields(string(out)) {
		for _, shell := range []string{"swiftpaxos/replica/server", "swiftpaxos/replica/storage/disk", "github.com/cockroachdb/pebble"} {
			require.False(t, p == shell || strings.HasPrefix(p, shell+"/"), "the core's tests or the simulator link %s", p)
		}
	}
}
