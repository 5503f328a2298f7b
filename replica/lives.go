package replica

import (
	"math"
	"slices"

	"swiftpaxos/wire"
)

// A replica that restarts without its state (in memory, or durable with
// an empty data directory) forgets the pre-votes it granted and the vote
// it cast, but the messages that carried them may still be counted by
// their candidate. Nothing at that replica keeps the new life from
// answering otherwise and helping a leader of an earlier ballot commit:
// the candidate would then win with a grant or a vote of a life that no
// longer exists, and lead without what was committed meanwhile
// (docs/DECISIONS.md 51).
//
// So every replica keeps, by replica, the highest incarnation it has heard
// of (lives): a later life of a replica has a higher incarnation
// (Options.Incarnation). It hears of one from the life's own Join, and from
// the lives that every JoinReply, PreVoteReply and RequestVoteReply
// carries. A candidate notes which life granted each pre-vote and vote,
// and counts only the grants of lives it has heard of no later one from.
// A restarted replica becomes a member only once a majority of the others
// answered its Join (answeredEnough), so they heard of its new life; any
// vote majority meets them, and a replica in both either voted before it
// answered (its answer then reports the ballot, and the new life waits
// for a leader of it: join.go) or votes after, and its vote tells the
// candidate of the new life, which then no longer counts the old one. A
// durable replica keeps its lives in its hard state and answers a Join
// once they are on disk, so that a restart from its disk forgets none
// (durable.go, docs/DECISIONS.md 52).

// maxIncarnation bounds incarnations: a wall clock in nanoseconds fits
// an int64 until the year 2262, and a forged number near 2^64 could
// otherwise wrap to 0 when a replica takes the next one (heardOfOwnLife).
const maxIncarnation = math.MaxInt64

// validIncarnation reports whether x may number a life.
func validIncarnation(x uint64) bool { return x >= 1 && x <= maxIncarnation }

// grants records, by replica, the incarnation of the life that granted a
// pre-vote or a vote (0: none).
type grants []uint64

// newGrants starts a count with this replica's own grant.
func (c *Core) newGrants() grants {
	g := make(grants, c.o.N)
	g[c.o.ID] = c.incarnation
	return g
}

// counted is how many grants in g come from the latest life of their
// replica that this one has heard of.
func (c *Core) counted(g grants) int {
	n := 0
	for p, life := range g {
		if life != 0 && (life >= c.lives[p] || c.o.Mutation.ElectionIgnoresLives) {
			n++
		}
	}
	return n
}

// heardOfLife notes that replica r has lived in incarnation life.
func (c *Core) heardOfLife(r wire.ReplicaID, life uint64) {
	if r == c.o.ID {
		c.heardOfOwnLife(life)
		return
	}
	c.setLife(r, max(c.lives[r], life))
}

// setLife sets replica r's entry in lives.
func (c *Core) setLife(r wire.ReplicaID, life uint64) {
	if c.lives[r] != life {
		c.lives[r], c.livesSent = life, nil
	}
}

// endedLife reports whether an Accept of ballot b comes from a life of
// replica r that has ended: b is 0 and this replica heard of a later life
// of r. A replica that lost its disk founds the cluster anew when every
// other replica answers its Join with ballot 0 and an empty log, and a
// member that answered so must not append, later, an entry the founding
// leader's earlier life sent before it crashed, and so come to vouch for a
// request that life answered (docs/DECISIONS.md 53). That life crashed,
// so nothing is lost by ignoring it; a later life of the initial leader
// leads ballot 0 again only when no member answered it (bootstrap), and
// with a number above the lives its answers named (heardOfOwnLife). In a
// later ballot a higher number need not be a later life (a clock set
// back), and a follower that ignored its live leader would never catch
// up. A life of 0 says nothing (an Accept built by a test).
func (c *Core) endedLife(r wire.ReplicaID, b wire.Ballot, life uint64) bool {
	return b == 0 && life != 0 && life < c.lives[r] && !c.o.Mutation.AcceptsFromEndedLives
}

