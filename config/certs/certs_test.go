package certs

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/config"
)

const conf = `-- Replicas --
replica0 127.0.0.1
replica1 127.0.0.2
replica2 127.0.0.3
-- Clients --
client0 127.0.0.4
client1 127.0.0.5
---
protocol: curpho
`

func testConfig(t *testing.T, text string) *config.Config {
	t.Helper()
	cfg, err := config.Parse("t.conf", strings.NewReader(text))
	require.NoError(t, err)
	return cfg
}

// generate makes a certificate directory of conf's processes.
func generate(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tls")
	_, err := Generate(testConfig(t, conf), dir)
	require.NoError(t, err)
	return dir
}

func readCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	blk, _ := pem.Decode(b)
	require.NotNil(t, blk, path)
	c, err := x509.ParseCertificate(blk.Bytes)
	require.NoError(t, err)
	return c
}

func TestGenerateWritesEveryProcessAndTheGenericClient(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "tls")
	paths, err := Generate(testConfig(t, conf), dir)
	require.NoError(t, err)
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(p))
		st, err := os.Stat(p)
		require.NoError(t, err)
		if strings.HasSuffix(p, ".key") {
			assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), p)
		}
	}
	assert.Equal(t, []string{"ca.pem", "ca.key", "replica0.pem", "replica0.key", "replica1.pem", "replica1.key",
		"replica2.pem", "replica2.key", "client0.pem", "client0.key", "client1.pem", "client1.key",
		"generic-client.pem", "generic-client.key"}, names)

	ca := readCert(t, filepath.Join(dir, "ca.pem"))
	assert.True(t, ca.IsCA)
	for _, c := range []struct {
		alias string
		id    Identity
		ip    string
		usage []x509.ExtKeyUsage
	}{
		{"replica1", Identity{Replica, "replica1"}, "127.0.0.2", []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth}},
		{"client1", Identity{Client, "client1"}, "127.0.0.5", []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}},
		{GenericClient, Identity{Client, GenericClient}, "", []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}},
	} {
		cert := readCert(t, filepath.Join(dir, c.alias+".pem"))
		id, err := IdentityOf(cert)
		require.NoError(t, err)
		assert.Equal(t, c.id, id)
		assert.Equal(t, "swiftpaxos://"+string(c.id.Role)+"/"+c.alias, cert.URIs[0].String())
		assert.Equal(t, c.alias, cert.Subject.CommonName)
		assert.Equal(t, []string{string(c.id.Role)}, cert.Subject.OrganizationalUnit)
		assert.Equal(t, c.usage, cert.ExtKeyUsage)
		if c.ip != "" {
			require.Len(t, cert.IPAddresses, 1)
			assert.Equal(t, c.ip, cert.IPAddresses[0].String())
		} else {
			assert.Empty(t, cert.IPAddresses)
		}
		require.NoError(t, cert.CheckSignatureFrom(ca))

		m, err := Load(dir, c.alias)
		require.NoError(t, err)
		assert.Equal(t, c.id, m.Self())
	}
}

func TestGenerateNeverOverwrites(t *testing.T) {
	dir := generate(t)
	before, err := os.ReadFile(filepath.Join(dir, "ca.pem"))
	require.NoError(t, err)
	_, err = Generate(testConfig(t, conf), dir)
	require.ErrorContains(t, err, "not overwriting existing files: "+filepath.Join(dir, "ca.pem"))
	after, err := os.ReadFile(filepath.Join(dir, "ca.pem"))
	require.NoError(t, err)
	assert.Equal(t, before, after)

	// One existing file is enough to write nothing.
	dir2 := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir2, "client1.key"), []byte("mine"), 0o600))
	_, err = Generate(testConfig(t, conf), dir2)
	require.ErrorContains(t, err, "client1.key")
	entries, err := os.ReadDir(dir2)
	require.NoError(t, err)
	assert.Len(t, entries, 1)
}

