// Package localcluster starts a cluster of real replicas inside a test
// process, on 127.0.0.1, for the tests of the client library, the
// benchmark and the RESP front-end. Only tests import it.
package localcluster
