package replica

import "swiftpaxos/wire"

// The leader's barrier (PROTOCOL.md 4.5 step 2, 5.4): a request whose
// session dependency has no slot yet waits for it, and is re-run when the
// dependency is appended; one that waits BarrierWait gets a retry (strong)
// or is dropped (weak), and the client re-sends.

// barredRequest is a request the leader's barrier keeps back until the
// command it depends on has a slot (PROTOCOL.md 4.5 step 2, 5.4).
type barredRequest struct {
	since  int64
	from   wire.ClientID
	strong *wire.Propose
	weak   *WeakWrite
}

func (c *Core) bar(dep wire.CmdID, h barredRequest) {
	h.since = c.o.Now()
	if _, ok := c.barred[dep]; !ok {
		c.barredOrder = append(c.barredOrder, dep)
	}
	c.barred[dep] = append(c.barred[dep], h)
}

// releaseBarred re-runs, in arrival order, the requests that waited for id.
func (c *Core) releaseBarred(id wire.CmdID) {
	hs, ok := c.barred[id]
	if !ok {
		return
	}
	delete(c.barred, id)
	for _, h := range hs {
		if h.strong != nil {
			c.onPropose(h.from, h.strong)
		} else {
			c.ProposeWeak(*h.weak)
		}
	}
}

// expireBarred answers strong requests barred too long with a retry and
// drops weak ones; the client re-sends its unconfirmed weak writes in order
// (PROTOCOL.md 5.4).
func (c *Core) expireBarred(now int64) {
	keep := c.barredOrder[:0]
	for _, dep := range c.barredOrder {
		hs, ok := c.barred[dep]
		if !ok {
			continue
		}
		if now-hs[0].since < int64(c.o.BarrierWait) {
			keep = append(keep, dep)
			continue
		}
		delete(c.barred, dep)
		for _, h := range hs {
			if h.strong != nil {
				c.out.toClient(h.from, &wire.LeaderReply{Replica: c.o.ID, Ballot: c.ballot, Cmd: h.strong.Cmd, Retry: true})
			}
		}
	}
	clear(c.barredOrder[len(keep):])
	c.barredOrder = keep
}
