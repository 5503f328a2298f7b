package replica

import (
	"slices"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/storage"
	"swiftpaxos/wire"
)

// In durable mode (Options.Durable) the core writes down, between two
// calls to Ready, every change to what it must not forget across a crash:
// its hard state, the log entries it wrote, the witness records it kept
// and removed, and its snapshots. Ready hands them out as one
// storage.Batch, and holds back in AfterSync every message that
// acknowledges state: the driver sends those once the batch, and every
// earlier one, is on disk, and then calls Synced (the etcd-raft way). A
// leader counts its own copy of an entry toward a commit only once it is
// synced. In memory mode none of this exists: the journal is nil and
// every hook is one nil check.

// journal is what changed since the last batch.
type journal struct {
	seq  uint64            // the last batch handed out
	hard storage.HardState // the hard state as of that batch
	// memberSeq is the batch that first wrote down the membership.
	memberSeq uint64

	// from is the slot of ents[0]: the run of entries written since the
	// last batch; truncated says the log was cut or reset meanwhile.
	from      kvs.Slot
	ents      []wire.Entry
	truncated bool
	records   []storage.RecordOp
	snap      *storage.Snapshot
	installed bool

	// synced is the last slot of the log known to be on disk; pending
	// lists the batches not yet synced with the last slot each covers;
	// done is the last batch on disk.
	synced  kvs.Slot
	pending []pendingBatch
	done    uint64

	// after is the AfterSync buffer, handed out in turn with spare.
	after, spare []Envelope
}

type pendingBatch struct {
	seq  uint64
	last kvs.Slot
}

// logged notes e, just written at its slot.
func (j *journal) logged(e wire.Entry) {
	switch n := kvs.Slot(len(j.ents)); {
	case n == 0 || e.Slot < j.from:
		j.from, j.ents = e.Slot, j.ents[:0]
	case e.Slot < j.from+n:
		j.ents = j.ents[:e.Slot-j.from]
	}
	j.ents = append(j.ents, e)
}

// cut notes that the log now ends at slot end: entries past it are gone
// from memory, and must go from disk, and no longer count as synced.
func (j *journal) cut(end kvs.Slot) {
	j.truncated = true
	if kvs.Slot(len(j.ents)) > 0 && end < j.from+kvs.Slot(len(j.ents)) {
		if end < j.from {
			j.ents = j.ents[:0]
		} else {
			j.ents = j.ents[:end-j.from+1]
		}
	}
	j.synced = min(j.synced, end)
	for i := range j.pending {
		j.pending[i].last = min(j.pending[i].last, end)
	}
}

// kept notes a record kept, and returns the batch that will write it.
func (j *journal) kept(r wire.Record) uint64 {
	j.records = append(j.records, storage.RecordOp{Record: r})
	return j.seq + 1
}

func (j *journal) dropped(id wire.CmdID) {
	j.records = append(j.records, storage.RecordOp{Remove: true, Record: wire.Record{Cmd: id}})
}

// hardState is what the core must not forget about elections. Its lives
// are the core's own: a batch takes a copy.
func (c *Core) hardState() storage.HardState {
	return storage.HardState{Ballot: c.ballot, Vote: c.el.votedFor, Member: c.member, PreGranted: c.el.preMax, Lives: c.lives}
}

// durableReady is Ready in durable mode: the batch of changes, and the
// messages split into those that may leave at once and those that wait
// for the batch.
func (c *Core) durableReady() Ready {
	j := c.dur
	b := &storage.Batch{Entries: j.ents, Truncated: j.truncated, Records: j.records, Snapshot: j.snap, Installed: j.installed}
	if h := c.hardState(); !h.Equal(j.hard) {
		h.Lives = slices.Clone(h.Lives)
		j.hard = h
		b.Hard = &h
		if h.Member && j.memberSeq == 0 {
			j.memberSeq = j.seq + 1
		}
	}
	if b.Truncated {
		b.LogEnd = c.entries.last()
	}
	rd := Ready{SyncSeq: j.seq}
	if !b.Empty() {
		j.seq++
		b.Seq = j.seq
		rd.Persist, rd.SyncSeq = b, j.seq
		j.pending = append(j.pending, pendingBatch{seq: j.seq, last: c.entries.last()})
		j.ents, j.truncated, j.records, j.snap, j.installed = nil, false, nil, nil, false
	}
	all := c.out.take()
	msgs := all[:0]
	clear(j.spare)
	after := j.spare[:0]
	for _, e := range all {
		if !e.unsynced && c.holdsBack(e.Msg) {
			after = append(after, e)
		} else {
			msgs = append(msgs, e)
		}
	}
	j.spare, j.after = j.after, after
	rd.Messages, rd.AfterSync = msgs, after
	return rd
}

