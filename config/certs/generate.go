package certs

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"swiftpaxos/config"
)

// Validity is how long generated certificates are valid. They are test
// certificates (the launcher makes new ones for every run); a production
// deployment brings its own CA and renewal.
const Validity = 5 * 365 * 24 * time.Hour

// backdate covers clocks of a cluster's machines that are a little behind
// the one that made the certificates.
const backdate = time.Hour

// leaf is one certificate to create.
type leaf struct {
	id Identity
	ip net.IP // nil: none
}

// Generate creates, in dir, a test CA and a certificate and key for every
// replica and client of cfg plus the generic client certificate, and
// returns the paths it wrote. It refuses to overwrite: if any of the files
// exists, it writes nothing and says which. dir is created if missing.
func Generate(cfg *config.Config, dir string) ([]string, error) {
	var leaves []leaf
	for _, h := range cfg.Replicas {
		leaves = append(leaves, leaf{Identity{Replica, h.Alias}, net.ParseIP(h.IP)})
	}
	for _, h := range cfg.Clients {
		leaves = append(leaves, leaf{Identity{Client, h.Alias}, net.ParseIP(h.IP)})
	}
	leaves = append(leaves, leaf{id: Identity{Client, GenericClient}})

	paths := []string{filepath.Join(dir, "ca.pem"), filepath.Join(dir, "ca.key")}
	for _, l := range leaves[:len(leaves)-1] {
		if err := checkAlias(l.id.Alias); err != nil {
			return nil, err
		}
	}
	for _, l := range leaves {
		paths = append(paths, filepath.Join(dir, l.id.Alias+".pem"), filepath.Join(dir, l.id.Alias+".key"))
	}
	var exist []string
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			exist = append(exist, p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	if len(exist) > 0 {
		names := strings.Join(exist[:min(3, len(exist))], ", ")
		if len(exist) > 3 {
			names += fmt.Sprintf(" and %d more", len(exist)-3)
		}
		return nil, fmt.Errorf("not overwriting existing files: %s (remove them or choose another directory)", names)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}

	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{Organization: []string{"swiftpaxos"}, CommonName: "swiftpaxos test CA"},
		NotBefore:             now.Add(-backdate),
		NotAfter:              now.Add(Validity),
		IsCA:                  true,
		BasicConstraintsValid: true,
		MaxPathLenZero:        true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	if err := writePair(paths[0], paths[1], caDER, caKey); err != nil {
		return nil, err
	}
	for i, l := range leaves {
		der, key, err := makeLeaf(l, ca, caKey, now)
		if err != nil {
			return nil, err
		}
		if err := writePair(paths[2+2*i], paths[3+2*i], der, key); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

// checkAlias refuses aliases that cannot be file names in dir or that
// would take the CA's or the generic client's files.
func checkAlias(a string) error {
	switch {
	case a == "ca":
		return fmt.Errorf("alias %q: its files would be the CA's (ca.pem, ca.key); rename the process", a)
	case a == GenericClient:
		return fmt.Errorf("alias %q: its files would be the generic client certificate's; rename the process", a)
	case a == "." || a == ".." || strings.ContainsAny(a, `/\`+"\x00"):
		return fmt.Errorf("alias %q cannot be a file name; rename the process", a)
	}
	return nil
}

func makeLeaf(l leaf, ca *x509.Certificate, caKey *ecdsa.PrivateKey, now time.Time) ([]byte, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	usage := []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	if l.id.Role == Replica {
		usage = append(usage, x509.ExtKeyUsageServerAuth)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject: pkix.Name{Organization: []string{"swiftpaxos"}, OrganizationalUnit: []string{string(l.id.Role)},
			CommonName: l.id.Alias},
		NotBefore:   now.Add(-backdate),
		NotAfter:    now.Add(Validity),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: usage,
		URIs:        []*url.URL{l.id.uri()},
	}
	if l.ip != nil {
		tmpl.IPAddresses = []net.IP{l.ip}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	return der, key, err
}

// serial is a random 128-bit serial number, as RFC 5280 recommends.
func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		// crypto/rand does not fail on supported platforms (Go 1.24+).
		panic(err)
	}
	return n
}

// writePair writes a certificate (0644) and its key (0600), refusing to
// replace a file that appeared since Generate looked.
func writePair(certPath, keyPath string, der []byte, key *ecdsa.PrivateKey) error {
	kb, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	if err := writeNew(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return err
	}
	return writeNew(keyPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kb}), 0o600)
}

func writeNew(path string, b []byte, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