func TestGenerateRefusesClashingAliases(t *testing.T) {
	for alias, want := range map[string]string{"ca": "CA's", GenericClient: "generic client"} {
		text := strings.Replace(conf, "client1 127.0.0.5", alias+" 127.0.0.5", 1)
		_, err := Generate(testConfig(t, text), t.TempDir())
		require.ErrorContains(t, err, want, alias)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := generate(t)
	_, err := Load(dir, "client9")
	assert.ErrorContains(t, err, "client9.pem")

	// A certificate under another process's name.
	for _, ext := range []string{".pem", ".key"} {
		b, err := os.ReadFile(filepath.Join(dir, "client0"+ext))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "replica7"+ext), b, 0o600))
	}
	_, err = Load(dir, "replica7")
	assert.ErrorContains(t, err, "names client client0, not replica7")

	// A certificate of another cluster's CA.
	other := generate(t)
	b, err := os.ReadFile(filepath.Join(other, "ca.pem"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ca.pem"), b, 0o644))
	_, err = Load(dir, "client0")
	assert.ErrorContains(t, err, "not a valid certificate of the CA")

	_, err = Load(t.TempDir(), "client0")
	assert.ErrorContains(t, err, "ca.pem")
}

// handshake runs a TLS handshake over an in-memory pipe and returns both
// sides' errors and the identity the server sees.
func handshake(t *testing.T, server *Material, client *tls.Config) (serverErr, clientErr error, peer Identity) {
	t.Helper()
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	done := make(chan error, 1)
	srv := tls.Server(a, server.ServerConfig())
	go func() {
		err := srv.Handshake()
		if err == nil {
			// Under TLS 1.3 a client learns that its certificate was
			// refused only when it reads; this read sees the server's
			// one byte or its alert.
			_, err = srv.Write([]byte{1})
		}
		done <- err
		a.Close()
	}()
	cl := tls.Client(b, client)
	clientErr = cl.Handshake()
	if clientErr == nil {
		var one [1]byte
		_, clientErr = cl.Read(one[:])
	}
	b.Close()
	serverErr = <-done
	if serverErr == nil {
		peer, serverErr = PeerIdentity(srv.ConnectionState())
	}
	return serverErr, clientErr, peer
}

func mustLoad(t *testing.T, dir, name string) *Material {
	t.Helper()
	m, err := Load(dir, name)
	require.NoError(t, err)
	return m
}

func TestHandshakes(t *testing.T) {
	dir, other := generate(t), generate(t)
	r0, r1, c0 := mustLoad(t, dir, "replica0"), mustLoad(t, dir, "replica1"), mustLoad(t, dir, "client0")
	gen := mustLoad(t, dir, GenericClient)
	stranger := mustLoad(t, other, "client0")

	sErr, cErr, peer := handshake(t, r0, c0.ClientConfig(Identity{Replica, "replica0"}))
	require.NoError(t, sErr)
	require.NoError(t, cErr)
	assert.Equal(t, Identity{Client, "client0"}, peer)

	sErr, cErr, peer = handshake(t, r0, r1.ClientConfig(Identity{Replica, "replica0"}))
	require.NoError(t, sErr)
	require.NoError(t, cErr)
	assert.Equal(t, Identity{Replica, "replica1"}, peer)

	_, cErr, peer = handshake(t, r0, gen.ClientConfig(Identity{Replica, "replica0"}))
	require.NoError(t, cErr)
	assert.Equal(t, Identity{Client, GenericClient}, peer)

	// The dialler checks that the server is the replica it dialled.
	_, cErr, _ = handshake(t, r1, c0.ClientConfig(Identity{Replica, "replica0"}))
	assert.ErrorContains(t, cErr, "names replica replica1, want replica replica0")

	// A client certificate cannot serve.
	_, cErr, _ = handshake(t, c0, r0.ClientConfig(Identity{Replica, "client0"}))
	assert.ErrorContains(t, cErr, "usage")

	// No certificate, or one of another CA: the server refuses.
	noCert := c0.ClientConfig(Identity{Replica, "replica0"})
	noCert.Certificates = nil
	sErr, cErr, _ = handshake(t, r0, noCert)
	assert.ErrorContains(t, sErr, "certificate")
	assert.Error(t, cErr)

	// A stranger that does not check the server gets as far as showing
	// its certificate, which the server refuses.
	trusting := stranger.ClientConfig(Identity{Replica, "replica0"})
	trusting.VerifyConnection = nil
	sErr, cErr, _ = handshake(t, r0, trusting)
	assert.ErrorContains(t, sErr, "unknown authority")
	assert.Error(t, cErr)

	_, cErr, _ = handshake(t, r0, stranger.ClientConfig(Identity{Replica, "replica0"}))
	assert.ErrorContains(t, cErr, "unknown authority", "the stranger's client refuses the server too")
}
