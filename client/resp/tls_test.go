package resp_test

import (
	"crypto/tls"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/config"
	"swiftpaxos/config/certs"
)

// certsFor writes a CA and certificates for the replicas startCluster
// runs (their aliases and IPs; ports do not enter a certificate) into a
// new directory, and returns its absolute path: the cluster's
// configuration is parsed from a string, so a relative tls: path would
// be read from the working directory.
func certsFor(t *testing.T) string {
	t.Helper()
	cfg, err := config.Parse("certs.conf", strings.NewReader(`-- Replicas --
replica0 127.0.0.1:7070
replica1 127.0.0.2:7071
replica2 127.0.0.3:7072
---
protocol: curpht
`))
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "tls")
	_, err = certs.Generate(cfg, dir)
	require.NoError(t, err)
	return dir
}

// With tls: set, the RESP port speaks TLS and requires a client
// certificate of the cluster's CA: the generic client's works; none, one
// of another CA, or plain TCP, is refused.
func TestTLS(t *testing.T) {
	dir := certsFor(t)
	c := startCluster(t, "curpht", quick+"tls: "+dir)
	ctx := t.Context()
	m, err := certs.Load(dir, certs.GenericClient)
	require.NoError(t, err)
	server := certs.Identity{Role: certs.Replica, Alias: "replica1"}
	dial := func(cfg *tls.Config) *redis.Client {
		return c.client(t, 1, func(o *redis.Options) { o.TLSConfig = cfg; o.PoolSize = 1 })
	}

	good := dial(m.ClientConfig(server))
	require.NoError(t, good.Set(ctx, "tls", "yes", 0).Err())
	assert.Equal(t, "yes", good.Get(ctx, "tls").Val())

	noCert := m.ClientConfig(server)
	noCert.Certificates = nil
	assert.ErrorContains(t, dial(noCert).Ping(ctx).Err(), "certificate required", "no client certificate")

	other, err := certs.Load(certsFor(t), certs.GenericClient)
	require.NoError(t, err)
	foreign := other.ClientConfig(server)
	foreign.RootCAs = m.ClientConfig(server).RootCAs // it trusts the server, the server does not trust it
	foreign.VerifyConnection = nil
	assert.ErrorContains(t, dial(foreign).Ping(ctx).Err(), "unknown certificate authority", "a client certificate of another CA")

	assert.ErrorIs(t, dial(nil).Ping(ctx).Err(), io.EOF, "plain TCP: the front-end closes the connection")

	assert.Equal(t, "PONG", good.Ping(ctx).Val(), "the front-end goes on serving")
}
