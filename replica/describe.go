package replica

import (
	"fmt"
	"time"
)

// What a replica reports about itself: a one-line description for
// diagnostics (the simulator prints it for a stalled run) and the sizes
// of its state (the last log line, status, metrics).

// Describe summarises the replica's state for diagnostics.
func (c *Core) Describe() string {
	s := fmt.Sprintf("%s b=%d leader=%d last=%d commit=%d applied=%d records=%d voted=%d view=%d@b%d reads=%d", c.role, c.ballot, c.leader,
		c.entries.last(), c.commitIndex, c.appliedIndex, len(c.wit.byCmd), c.el.votedFor, c.viewStart, c.viewBallot, len(c.reads))
	if !c.member {
		s += fmt.Sprintf(" learner (holding %d requests)", len(c.early))
	}
	if c.role == Leader {
		s += fmt.Sprintf(" recovering=%v match=%v sent=%v learners=%v", c.rec != nil, c.match, c.sent, c.learner)
		for _, d := range c.barredOrder {
			_, inLog := c.cmdIndex[d]
			s += fmt.Sprintf(" [waiting for %v: %d requests; in log %v, applied %v, witness record %v]", d, len(c.barred[d]), inLog, c.sessions.wasApplied(d), c.wit.byCmd[d] != nil)
		}
	}
	return s
}

// StateSize is what a replica holds, for operators and memory
// experiments: every item here stays bounded in a long run except Keys
// (the store) and EndedSessions (tombstones, docs/DECISIONS.md 23).
type StateSize struct {
	Keys, LiveSessions, EndedSessions, LogEntries, WitnessRecords int
	// Snapshots is how many snapshots this replica took, and
	// LongestSnapshot the longest any of them held the event loop (the
	// capture and the compaction, on the core's clock).
	Snapshots       int
	LongestSnapshot time.Duration
}

// Size reports what the replica holds now.
func (c *Core) Size() StateSize {
	live := c.sessions.live()
	return StateSize{
		Keys: c.store.Keys(), LiveSessions: live, EndedSessions: len(c.sessions) - live,
		LogEntries: int(c.entries.last() - c.entries.base), WitnessRecords: len(c.wit.byCmd),
		Snapshots: c.snapTaken, LongestSnapshot: c.snapLongest,
	}
}
