// Package curpht is CURP-HT (PROTOCOL.md section 4): strong operations run
// exactly as plain CURP on the shared core, weak writes go to the leader
// only and are acknowledged once committed, and weak reads go to the
// nearest replica and are merged with the session's cache under the read
// frontier (both done by the shared client core).
//
// The package holds only what CURP-HT does differently: the replica policy
// (WeakPropose handling and the commit-time WeakReply) and the client
// policy (where weak writes go). Witnesses never see weak operations.
package curpht
