package replica

import (
	"time"

	"swiftpaxos/wire"
)

// Lease reads (Options.LeaseReads, docs/DECISIONS.md 55). A leader read
// waits for a leadership round begun after it arrived (leaderread.go); with
// leases, a round also proves something for a while after it began:
//
//   - A replica that acknowledges an Accept of its ballot's leader at time
//     t promises to grant no pre-vote or vote, and not to stand, before
//     t + ElectionTimeoutMin on its own clock (election.promised). A
//     replica that starts, new or restarted, promises the same from its
//     start: it cannot know what its earlier life acknowledged.
//   - A leader whose round r, begun at time s on its clock, a majority of
//     members confirmed holds a lease until s + leaseSpan: each member of
//     that majority acknowledged after s, so none of them votes for another
//     leader before the lease ends, as long as no member's clock runs a
//     third faster than the leader's; a new leader needs the vote of one of
//     them. Until then no other leader can have completed a write.
//   - A leader read that passes leaderread.go's first two conditions is
//     answered at once if the lease still holds once the answer is
//     computed: the answer reflects the state at an instant when no newer
//     leader existed. Otherwise it waits for its round, as without leases.
//
// The leader begins a round with every heartbeat, so under load or not its
// lease is renewed every heartbeat period while a majority answers.

// lease is a leader's lease: the first round begun and not yet confirmed
// (at most one is timed: a later one, confirmed first, extends the lease
// from this earlier start, which is safe) and the end of the lease.
type lease struct {
	round uint64 // 0: no round is timed
	begun int64
	until int64
}

// leaseSpan is how long a confirmed round's lease lasts from its start:
// three quarters of the promise, the margin for clocks running at
// different rates.
func (c *Core) leaseSpan() int64 { return int64(c.o.ElectionTimeoutMin) * 3 / 4 }

// timeRound notes that the latest round begins now, unless an earlier
// round is still waiting for its confirmation.
func (c *Core) timeRound() {
	if c.o.LeaseReads && c.lr.lease.round == 0 {
		c.lr.lease.round, c.lr.lease.begun = c.lr.round, c.o.Now()
	}
}

// confirmLease extends the lease when a majority has confirmed the timed
// round.
func (c *Core) confirmLease(confirmed uint64) {
	if l := &c.lr.lease; l.round != 0 && confirmed >= l.round {
		l.until = max(l.until, l.begun+c.leaseSpan())
		l.round = 0
	}
}

// leaseHolds reports whether the leader's lease holds now.
func (c *Core) leaseHolds() bool {
	return c.o.LeaseReads && c.o.Now() < c.lr.lease.until
}

// LeaseEnds is when this leader's lease ends, on its clock (0: it holds
// none).
func (c *Core) LeaseEnds() int64 { return c.lr.lease.until }

// LeaseLeft is how long this leader's lease still holds (0: it holds
// none, or leases are off).
func (c *Core) LeaseLeft() time.Duration {
	if !c.leaseHolds() {
		return 0
	}
	return time.Duration(c.lr.lease.until - c.o.Now())
}

// leaseHeartbeat begins a round with a heartbeat, which every follower
// receives and answers.
func (c *Core) leaseHeartbeat() {
	if c.o.LeaseReads {
		c.startRound()
	}
}

// promise notes that this replica acknowledges its leader now: it neither
// votes nor stands for ElectionTimeoutMin.
func (c *Core) promise() {
	if c.o.LeaseReads {
		c.el.promised = c.o.Now() + int64(c.o.ElectionTimeoutMin)
	}
}

// standAfterPromise puts off a candidacy that the promise holds back
// until the promise ends, plus a random zero to four heartbeat periods:
// the followers of a crashed leader promised until about the same moment,
// and standing all at once would split their votes. It is called when
// the election timer ran out within the promise; the timer then runs out
// again after it, so it is called once per promise.
func (c *Core) standAfterPromise() {
	hb := int64(c.o.HeartbeatInterval)
	c.lastHeard = c.el.promised - c.el.timeout + c.o.Rand.Int64N(4*hb)
}

// promising reports whether this replica's promise still binds it.
func (c *Core) promising() bool {
	return c.o.LeaseReads && !c.o.Mutation.LeaseWithoutPromise && c.o.Now() < c.el.promised
}

// leaseRead answers leader read reply at once when the lease holds.
func (c *Core) leaseRead(to wire.ClientID, reply *wire.SyncReply) bool {
	if !c.leaseHolds() {
		return false
	}
	c.out.toClient(to, reply)
	c.lr.counts.Lease++
	return true
}
