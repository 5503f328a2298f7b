package replica

import "swiftpaxos/wire"

// maxEarly bounds the client requests a replica holds before it is a
// member; beyond it they are dropped, and their clients' retries carry
// them.
const maxEarly = 1 << 12

// holdEarly keeps a client request that reaches the replica before it is
// a member (still asking its peers whether the cluster is new, or a
// restarted replica catching up: join.go), to be stepped the moment it
// joins. Dropped, the request would wait for its client's retry (retryMs,
// seconds) although the replica can serve it a few milliseconds later.
// Holding a request only delays it, as the network may, so no protocol
// rule changes. A weak read is not held: a learner answers it at once
// with Retry, and the client asks another replica. It reports whether m
// was taken.
func (c *Core) holdEarly(from wire.ClientID, m wire.Message) bool {
	if _, read := m.(*wire.WeakRead); read {
		return false
	}
	if len(c.early) < maxEarly {
		c.early = append(c.early, bufferedRequest{from, m})
	}
	return true
}

// releaseEarly steps the requests held while the replica was not a
// member, in arrival order; it runs once the replica is one.
func (c *Core) releaseEarly() {
	early := c.early
	c.early = nil
	for _, b := range early {
		c.stepClient(b.from, b.msg)
	}
}
