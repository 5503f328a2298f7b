package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/config"
	"swiftpaxos/config/certs"
)

// tlsConfs writes two configurations of the same three replicas, one
// without TLS and one with the certificates in the returned directory.
func tlsConfs(t *testing.T) (plain, withTLS, dir string) {
	t.Helper()
	plain = kvConf(t, "curpht")
	appendConf(t, plain, "retryMs: 250") // kv waits a retry period for its session's end
	cfg, err := config.Load(plain)
	require.NoError(t, err)
	dir = filepath.Join(t.TempDir(), "tls")
	_, err = certs.Generate(cfg, dir)
	require.NoError(t, err)
	text, err := os.ReadFile(plain)
	require.NoError(t, err)
	withTLS = filepath.Join(t.TempDir(), "tls.conf")
	require.NoError(t, os.WriteFile(withTLS, append(text, []byte("tls: "+dir+"\n")...), 0o644))
	return plain, withTLS, dir
}

// A client without TLS at a TLS cluster has its connections closed
// before any reply: kv and status say that TLS may be why, not only that
// the replicas are unreachable.
func TestPlainClientAtATLSClusterIsToldTLS(t *testing.T) {
	plain, withTLS, _ := tlsConfs(t)
	startCluster(t, withTLS)

	code, _, errs := runKV("", "-config", plain, "-timeout", "1s", "get", "1")
	require.Equal(t, 1, code, errs)
	require.Regexp(t, `replica0 \(127\.0\.0\.1:\d+\), replica1 \(127\.0\.0\.1:\d+\), replica2 \(127\.0\.0\.1:\d+\) closed the connection before any reply, `+
		`as a replica does to a client it refuses: a TLS cluster\? give -tls DIR \(or tls: DIR in the configuration\); `+
		`or does it run another protocol than curpht\? \(its log says why it refused\)\n$`, errs)
	require.NotContains(t, errs, "unreachable", "refused, not unreachable")

	code, out, _ := runStatus(t, plain)
	require.Equal(t, 1, code)
	require.Contains(t, out, "replica0 (127.0.0.1:")
	require.Contains(t, out, "the replica closed the connection: a TLS cluster? give -tls DIR")
}

// A client with TLS at a cluster without it sees its handshakes closed:
// kv and status ask whether the cluster runs without TLS.
func TestTLSClientAtAPlainClusterIsToldTLS(t *testing.T) {
	plain, _, dir := tlsConfs(t)
	startCluster(t, plain)

	code, _, errs := runKV("", "-config", plain, "-tls", dir, "-timeout", "1s", "get", "1")
	require.Equal(t, 1, code, errs)
	require.Regexp(t, `^swiftpaxos: no replica reachable:\n(  replica\d at 127\.0\.0\.1:\d+: TLS handshake: EOF \(the replica closed the connection: a cluster without TLS\?\)\n){3}$`, errs)

	var out, errb bytes.Buffer
	code = run([]string{"-run", "status", "-config", plain, "-tls", dir, "-timeout", "2s"}, nil, &out, &errb)
	require.Equal(t, 1, code)
	require.Contains(t, out.String(), "TLS handshake: EOF (the replica closed the connection: a cluster without TLS?)")
}

// A client of another protocol than the cluster's is refused (the Hello
// names it, decision 33): kv says so among the reasons.
func TestClientOfAnotherProtocolIsToldSo(t *testing.T) {
	plain, _, _ := tlsConfs(t)
	startCluster(t, plain)

	code, _, errs := runKV("", "-config", plain, "-protocol", "curpho", "-timeout", "1s", "get", "1")
	require.Equal(t, 1, code, errs)
	require.Contains(t, errs, "closed the connection before any reply")
	require.Contains(t, errs, "or does it run another protocol than curpho?")

	code, out, errs := runKV("", "-config", plain, "-timeout", "1s", "get", "1")
	require.Equal(t, 1, code, errs, "not found")
	require.NotContains(t, out+errs, "closed the connection")
}
