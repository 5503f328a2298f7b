package certs

import (
	"crypto/x509"
	"fmt"
	"net/url"
	"strings"
)

// Role is what a certificate lets its holder be.
type Role string

// The roles of a deployment's processes.
const (
	Replica Role = "replica"
	Client  Role = "client"
)

// GenericClient is the alias of the client certificate that belongs to no
// process of the configuration.
const GenericClient = "generic-client"

// scheme is the scheme of the identity URI.
const scheme = "swiftpaxos"

// Identity is the role and alias a certificate names.
type Identity struct {
	Role  Role
	Alias string
}

func (id Identity) String() string { return string(id.Role) + " " + id.Alias }

// uri is the subject alternative name that carries id.
func (id Identity) uri() *url.URL {
	return &url.URL{Scheme: scheme, Host: string(id.Role), Path: "/" + id.Alias}
}

// IdentityOf returns the identity a certificate names in its one
// swiftpaxos URI. It does not verify the certificate.
func IdentityOf(c *x509.Certificate) (Identity, error) {
	var found []Identity
	for _, u := range c.URIs {
		if u.Scheme != scheme {
			continue
		}
		id := Identity{Role: Role(u.Host), Alias: strings.TrimPrefix(u.Path, "/")}
		if (id.Role != Replica && id.Role != Client) || id.Alias == "" || strings.Contains(id.Alias, "/") {
			return Identity{}, fmt.Errorf("certificate %q: malformed identity %q", c.Subject.CommonName, u.String())
		}
		found = append(found, id)
	}
	switch len(found) {
	case 0:
		return Identity{}, fmt.Errorf("certificate %q names no swiftpaxos identity (a %s://ROLE/ALIAS URI)", c.Subject.CommonName, scheme)
	case 1:
		return found[0], nil
	default:
		return Identity{}, fmt.Errorf("certificate %q names %d swiftpaxos identities, want one", c.Subject.CommonName, len(found))
	}
}
