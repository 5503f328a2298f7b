package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"

	"swiftpaxos/config"
	"swiftpaxos/replica/server"
)

// loopbackPorts returns n ports of 127.0.0.1 that were free a moment ago.
func loopbackPorts(t *testing.T, n int) []any {
	t.Helper()
	ports := make([]any, n)
	for i := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		ports[i] = ln.Addr().(*net.TCPAddr).Port
		require.NoError(t, ln.Close())
	}
	return ports
}

// kvConf writes a configuration of three replicas on free loopback ports
// and one client bound to replica2, and returns its path.
func kvConf(t *testing.T, protocol string) string {
	t.Helper()
	text := fmt.Sprintf("-- Replicas --\nreplica0 127.0.0.1:%d\nreplica1 127.0.0.1:%d\nreplica2 127.0.0.1:%d\n"+
		"-- Clients --\nclient0 127.0.0.1\n-- Proxy --\nserver_alias replica2\nclient0\n---\n"+
		"protocol: %s\n", append(loopbackPorts(t, 3), protocol)...)
	p := filepath.Join(t.TempDir(), "kv.conf")
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

// startReplicas runs every replica of the configuration at path in this
// process until the test ends, and returns once all are members of the
// cluster: a replica that is not yet answers no client, which then asks
// again only after retryMs.
func startReplicas(t *testing.T, path string) {
	t.Helper()
	cfg, err := config.Load(path)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	ready := make(chan struct{}, cfg.N())
	member := zap.Hooks(func(e zapcore.Entry) error {
		if e.Message == "cluster bootstrapped" || e.Message == "rejoined as a full member" {
			ready <- struct{}{}
		}
		return nil
	})
	for i := range cfg.N() {
		alias := fmt.Sprintf("replica%d", i)
		wg.Go(func() {
			err := server.Serve(ctx, server.Options{Config: cfg, Alias: alias, ClusterNew: true, Policy: protocols[string(cfg.Protocol)].replica,
				Log: zaptest.NewLogger(t, zaptest.WrapOptions(member)).Named(alias)})
			if ctx.Err() == nil {
				t.Errorf("%s stopped: %v", alias, err)
				ready <- struct{}{}
			}
		})
	}
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	for range cfg.N() {
		<-ready
	}
}

func runKV(stdin string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(append([]string{"-run", "kv"}, args...), strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// swiftpaxos -run kv puts, gets and scans at both levels through a
// three-replica cluster on loopback, one command per process run and a
// script on standard input, with the exit statuses of issue 17.
func TestKVCommand(t *testing.T) {
	for _, protocol := range protocolNames() {
		t.Run(protocol, func(t *testing.T) {
			conf := kvConf(t, protocol)
			startReplicas(t, conf)
			kv := func(args ...string) (int, string, string) {
				return runKV("", append([]string{"-config", conf}, args...)...)
			}

			code, out, errs := kv("put", "1", "one")
			require.Equal(t, 0, code, errs)
			assert.Equal(t, "OK\n", out)
			code, out, errs = kv("-level", "weak", "put", "2", "two", "words")
			require.Equal(t, 0, code, errs)
			assert.Equal(t, "OK\n", out)

			// Other sessions: the strong put is linearizable, so a strong
			// get sees it; the weak put's session ended only once its write
			// was durable (Session.Close), so a strong get sees it too.
			code, out, errs = kv("-v", "get", "1")
			require.Equal(t, 0, code, errs)
			assert.Equal(t, "one\n", out)
			assert.Regexp(t, `^strong get 1: (fast|slow) path, answered by replica0 \(127\.0\.0\.1:\d+\) in [0-9.]+ ms, version \d+\n$`, errs)
			code, out, errs = kv("get", "2")
			require.Equal(t, 0, code, errs)
			assert.Equal(t, "two words\n", out)

			// A weak read sees another session's write once the session's
			// causal past holds it: here its own strong read of the key
			// (a fresh session's weak read may find a replica that has not
			// applied it yet).
			code, out, errs = runKV("get 1\nweak get 1\n", "-config", conf, "-v", "-alias", "client0")
			require.Equal(t, 0, code, errs)
			assert.Equal(t, "one\none\n", out)
			assert.Regexp(t, `\nweak get 1: answered by replica\d \(127\.0\.0\.1:\d+\) in [0-9.]+ ms`, errs)

			code, out, errs = kv("scan", "0", "5", "10")
			require.Equal(t, 0, code, errs)
			assert.Equal(t, "1\tone\n2\ttwo words\n", out)
			code, out, errs = kv("scan", "", "", "1")
			require.Equal(t, 0, code, errs)
			assert.Equal(t, "1\tone\n", out)
			assert.Contains(t, errs, "more keys follow; go on with scan \"1\\x00\" \"\" 1")

			code, out, errs = kv("get", "3")
			assert.Equal(t, 1, code)
			assert.Empty(t, out)
			assert.Equal(t, "swiftpaxos: get 3: not found\n", errs)
			code, _, errs = kv("weak", "scan", "100", "101", "10")
			assert.Equal(t, 1, code)
			assert.Contains(t, errs, "scan 100 101 10: no key holds a value")

			// One session for a script: its own weak write is visible to
			// its weak read at once (read your writes). Other sessions'
			// writes reach its weak reads only through its causal past: the
			// strong get of 2 raises its read frontier to that write's
			// slot, above the put of 1, so the weak scan after it sees both
			// (without it, a replica that has not applied them yet may
			// answer, PROTOCOL.md 4.6).
			// Errors name their line; a line too long to be a command
			// costs only that line.
			long := "put 8 " + strings.Repeat("v", 9_000_000)
			script := "weak put 5 five\nweak get 5\nget 2\n\n# a comment\nweak scan 1 6 10\nget 6\nfrob 1\n" +
				long + "\nput 7 seven\n"
			code, out, errs = runKV(script, "-config", conf)
			assert.Equal(t, 2, code, "the worst status of the script: a usage error")
			assert.Equal(t, "OK\nfive\ntwo words\n1\tone\n2\ttwo words\n5\tfive\nOK\n", out)
			assert.Equal(t, "swiftpaxos: line 7: get 6: not found\n"+
				"swiftpaxos: line 8: frob: unknown command; "+kvUsage+"\n"+
				fmt.Sprintf("swiftpaxos: line 9: a line of %d bytes, over the limit of 8393728: no command needs that much\n", len(long)), errs)
			code, out, _ = runKV("get 7\nweak get 5\n", "-config", conf)
			assert.Equal(t, 0, code)
			assert.Equal(t, "seven\nfive\n", out)
		})
	}
}

// kvUsage is the kv command's list of commands (client/kvcli).
const kvUsage = `get KEY | put KEY VALUE | del KEY | scan START END LIMIT | incr KEY [DELTA] | cas KEY absent|value OLD|version N set NEW|delete; each optionally after strong or weak; "..." takes Go escapes such as \x00; quit`

// Mistakes are told in one line and exit 2 before connecting; an
// unreachable cluster names every replica it tried and exits 1.
func TestKVErrors(t *testing.T) {
	conf := kvConf(t, "curpht") // nothing listens on its ports
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"get"}, "usage: get KEY"},
		{[]string{"get", ""}, "get: kvs: invalid command: GET: an empty key"},
		{[]string{"put", "1"}, "usage: put KEY VALUE"},
		{[]string{"scan", "1", "2", "0"}, `scan: LIMIT "0": a number of keys from 1 to 10000`},
		{[]string{"scan", "2", "1", "5"}, `the end "1" is before the start "2"`},
		{[]string{"incr", "n", "99999999999999999999"}, `DELTA "99999999999999999999" is not a decimal 64-bit integer`},
		{[]string{"weak", "cas", "l", "absent", "set", "me"}, "strong level"},
		{[]string{"drop", "1"}, "drop: unknown command"},
		{[]string{"-level", "medium", "get", "1"}, `-level must be strong or weak, not "medium"`},
		{[]string{"-alias", "client9", "get", "1"}, `-alias "client9" is not a client of ` + conf},
		{[]string{"put", "1", strings.Repeat("v", 1<<20+1)}, "put: kvs: invalid command: PUT: a value of 1048577 bytes, over maxValueBytes 1048576"},
		{[]string{"get", strings.Repeat("k", 1025)}, "a key of 1025 bytes, over maxKeyBytes 1024"},
	} {
		code, out, errs := runKV("", append([]string{"-config", conf}, c.args...)...)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Empty(t, out)
		assert.True(t, strings.HasPrefix(errs, "swiftpaxos: "), "%v: %s", c.args, errs)
		assert.Contains(t, strings.SplitN(errs, "\n", 2)[0], c.want, "%v", c.args)
	}

	code, _, errs := runKV("", "-config", conf, "get", "1")
	assert.Equal(t, 1, code)
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	require.Len(t, lines, 4, errs)
	assert.Equal(t, "swiftpaxos: no replica reachable:", lines[0])
	for i, l := range lines[1:] {
		assert.Regexp(t, fmt.Sprintf(`^  replica%d at 127\.0\.0\.1:\d+: .*connection refused$`, i), l)
	}
}