// learnLives merges a peer's lives into this replica's. A message built by
// this code carries one entry per replica. One with none says nothing (a
// test's), unless it grants: a grant counts only with the life that
// granted it.
func (c *Core) learnLives(from wire.ReplicaID, ls wire.Lives, grant bool) error {
	if len(ls) == 0 && grant {
		return invalid("replica %d granted without its lives", from)
	}
	if len(ls) == 0 {
		return nil
	}
	if len(ls) != c.o.N || !validIncarnation(ls[from]) {
		return invalid("replica %d sent lives %v for %d replicas", from, ls, c.o.N)
	}
	for _, life := range ls {
		if life > maxIncarnation {
			return invalid("replica %d sent lives %v: incarnation above %d", from, ls, uint64(maxIncarnation))
		}
	}
	for p, life := range ls {
		c.heardOfLife(wire.ReplicaID(p), life)
	}
	return nil
}

// answersThisLife learns the lives a JoinReply carries and reports
// whether it answers a Join of this life under its current number. One
// that does not (a Join of an earlier number, before heardOfOwnLife, or of
// an earlier life) comes from a sender that has not heard of this one, so
// a non-member must not count it.
func (c *Core) answersThisLife(from wire.ReplicaID, m *wire.JoinReply) (bool, error) {
	if m.Incarnation > maxIncarnation {
		return false, invalid("JoinReply from replica %d in incarnation %d", from, m.Incarnation)
	}
	asked := c.incarnation
	c.heardOfLife(from, m.Incarnation)
	if err := c.learnLives(from, m.Lives, false); err != nil {
		return false, err
	}
	return c.incarnation == asked && (c.member || len(m.Lives) == 0 || m.Lives[c.o.ID] == c.incarnation), nil
}

// heardOfOwnLife handles a peer's word that this replica lived in
// incarnation life. Higher than its own, it means the clock that numbered
// this life was set back since an earlier life (or, outside the fault
// model, that a second process runs with this id): the replica takes a
// higher number, or every candidate that heard of the other would refuse
// its grants for good. That is safe, since a higher number only makes
// candidates count fewer grants. A non-member also forgets the answers it
// had and asks again, so that the majority it becomes a member with heard
// of this life (docs/DECISIONS.md 51); onJoinReply ignores the late
// answers to its earlier Joins.
func (c *Core) heardOfOwnLife(life uint64) {
	if life <= c.incarnation || c.incarnation == maxIncarnation {
		return
	}
	c.log.Warn("a peer knows a later life of this replica (was the clock set back, or is another process running with its id?): taking a later one",
		"incarnation", c.incarnation, "heard", life)
	c.outlive(life)
	// This process's own grants are no less its own under a new number.
	for _, g := range []grants{c.el.preVotes, c.el.votes} {
		if g != nil {
			g[c.o.ID] = c.incarnation
		}
	}
	if c.member {
		return
	}
	clear(c.jn.replies)
	clear(c.jn.heard)
	c.jn.askedAt, c.jn.marked = 0, false
}

// restoreLives takes back the lives a durable replica kept on disk (none
// if it kept none). Its own entry is its previous life's number, or a
// later one it took: a clock set back since then gave this life a number
// no higher, and it takes a higher one now, before anybody hears of it.
func (c *Core) restoreLives(ls []uint64) {
	for p, life := range ls {
		if wire.ReplicaID(p) != c.o.ID {
			c.setLife(wire.ReplicaID(p), max(c.lives[p], life))
		}
	}
	if len(ls) == 0 || ls[c.o.ID] < c.incarnation || c.incarnation == maxIncarnation {
		return
	}
	c.log.Warn("this replica's disk names a life no earlier than this one (was the clock set back?): taking a later one",
		"incarnation", c.incarnation, "on_disk", ls[c.o.ID])
	c.outlive(ls[c.o.ID])
}

// outlive takes an incarnation above life (at most the highest one).
func (c *Core) outlive(life uint64) {
	c.incarnation = min(life, maxIncarnation-1) + 1
	c.setLife(c.o.ID, c.incarnation)
}

// ourLives is a copy of lives for a message: messages are encoded by
// another goroutine.
func (c *Core) ourLives() wire.Lives { return slices.Clone(wire.Lives(c.lives)) }

// livesForReplies is lives for the leader's replies to strong requests:
// one copy, shared by every reply until lives change, since a reply per
// strong operation is encoded by another goroutine.
func (c *Core) livesForReplies() wire.Lives {
	if c.livesSent == nil {
		c.livesSent = c.ourLives()
	}
	return c.livesSent
}