// holdsBack reports whether m acknowledges state that must be on disk
// before the receiver may rely on it: a vote or a ballot adopted
// (RequestVote, RequestVoteReply, CollectReply), a pre-vote granted
// (PreVoteReply), a new life heard of (JoinReply: the joiner becomes a
// member on the strength of answers from replicas that will tell
// candidates of it, docs/DECISIONS.md 52), log entries (AcceptAck,
// InstallSnapshotAck, and the leader's LeaderReply, whose fast path
// counts the leader's own entry), witness records (RecordAck, and
// CURP-HO's CausalReply for the bound replica's weak-write record). What
// may leave at once acknowledges nothing: the leader's replication
// (a leader counts its own copy only once synced), committed outcomes
// (committed means on disk at a majority), queries and redirects. A
// message of a type not listed waits, to be safe.
func (c *Core) holdsBack(m wire.Message) bool {
	switch m := m.(type) {
	case *wire.Accept, *wire.Commit, *wire.InstallSnapshot, *wire.Collect, *wire.NewView,
		*wire.PreVote, *wire.Join, *wire.WitnessSync,
		*wire.SyncReply, *wire.WeakCommit, *wire.WeakReply, *wire.WeakReadReply,
		*wire.NotLeader, *wire.EndSession, *wire.StatusReply:
		return false
	case *wire.PreVoteReply:
		// A grant is remembered in the hard state (docs/DECISIONS.md 50).
		return m.Granted
	case *wire.JoinReply:
		return !c.o.Mutation.RestoreForgetsLives
	case *wire.RecordAck:
		return !c.o.Mutation.EarlyRecordAck
	case *wire.AcceptAck:
		return !c.o.Mutation.EarlyAcceptAck
	}
	return true
}

// readAckUnsynced reports whether the acknowledgement of strong request p
// (the leader's LeaderReply or a witness's RecordAck, whose read
// dependency is dep) may leave before the batch it came with is on disk:
// p is a read that vouches for nothing not yet on disk
// (docs/DECISIONS.md 30). A read changes nothing, and its result comes
// from committed state (the leader's Ok, PROTOCOL.md 3.5), which is on
// disk at a majority; so neither its record nor its log entry needs to
// survive a crash. A CURP-HO read vouches for the weak write its value
// came from (ReadDep ONE) with the rest of that write's causal chain
// (recovery replays a weak write only with its chain), and for the
// session's weak writes this replica keeps, which the client stops
// re-sending once the read completes on the fast path (PROTOCOL.md 5.6,
// 5.8 conditions 2 and 3): it waits unless their records are on disk.
// MULTI never counts on a fast path; it waits, to be simple.
func (c *Core) readAckUnsynced(p *wire.Propose, dep wire.ReadDep) bool {
	if c.dur == nil || !p.Command.IsRead() {
		return false
	}
	switch dep.Kind {
	case wire.DepMulti:
		return false
	case wire.DepOne:
		if !c.RecordSynced(dep.Cmd) || c.policy.VouchesUnsynced(c, dep.Cmd.Client) {
			return false
		}
	}
	return !c.policy.VouchesUnsynced(c, p.Cmd.Client)
}

// RecordSynced reports whether the replica keeps a record of id that is
// on disk (durable mode; false in memory mode or for a read's record).
func (c *Core) RecordSynced(id wire.CmdID) bool {
	r, ok := c.wit.get(id)
	return ok && c.dur != nil && !r.Command.IsRead() && r.batch <= c.dur.done
}

// Synced tells a durable core that every batch up to seq is on disk: a
// leader may now count its own copy of the entries they hold.
func (c *Core) Synced(seq uint64) {
	j := c.dur
	if j == nil {
		return
	}
	n := 0
	for n < len(j.pending) && j.pending[n].seq <= seq {
		j.synced = max(j.synced, j.pending[n].last)
		n++
	}
	j.pending = append(j.pending[:0], j.pending[n:]...)
	j.done = max(j.done, seq)
	if j.memberSeq > 0 && seq >= j.memberSeq {
		c.foundingAck(c.o.ID)
	}
	if c.role == Leader && c.match[c.o.ID] < c.selfMatch() {
		c.match[c.o.ID] = c.selfMatch()
		c.advanceCommit()
	}
}

// selfMatch is the last slot of the leader's own log that counts toward a
// commit: all of it in memory mode, what is synced in durable mode.
func (c *Core) selfMatch() kvs.Slot {
	if c.dur == nil || c.o.Mutation.UnsyncedSelfCount {
		return c.entries.last()
	}
	return c.syncedLast()
}

// syncedLast is the last slot of the log that is on disk (durable mode).
func (c *Core) syncedLast() kvs.Slot { return min(c.dur.synced, c.entries.last()) }

// persistSnapshot notes a snapshot taken here, or installed from the
// leader (which replaced the log up to its slot).
func (c *Core) persistSnapshot(sn *snapshot, installed bool) {
	if c.dur == nil {
		return
	}
	c.dur.snap = &storage.Snapshot{LastSlot: sn.lastSlot, LastBallot: sn.lastBallot, Store: sn.store, Sessions: sn.sessions}
	c.dur.installed = c.dur.installed || installed
}
