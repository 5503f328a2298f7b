package server

import (
	"runtime"
	"sync/atomic"
	"time"

	"swiftpaxos/kvs"
	"swiftpaxos/replica"
	"swiftpaxos/wire"
)

// loopState is what the event loop publishes for the metrics endpoint:
// the core is the loop's alone, so a scrape reads this copy, taken on a
// tick (at most tickEvery old), never the core.
type loopState struct {
	role                                   replica.Role
	member                                 bool
	ballot                                 wire.Ballot
	commit, applied, last, snapshot        kvs.Slot
	logEntries, sessions, records, clients int
	clientQueued                           int
	// leaseLeft is how long a leader's lease still holds; readsLease,
	// readsRound and readsProposed are replica.LeaderReadCounts.
	leaseLeft                             time.Duration
	readsLease, readsRound, readsProposed uint64
	// quiet: a leader that heard from no majority (replica.Core.Quiet).
	quiet bool
}

const stateWords = 17

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func (st *loopState) words() [stateWords]uint64 {
	return [stateWords]uint64{uint64(st.role), b2u(st.member), uint64(st.ballot),
		uint64(st.commit), uint64(st.applied), uint64(st.last), uint64(st.snapshot),
		uint64(st.logEntries), uint64(st.sessions), uint64(st.records), uint64(st.clients), uint64(st.clientQueued),
		uint64(st.leaseLeft), st.readsLease, st.readsRound, st.readsProposed, b2u(st.quiet)}
}

func loopStateOf(w [stateWords]uint64) loopState {
	return loopState{role: replica.Role(w[0]), member: w[1] == 1, ballot: wire.Ballot(w[2]),
		commit: kvs.Slot(w[3]), applied: kvs.Slot(w[4]), last: kvs.Slot(w[5]), snapshot: kvs.Slot(w[6]),
		logEntries: int(w[7]), sessions: int(w[8]), records: int(w[9]), clients: int(w[10]), clientQueued: int(w[11]),
		leaseLeft: time.Duration(w[12]), readsLease: w[13], readsRound: w[14], readsProposed: w[15], quiet: w[16] == 1}
}

// stateCell holds the last loopState the loop published. The loop
// publishes on every tick, so publishing must neither allocate nor wait
// for a scrape: the loop is the only writer and brackets its stores with
// a sequence number, odd while it writes; a reader that saw the number
// move (or odd) reads again. Every word is an atomic, so a reader racing
// the writer sees old or new words, and the sequence tells it which
// copy it got.
type stateCell struct {
	seq   atomic.Uint64
	words [stateWords]atomic.Uint64
}

// store publishes st; only the loop calls it.
func (c *stateCell) store(st *loopState) {
	w := st.words()
	c.seq.Add(1)
	for i := range w {
		c.words[i].Store(w[i])
	}
	c.seq.Add(1)
}

// load returns the last complete publish, from any goroutine.
func (c *stateCell) load() loopState {
	for {
		if seq := c.seq.Load(); seq&1 == 0 {
			var w [stateWords]uint64
			for i := range w {
				w[i] = c.words[i].Load()
			}
			if c.seq.Load() == seq {
				return loopStateOf(w)
			}
		}
		// The loop is between its two increments, a dozen stores
		// apart: let it finish.
		runtime.Gosched()
	}
}
