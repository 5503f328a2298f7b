// Package htreplica is CURP-HT's replica side (PROTOCOL.md section 4),
// the replica.Policy a CURP-HT server runs: a weak write is ordered by
// the leader alone and answered with a WeakReply once it commits. The
// client side is package curpht.
package htreplica
