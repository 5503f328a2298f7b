package replica

import (
	"swiftpaxos/config/quorum"
	"swiftpaxos/wire"
)

// Check-quorum (docs/DECISIONS.md 56). A leader whose links from the
// others are broken one way (it sends, nothing of theirs arrives) keeps
// sending heartbeats: its followers hear it, refuse to elect another
// (leaderAlive, and with leases the promise), and nothing commits for as
// long as the fault lasts. So a leader that has heard nothing from a
// majority of members, itself included, for longer than
// ElectionTimeoutMax falls quiet: it sends the members nothing, as if
// every link from it were cut, and they elect a leader among themselves
// once their timers run out; it learns of the higher ballot, and steps
// down, when it hears from them again. It keeps its ballot and its role
// rather than stepping down, because the others may be unable to elect
// anyone: in-memory replicas that restarted while it was cut off are
// learners, and only a leader can make them members again
// (docs/DECISIONS.md 21). So it goes on talking to learners, which vote
// for nobody, and speaks again as soon as a majority of members, itself
// included, has been heard within ElectionTimeoutMax: any valid message
// counts. Learners do not count, since their acknowledgements commit
// nothing: a leader that hears only learners and a minority of members
// must let the others elect. Falling quiet is safe by construction: it is
// what the network does to a cut-off leader. A new cluster's leader
// waiting for a majority to found it (founding.go) is exempt.

// heard notes a valid message from replica p at this leader, which may
// end its quiet.
func (c *Core) heard(p wire.ReplicaID) {
	if c.role == Leader {
		c.heardFrom[p] = c.o.Now()
		if c.out.quiet {
			c.checkQuorum(c.o.Now())
		}
	}
}

// checkQuorum makes this leader quiet when a majority of replicas,
// counting itself, has been silent for longer than ElectionTimeoutMax and
// it has led that long, and speaks again otherwise.
func (c *Core) checkQuorum(now int64) {
	quiet := c.role == Leader && c.founded == nil && !c.o.Mutation.NoCheckQuorum && !c.heardMajority(now)
	if quiet == c.out.quiet {
		return
	}
	c.out.quiet = quiet
	if quiet {
		c.quietFalls++
		c.log.Warn("leader falls quiet: no majority heard from", "within_ms", c.o.ElectionTimeoutMax.Milliseconds())
	} else {
		c.log.Info("leader speaks again: a majority heard from")
	}
}

// heardMajority reports whether this leader led for at most
// ElectionTimeoutMax, or heard from a majority of members, itself
// included, within it.
func (c *Core) heardMajority(now int64) bool {
	horizon := now - int64(c.o.ElectionTimeoutMax)
	if c.leaderSince >= horizon {
		return true
	}
	heard := 1
	for p, t := range c.heardFrom {
		if wire.ReplicaID(p) != c.o.ID && !c.learner[p] && t >= horizon {
			heard++
		}
	}
	return heard >= quorum.Majority(c.o.N)
}

// QuietFalls counts the times this leader fell quiet.
func (c *Core) QuietFalls() int { return c.quietFalls }

// Quiet reports whether this leader is quiet.
func (c *Core) Quiet() bool { return c.out.quiet }
