// Package certs creates and loads the certificates of a deployment's mutual
// TLS (the configuration key tls: DIR, swiftpaxos -run certs).
//
// Layout of a certificate directory:
//
//	ca.pem, ca.key       the cluster CA (ca.key is needed only to add
//	                     certificates; no process reads it)
//	ALIAS.pem, ALIAS.key the certificate and key of each replica and client
//	                     process of the configuration
//	generic-client.pem   a client certificate for ad-hoc clients that are
//	generic-client.key   not in the configuration (a command-line tool)
//
// Keys are ECDSA P-256 in PKCS #8 PEM, written with mode 0600.
//
// Identity. A certificate names one role and one alias in a URI subject
// alternative name, swiftpaxos://ROLE/ALIAS, ROLE being replica or client
// (swiftpaxos://replica/replica0, swiftpaxos://client/client0,
// swiftpaxos://client/generic-client). That URI is the only identity this
// package reads. The subject (CN = alias, OU = role) repeats it for people
// and tools, and the IP address of the process in the configuration is an
// IP SAN, but neither is checked: a connection may go through a proxy (the
// launcher's --proxy) whose address is not the process's, and what a
// replica must know is which member is at the other end, not where it is.
//
// Replica certificates may serve and dial (server and client
// authentication); client certificates may only dial. A replica therefore
// cannot be impersonated by a client certificate even before the Hello is
// read: a client dialling a replica checks the server's chain (server
// authentication) and that it names the replica it dialled.
//
// Thread-safety: a Material is immutable once loaded; the *tls.Config
// values it returns may be used by any number of connections.
package certs
