// Package statuscli is swiftpaxos -run status: it asks every replica of a
// configuration for its status (wire.StatusRequest, answered on the
// replica's normal port) and prints one table.
//
// It speaks the wire format directly rather than through a
// client.Session: a status request is not an operation, needs no leader
// and must work when no leader exists (that is when one asks). Under TLS
// it presents the generic client certificate, as -run kv does.
//
// When replicas answered and none leads, it says so after the table, and
// why (learners: docs/DECISIONS.md 21; a cluster not founded yet:
// docs/DECISIONS.md 37) and what to do; that is no error. The table says
// each replica's mode (memory or durable).
//
// Exit status: 0 when a majority of the replicas answered, 1 otherwise.
package statuscli
