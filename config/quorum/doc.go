// Package quorum is the quorum arithmetic of PROTOCOL.md 1.7 for a group
// of n = 2f+1 replicas, written once for the replicas, the client sessions,
// the configuration and the simulator. It is plain functions of n; callers
// validate n (odd, at least 3) where they take it.
package quorum
