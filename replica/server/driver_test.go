package server

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestServerDrivesCoreThroughDriver: the server's code calls on its core
// only the driver's methods (replica's conformance_test.go: StepClient,
// StepReplica, Tick and Ready, the surface the simulator drives too), PeerDown and SessionAttached (inputs only a
// TCP driver has: a broken connection may shorten the election timeout,
// PROTOCOL.md 6.1; a session's new connection is told the leader's view)
// Synced (durable mode's input, which the simulator calls too), and
// read-only accessors for its final log line and its applied log; and it
// uses all of the driver. A server that reached into the core otherwise (sending through
// it, applying on its own schedule) would be driving a core the simulator
// never tested.
func TestServerDrivesCoreThroughDriver(t *testing.T) {
	called := map[string]bool{}
	files, err := os.ReadDir(".")
	require.NoError(t, err)
	for _, de := range files {
		file := de.Name()
		if !strings.HasSuffix(file, ".go") || strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		require.NoError(t, err)
		inspectCoreCalls(f, called)
	}
	surface := []string{"StepClient", "StepReplica", "Tick", "Ready"}
	allowed := append(slices.Clone(surface), "PeerDown", "SessionAttached", "Synced", "Size", "LastSlot", "AppliedIndex", "SnapshotSlot")
	for m := range called {
		require.Contains(t, allowed, m, "the server calls Core.%s", m)
	}
	for _, m := range surface {
		require.True(t, called[m], "the server never calls Core.%s", m)
	}
}

// inspectCoreCalls notes the methods f calls on a field named core.
func inspectCoreCalls(f *ast.File, called map[string]bool) {
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		method, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if recv, ok := method.X.(*ast.SelectorExpr); ok && recv.Sel.Name == "core" {
			called[method.Sel.Name] = true
		}
		return true
	})
}
