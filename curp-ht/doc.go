// Package curpht is CURP-HT (PROTOCOL.md section 4): strong operations run
// exactly as plain CURP on the shared core, weak writes go to the leader
// only and are acknowledged once committed, and weak reads go to the
// nearest replica and are merged with the session's cache under the read
// frontier (both done by the shared client core).
//
// The protocol holds only what CURP-HT does differently, one package per
// side. This one is what an application imports: the client policy (where
// weak writes go) and the protocol's Name; it links the client library
// only. curp-ht/htreplica is the replica policy (WeakPropose handling and
// the commit-time WeakReply). Witnesses never see weak operations.
package curpht
