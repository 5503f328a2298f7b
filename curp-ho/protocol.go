package curpho

// Name is the protocol's name in the configuration and on the command line.
const Name = "curpho"

// Mutation deliberately breaks one of CURP-HO's rules, so that tests can
// prove the checker catches it. Never set outside tests.
type Mutation struct {
	// NoBarrier: the leader does not wait for a session's weak writes
	// before ordering its strong operation (PROTOCOL.md 5.4).
	NoBarrier bool
	// NoCausalDeps: the client ignores condition 2 of PROTOCOL.md 5.8.
	NoCausalDeps bool
	// NoReadDep: the client ignores condition 3 of PROTOCOL.md 5.8.
	NoReadDep bool
}
