package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// crashChildEnv makes the test binary act as the crashing process of
// TestPanicReachesLogFile.
const crashChildEnv = "SWIFTPAXOS_CRASH_CHILD_LOG"

const crashMessage = "deliberate panic of TestPanicReachesLogFile"

// TestPanicReachesLogFile runs a process that sets up its log through run
// (a client whose cluster is not there, so run returns at once) and then
// panics in another goroutine: the panic must be in the -log file, and
// still on stderr.
func TestPanicReachesLogFile(t *testing.T) {
	if path := os.Getenv(crashChildEnv); path != "" {
		crashChild(path)
		return
	}
	logPath := filepath.Join(t.TempDir(), "client0.log")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestPanicReachesLogFile$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+logPath)
	stderr, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "the child did not crash: %v\n%s", err, stderr)
	require.Equal(t, 2, exit.ExitCode(), "%s", stderr)
	require.Contains(t, string(stderr), "panic: "+crashMessage)

	log, err := os.ReadFile(logPath)
	require.NoError(t, err)
	require.Contains(t, string(log), "panic: "+crashMessage)
	require.Contains(t, string(log), "goroutine ", "no stack trace in the log file")
}

// crashChild is the child process: run sets up the log, then a goroutine
// panics.
func crashChild(logPath string) {
	conf := filepath.Join(filepath.Dir(logPath), "crash.conf")
	ports := make([]int, 3)
	for i := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		ports[i] = ln.Addr().(*net.TCPAddr).Port
		ln.Close() // nothing listens there: the client's dials are refused
	}
	text := fmt.Sprintf("-- Replicas --\nreplica0 127.0.0.1:%d\nreplica1 127.0.0.1:%d\nreplica2 127.0.0.1:%d\n"+
		"-- Clients --\nclient0 127.0.0.1\n---\nprotocol: curpht\nreqs: 1\n", ports[0], ports[1], ports[2])
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := run([]string{"-run", "client", "-config", conf, "-alias", "client0", "-log", logPath}, nil, io.Discard, os.Stderr)
	if code == 0 {
		fmt.Fprintln(os.Stderr, "the client run succeeded without a cluster")
		os.Exit(1)
	}
	go panic(crashMessage)
	select {} // the panic ends the process
}
