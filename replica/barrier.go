package replica

import "swiftpaxos/replica/wire"

// The leader's barrier (PROTOCOL.md 4.5 step 2, 5.4): a request whose
// session dependency has no slot yet waits for it, and is re-run when the
// dependency is appended; one that waits BarrierWait gets a retry (strong)
// or is dropped (weak), and the client re-sends.

// heldRequest is a request the leader holds until the command it depends
// on has a slot (PROTOCOL.md 4.5 step 2, 5.4).
type heldRequest struct {
	since  int64
	from   wire.ClientID
	strong *wire.Propose
	weak   *WeakWrite
}

func (c *Core) hold(dep wire.CmdID, h heldRequest) {
	h.since = c.o.Now()
	if _, ok := c.held[dep]; !ok {
		c.heldOrder = append(c.heldOrder, dep)
	}
	c.held[dep] = append(c.held[dep], h)
}

// releaseHeld re-runs, in arrival order, the requests that waited for id.
func (c *Core) releaseHeld(id wire.CmdID) {
	hs, ok := c.held[id]
	if !ok {
		return
	}
	delete(c.held, id)
	for _, h := range hs {
		if h.strong != nil {
			c.onPropose(h.from, h.strong)
		} else {
			c.ProposeWeak(*h.weak)
		}
	}
}

// expireHeld answers strong requests held too long with a retry and drops
// weak ones; the client re-sends its unconfirmed weak writes in order
// (PROTOCOL.md 5.4).
func (c *Core) expireHeld(now int64) {
	keep := c.heldOrder[:0]
	for _, dep := range c.heldOrder {
		hs, ok := c.held[dep]
		if !ok {
			continue
		}
		if now-hs[0].since < int64(c.o.BarrierWait) {
			keep = append(keep, dep)
			continue
		}
		delete(c.held, dep)
		for _, h := range hs {
			if h.strong != nil {
				c.out.toClient(h.from, &wire.LeaderReply{Replica: c.o.ID, Ballot: c.ballot, Cmd: h.strong.Cmd, Retry: true})
			}
		}
	}
	clear(c.heldOrder[len(keep):])
	c.heldOrder = keep
}
