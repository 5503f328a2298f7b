package replica

import (
	"cmp"
	"math"
	"slices"
	"time"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// snapshot is the applied state at one slot (PROTOCOL.md 6.10): the store,
// frozen by copy on write, and the client table, copied. A replica takes
// one every SnapshotEvery applied entries and compacts its log behind it,
// keeping LogRetain entries for lagging peers; a leader sends it to a
// follower that needs a compacted slot.
type snapshot struct {
	lastSlot   kvs.Slot
	lastBallot wire.Ballot
	store      *kvs.Snapshot
	sessions   []wire.SessionState
}

// maybeSnapshot takes a snapshot when SnapshotEvery entries were applied
// since the last one, and compacts the log.
func (c *Core) maybeSnapshot() {
	if c.appliedIndex >= c.snap.lastSlot+kvs.Slot(c.o.SnapshotEvery) {
		c.takeSnapshot()
	}
}

// takeSnapshot snapshots the applied state and compacts the log behind it.
func (c *Core) takeSnapshot() {
	start := c.o.Now()
	defer func() {
		c.snapTaken++
		c.snapLongest = max(c.snapLongest, time.Duration(c.o.Now()-start))
	}()
	b, _ := c.entries.ballotAt(c.appliedIndex)
	c.snap = &snapshot{lastSlot: c.appliedIndex, lastBallot: b, store: c.store.Snapshot(), sessions: c.sessions.states()}
	c.persistSnapshot(c.snap, false)
	if retain := kvs.Slot(c.o.LogRetain); c.snap.lastSlot > retain {
		// Room for the entries applied until the next snapshot and an
		// unapplied tail then: a quarter as many, or today's tail if
		// longer (a tail that outgrew the room would copy the log).
		every := c.o.SnapshotEvery
		tail := int(c.entries.last() - c.appliedIndex)
		c.entries.compact(c.snap.lastSlot-retain, every+max(tail, every/4))
	}
}

// states copies the client table for a snapshot, sessions in client order.
func (t sessionTable) states() []wire.SessionState {
	out := make([]wire.SessionState, 0, len(t))
	for id, s := range t {
		st := wire.SessionState{Client: id, Floor: s.floor, WeakCommittedSeq: s.weakCommittedSeq, Ended: s.ended}
		for seq, a := range s.results {
			st.Results = append(st.Results, wire.SessionResult{Seq: seq, Slot: a.slot, Refused: a.refused, Result: a.result})
		}
		slices.SortFunc(st.Results, func(a, b wire.SessionResult) int { return cmp.Compare(a.Seq, b.Seq) })
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b wire.SessionState) int { return cmp.Compare(a.Client, b.Client) })
	return out
}

// restoreSessions rebuilds a client table from a snapshot's rows.
func restoreSessions(states []wire.SessionState) sessionTable {
	t := make(sessionTable, len(states))
	for _, st := range states {
		if st.Ended != 0 {
			t.end(st.Client, st.Ended)
			continue
		}
		s := &session{results: make(map[wire.Seq]applied, len(st.Results)), floor: st.Floor, weakCommittedSeq: st.WeakCommittedSeq}
		for _, r := range st.Results {
			s.results[r.Seq] = applied{slot: r.Slot, refused: r.Refused, result: r.Result}
		}
		t[st.Client] = s
	}
	return t
}

// snapshotChunkBytes bounds the client table and values of one
// InstallSnapshot, so that a transfer never holds a connection for long
// and replication to the other followers goes on between its chunks.
const snapshotChunkBytes = 64 << 10

// transfer is a leader's state transfer to one follower: the snapshot
// being sent and where it stands. One chunk is in flight at a time.
type transfer struct {
	snap   *snapshot
	chunk  uint32
	pos    wire.SnapshotCursor
	done   bool  // the last chunk sent was the last
	sentAt int64 // when the last chunk left
}

// sendSnapshot starts, or goes on with, the state transfer to follower p,
// which needs slots the leader compacted.
func (c *Core) sendSnapshot(p wire.ReplicaID) {
	x := c.xfer[p]
	if x == nil || x.snap != c.snap {
		x = &transfer{snap: c.snap}
		c.xfer[p] = x
	}
	m := &wire.InstallSnapshot{Ballot: c.ballot, Leader: c.o.ID, LastSlot: x.snap.lastSlot, LastBallot: x.snap.lastBallot,
		Chunk: x.chunk}
	x.pos = wire.FillChunk(m, x.snap.sessions, x.snap.store, x.pos, snapshotChunkBytes)
	x.done, x.sentAt = m.Done, c.o.Now()
	c.out.toReplica(p, m)
}

