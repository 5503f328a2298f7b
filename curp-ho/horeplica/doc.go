// Package horeplica is CURP-HO's replica side (PROTOCOL.md section 5),
// the replica.Policy a CURP-HO server runs: the weak-write path (every
// witness records a weak write, the bound replica acknowledges it, the
// leader appends it to the session's causal chain), the barrier's
// dependency of a strong operation, the leader's read rule and its
// batched WeakCommits (policy.go), and the index of weak records by
// session that the witness report's CausalDeps and ReadDep read
// (witness.go). The client side is package curpho, above nothing of this.
package horeplica
