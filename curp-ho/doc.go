// Package curpho is CURP-HO (PROTOCOL.md section 5): weak writes are
// broadcast to every replica, recorded by every witness, and acknowledged
// at once by the client's bound replica (one round trip to the closest
// replica); the leader orders them in the background along each session's
// causal chain. Strong operations stay safe through extra checks: the
// leader's barrier puts a session's weak writes before its later strong
// operations, witnesses report the session's pending weak writes and the
// read's dependency, and the client completes a strong operation on the
// fast path only when a super-quorum vouches for both (section 5.8).
//
// The protocol holds only what CURP-HO adds to the shared cores, one
// package per side. This one is what an application imports: the client
// policy (client.go: write set, bound replica, tainted rule), the
// protocol's Name and its test Mutations; it links the client library
// only. curp-ho/horeplica is the replica policy the server runs.
package curpho