func (c *Core) onInstallSnapshotAck(from wire.ReplicaID, m *wire.InstallSnapshotAck) error {
	if m.Replica != from {
		return invalid("InstallSnapshotAck from replica %d names replica %d", from, m.Replica)
	}
	if m.Ballot > c.ballot {
		c.becomeFollower(m.Ballot, wire.NoReplica)
		return nil
	}
	x := c.xfer[from]
	if c.role != Leader || m.Ballot != c.ballot || x == nil || m.LastSlot != x.snap.lastSlot || m.Chunk != x.chunk {
		return nil
	}
	if x.done {
		// The follower installed it: replication goes on after it.
		delete(c.xfer, from)
		c.match[from] = max(c.match[from], m.LastSlot)
		c.sent[from] = max(c.match[from], m.LastSlot)
		c.advanceCommit()
		return nil
	}
	x.chunk++
	c.sendSnapshot(from)
	return nil
}

// installing is a follower's snapshot arriving in chunks.
type installing struct {
	lastSlot   kvs.Slot
	lastBallot wire.Ballot
	next       uint32
	store      *kvs.Store
	sessions   []wire.SessionState
}

func (c *Core) onInstallSnapshot(from wire.ReplicaID, m *wire.InstallSnapshot) error {
	if m.Leader != from {
		return invalid("InstallSnapshot from replica %d names leader %d", from, m.Leader)
	}
	if err := c.checkLeader(from, m.Ballot); err != nil {
		return err
	}
	if m.LastBallot > m.Ballot {
		return invalid("InstallSnapshot of ballot %d from replica %d ends in ballot %d", m.Ballot, from, m.LastBallot)
	}
	if m.Ballot < c.ballot {
		c.out.toReplica(from, &wire.InstallSnapshotAck{Ballot: c.ballot, Replica: c.o.ID, LastSlot: m.LastSlot, Chunk: m.Chunk})
		return nil
	}
	if m.Ballot > c.ballot || c.role != Follower {
		c.becomeFollower(m.Ballot, m.Leader)
	}
	c.leader = m.Leader
	c.heardLeader()
	ack := &wire.InstallSnapshotAck{Ballot: c.ballot, Replica: c.o.ID, LastSlot: m.LastSlot, Chunk: m.Chunk}
	if m.LastSlot <= c.commitIndex {
		c.inst = nil
		c.out.toReplica(from, ack) // already this far: the leader moves on
		return nil
	}
	switch {
	case m.Chunk == 0:
		c.inst = &installing{lastSlot: m.LastSlot, lastBallot: m.LastBallot, store: kvs.NewStore(), sessions: m.Sessions}
	case c.inst == nil || c.inst.lastSlot != m.LastSlot || c.inst.next != m.Chunk:
		return nil // a chunk of a transfer this replica is not in; the leader starts over
	default:
		c.inst.sessions = append(c.inst.sessions, m.Sessions...)
	}
	c.inst.store.Load(m.Items)
	c.inst.next++
	if m.Done {
		c.install(c.inst)
		c.inst = nil
	}
	c.out.toReplica(from, ack)
	return nil
}

// install replaces the replica's state with a snapshot from the leader:
// the snapshot's slots are committed (the leader took it from its applied
// state), so the store and client table become the snapshot's, the log
// restarts after it, and commit and applied indexes move to its last slot.
func (c *Core) install(in *installing) {
	in.store.SetLastApplied(in.lastSlot)
	c.store = in.store
	c.sessions = restoreSessions(in.sessions)
	// Entries after the snapshot that agree with it at its last slot stay:
	// this replica may have acknowledged them in this ballot, and the
	// leader counts them as held here (a transfer can start on a stale
	// failure hint while they are in flight).
	var suffix []wire.Entry
	if b, ok := c.entries.ballotAt(in.lastSlot); ok && b == in.lastBallot && c.entries.last() > in.lastSlot {
		suffix = slices.Clone(c.entries.slice(in.lastSlot+1, c.entries.last(), math.MaxInt))
	} else {
		c.matchedUpTo = 0
	}
	c.entries.reset(in.lastSlot, in.lastBallot)
	clear(c.cmdIndex)
	c.keys.reset()
	for _, e := range suffix {
		c.entries.append(e)
		c.cmdIndex[e.Cmd] = e.Slot
		c.keys.add(e.Slot, e.Command)
	}
	c.commitIndex, c.appliedIndex = in.lastSlot, in.lastSlot
	c.matchedUpTo = max(c.matchedUpTo, in.lastSlot)
	c.snap = &snapshot{lastSlot: in.lastSlot, lastBallot: in.lastBallot, store: c.store.Snapshot(), sessions: in.sessions}
	c.persistSnapshot(c.snap, true)
	// Records of commands the snapshot applied are decided.
	for id := range c.wit.byCmd {
		if c.sessions.wasApplied(id) {
			c.wit.remove(id)
		}
	}
	if c.o.Installed != nil {
		c.o.Installed(in.lastSlot)
	}
	c.releaseReads()
	c.checkMember()
}
