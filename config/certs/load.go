package certs

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Material is what one process needs for mutual TLS: the cluster CA and
// its own certificate and key.
type Material struct {
	pool   *x509.CertPool
	cert   tls.Certificate
	self   Identity
	server *tls.Config // ServerConfig, made once
}

// Load reads DIR/ca.pem and DIR/NAME.pem, DIR/NAME.key, where NAME is the
// process's alias (or GenericClient). It checks that the certificate is
// signed by the CA and names NAME, so that a directory of another cluster,
// or a file copied under the wrong name, fails here rather than at every
// handshake.
func Load(dir, name string) (*Material, error) {
	caPath := filepath.Join(dir, "ca.pem")
	caPEM, err := os.ReadFile(caPath)
	if err != nil {
		return nil, fmt.Errorf("tls: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("tls: %s holds no PEM certificate", caPath)
	}
	certPath, keyPath := filepath.Join(dir, name+".pem"), filepath.Join(dir, name+".key")
	cert, err := tls.LoadX509KeyPair(certPath, keyPath)
	if err != nil {
		return nil, fmt.Errorf("tls: %s, %s: %w", certPath, keyPath, err)
	}
	leaf := cert.Leaf
	if leaf == nil {
		if leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return nil, fmt.Errorf("tls: %s: %w", certPath, err)
		}
	}
	inter := x509.NewCertPool()
	for _, der := range cert.Certificate[1:] {
		c, err := x509.ParseCertificate(der)
		if err != nil {
			return nil, fmt.Errorf("tls: %s: %w", certPath, err)
		}
		inter.AddCert(c)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err != nil {
		return nil, fmt.Errorf("tls: %s is not a valid certificate of the CA in %s: %w", certPath, caPath, err)
	}
	id, err := IdentityOf(leaf)
	if err != nil {
		return nil, fmt.Errorf("tls: %s: %w", certPath, err)
	}
	if id.Alias != name {
		return nil, fmt.Errorf("tls: %s names %s, not %s", certPath, id, name)
	}
	m := &Material{pool: pool, cert: cert, self: id}
	m.server = m.ServerConfig()
	return m, nil
}

// Self is the identity of the loaded certificate.
func (m *Material) Self() Identity { return m.self }

// ServerConfig is the configuration of a replica's listener: TLS 1.3 and a
// certificate of the cluster CA required from every connection, so that
// anything else fails the handshake. Which member the certificate names is
// checked against the Hello by the replica (PeerIdentity).
func (m *Material) ServerConfig() *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{m.cert},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    m.pool,
	}
}

// ClientConfig is the configuration of a connection to the replica want:
// the server's certificate must chain to the cluster CA, allow server
// authentication and name want. The usual host-name check is replaced by
// that identity check (see the package doc: addresses may be a proxy's).
func (m *Material) ClientConfig(want Identity) *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{m.cert},
		RootCAs:      m.pool,
		// The chain and the identity are verified by VerifyConnection.
		InsecureSkipVerify: true,
		VerifyConnection: func(cs tls.ConnectionState) error {
			id, err := m.verify(cs.PeerCertificates, x509.ExtKeyUsageServerAuth)
			if err != nil {
				return err
			}
			if id != want {
				return fmt.Errorf("tls: the server's certificate names %s, want %s", id, want)
			}
			return nil
		},
	}
}

// verify checks a peer's chain against the CA for usage and returns the
// identity of its leaf.
func (m *Material) verify(chain []*x509.Certificate, usage x509.ExtKeyUsage) (Identity, error) {
	if len(chain) == 0 {
		return Identity{}, errors.New("tls: the peer sent no certificate")
	}
	inter := x509.NewCertPool()
	for _, c := range chain[1:] {
		inter.AddCert(c)
	}
	if _, err := chain[0].Verify(x509.VerifyOptions{Roots: m.pool, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{usage}}); err != nil {
		return Identity{}, fmt.Errorf("tls: the peer's certificate: %w", err)
	}
	return IdentityOf(chain[0])
}

// PeerIdentity is the identity named by the certificate the peer of a
// completed server-side handshake presented (ServerConfig has verified
// its chain).
func PeerIdentity(cs tls.ConnectionState) (Identity, error) {
	if len(cs.PeerCertificates) == 0 {
		return Identity{}, errors.New("tls: the peer sent no certificate")
	}
	return IdentityOf(cs.PeerCertificates[0])
}
