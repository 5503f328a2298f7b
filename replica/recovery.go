package replica

import (
	"cmp"
	"slices"

	"swiftpaxos/config/quorum"
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// recovery is a new leader's state between its election and its view start
// (PROTOCOL.md 6.3): the witness records collected so far and the client
// requests buffered meanwhile.
type recovery struct {
	replies  []*wire.CollectReply // by replica
	buffered []bufferedRequest
}

type bufferedRequest struct {
	from wire.ClientID
	msg  wire.Message
}

// becomeLeader starts the recovery of a ballot won by election.
func (c *Core) becomeLeader() {
	c.role = Leader
	c.leader = c.o.ID
	c.leaderSince = c.o.Now()
	c.dropLeaderReads()
	clear(c.xfer)
	clear(c.out.learner)
	c.log.Info("elected leader", "ballot", uint32(c.ballot), "last", uint64(c.entries.last()))
	last := c.entries.last()
	for p := range c.o.N {
		c.match[p], c.sent[p] = 0, last
	}
	c.match[c.o.ID] = c.selfMatch()
	c.commitSent = c.commitIndex
	c.viewCommitted = false
	c.rec = &recovery{replies: make([]*wire.CollectReply, c.o.N)}
	c.lastHeartbeat = c.o.Now()
	c.heartbeat()
	c.rec.replies[c.o.ID] = c.collectReply()
	c.sendCollect()
	c.maybeFinishRecovery()
}

// sendCollect asks every replica that has not answered for its records.
// The heartbeat timer repeats it while recovery lasts, since a Collect or
// its reply can be lost with a connection.
func (c *Core) sendCollect() {
	for p := range c.o.N {
		if c.rec.replies[p] == nil {
			c.out.toReplica(wire.ReplicaID(p), &wire.Collect{Ballot: c.ballot})
		}
	}
}

// collectReply lists this replica's witness records of older ballots.
func (c *Core) collectReply() *wire.CollectReply {
	m := &wire.CollectReply{Ballot: c.ballot, Replica: c.o.ID, LastSlot: c.entries.last(), LastBallot: c.entries.lastBallot()}
	for _, r := range c.wit.byCmd {
		if r.Ballot < c.ballot {
			m.Records = append(m.Records, r.Record)
		}
	}
	slices.SortFunc(m.Records, func(a, b wire.Record) int { return cmp.Compare(a.Arrival, b.Arrival) })
	return m
}

func (c *Core) onCollect(from wire.ReplicaID, m *wire.Collect) error {
	if err := c.checkLeader(from, m.Ballot); err != nil {
		return err
	}
	if m.Ballot < c.ballot {
		return nil
	}
	if m.Ballot > c.ballot || c.role != Follower {
		c.becomeFollower(m.Ballot, from)
	}
	c.leader = from
	c.heardLeader()
	if c.member {
		// A learner's records are no testimony (PROTOCOL.md 6.10).
		c.out.toReplica(from, c.collectReply())
	}
	return nil
}

func (c *Core) onCollectReply(from wire.ReplicaID, m *wire.CollectReply) error {
	if m.Replica != from {
		return invalid("CollectReply from replica %d names replica %d", from, m.Replica)
	}
	if c.rec == nil || m.Ballot != c.ballot {
		return nil
	}
	c.rec.replies[m.Replica] = m
	c.maybeFinishRecovery()
	return nil
}

// maybeFinishRecovery replays the selected witness records once a majority
// answered, appends the view's no-op and starts serving (PROTOCOL.md
// 6.3 steps 3-5).
func (c *Core) maybeFinishRecovery() {
	n := 0
	for _, r := range c.rec.replies {
		if r != nil {
			n++
		}
	}
	if n < quorum.Majority(c.o.N) {
		return
	}
	c.noteLogged()
	replay := c.selectReplays()
	for _, r := range replay {
		if c.sessionClosed(r.Cmd.Client) {
			// The session ended before: the refusal is the outcome its
			// client and the witnesses learn (docs/DECISIONS.md 23).
			c.appendRefusal(r.Cmd, r.Level, r.CausalDep)
			continue
		}
		c.appendEntry(wire.Entry{Ballot: c.ballot, Cmd: r.Cmd, Command: r.Command, Level: r.Level, CausalDep: r.CausalDep})
	}
	c.appendEntry(wire.Entry{Ballot: c.ballot, Command: kvs.Command{Op: kvs.OpNoop}, Level: wire.Strong})
	c.learnViewStart(c.ballot, c.entries.last()+1)
	c.log.Info("view started", "ballot", uint32(c.ballot), "replayed", len(replay), "view_start", uint64(c.viewStart))
	buffered := c.rec.buffered
	c.rec = nil
	c.announceView()
	for _, b := range buffered {
		c.stepClient(b.from, b.msg)
	}
}

// selectReplays applies the replay rule of PROTOCOL.md 6.4: a strong write
// kept as accepted in one ballot by at least R of the majority, a weak
// write kept by at least R (any ballot), and, as best effort, a weak write
// whose causal chain is complete. Commands already in the log or applied
// are skipped. The order is replayOrder's.
func (c *Core) selectReplays() []wire.Record {
	if c.o.Mutation.NoWitnessReplay {
		return nil
	}
	threshold := quorum.Recovery(c.o.N)
	type strongKey struct {
		id wire.CmdID
		b  wire.Ballot
	}
	strong := make(map[strongKey]int)
	weak := make(map[wire.CmdID]int)
	recs := make(map[wire.CmdID]wire.Record)
	for _, rep := range c.rec.replies {
		if rep == nil {
			continue
		}
		for _, r := range rep.Records {
			switch {
			case r.Level == wire.Weak:
				weak[r.Cmd]++
			case r.Accepted && r.Command.IsWrite():
				strong[strongKey{r.Cmd, r.Ballot}]++
			default:
				continue
			}
			recs[r.Cmd] = r
		}
	}
	chosen := make(map[wire.CmdID]bool)
	for k, n := range strong {
		if n >= threshold {
			chosen[k.id] = true
		}
	}
	var weakIDs []wire.CmdID
	for id, n := range weak {
		if n >= threshold {
			chosen[id] = true
		} else {
			weakIDs = append(weakIDs, id)
		}
	}
	for _, id := range weakIDs {
		chosen[id] = true // best effort, if its chain holds (below)
	}
	// Keep, in session order, only records whose predecessor (a weak
	// write's CausalDep, a strong write's WeakDep: the barrier) is logged
	// or kept. A lost connection can leave a witness holding a write but
	// not its predecessor; no completed operation relies on such a record,
	// because a fast path needs every earlier weak write of its session
	// vouched for by a super-quorum (PROTOCOL.md 5.8 condition 2).
	ids := make([]wire.CmdID, 0, len(chosen))
	for id := range chosen {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, cmpCmdID)
	kept := make(map[wire.CmdID]bool, len(ids))
	out := make([]wire.Record, 0, len(ids))
	for _, id := range ids {
		dep := wire.CmdID{Client: id.Client, Seq: recs[id].CausalDep}
		if dep.Seq > 0 && (!c.HasSlot(dep) || c.refused(dep)) && !kept[dep] {
			// A refused predecessor is as missing as an absent one: the
			// chain never jumps its gap (docs/DECISIONS.md 15).
			continue
		}
		kept[id] = true
		if !c.HasSlot(id) {
			out = append(out, recs[id])
		}
	}
	return c.replayOrder(out)
}

// replayOrder orders the replayed records as the witnesses received them
// where they agree (PROTOCOL.md 6.5, last paragraph): a record goes before
// another if most of the collected replies that hold both received it
// first, ties by (ClientId, Seq); one session's records always keep their
// Seq order. Replayed commands commute (6.4), so any order is correct;
// this one keeps strong writes in real-time order, which is what a reader
// of the log would expect, at no cost on the normal path.
func (c *Core) replayOrder(recs []wire.Record) []wire.Record {
	if len(recs) < 2 {
		return recs
	}
	rank := make(map[wire.CmdID]int, len(recs))
	for i, r := range recs {
		rank[r.Cmd] = i
	}
	// pos[k][i] is where reply k received recs[i] (its Arrival order), -1
	// if it does not hold it.
	var pos [][]int
	for _, rep := range c.rec.replies {
		if rep == nil {
			continue
		}
		p := make([]int, len(recs))
		for i := range p {
			p[i] = -1
		}
		for j, r := range rep.Records {
			if i, ok := rank[r.Cmd]; ok {
				p[i] = j
			}
		}
		pos = append(pos, p)
	}
	order := make([]int, len(recs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		x, y := recs[a].Cmd, recs[b].Cmd
		if x.Client == y.Client {
			return cmp.Compare(x.Seq, y.Seq)
		}
		first, second := 0, 0
		for _, p := range pos {
			if p[a] >= 0 && p[b] >= 0 {
				if p[a] < p[b] {
					first++
				} else {
					second++
				}
			}
		}
		if first != second {
			return cmp.Compare(second, first)
		}
		return cmpCmdID(x, y)
	})
	// Disagreeing witnesses can make the pairwise order cyclic; one
	// session's records then take the places its records got, in Seq order.
	bySession := make(map[wire.ClientID][]int)
	for _, i := range order {
		bySession[recs[i].Cmd.Client] = append(bySession[recs[i].Cmd.Client], i)
	}
	next := make(map[wire.ClientID]int, len(bySession))
	for _, l := range bySession {
		slices.SortFunc(l, func(a, b int) int { return cmp.Compare(recs[a].Cmd.Seq, recs[b].Cmd.Seq) })
	}
	out := make([]wire.Record, len(recs))
	for k, i := range order {
		cl := recs[i].Cmd.Client
		out[k] = recs[bySession[cl][next[cl]]]
		next[cl]++
	}
	return out
}

func cmpCmdID(a, b wire.CmdID) int {
	if a.Client != b.Client {
		return cmp.Compare(a.Client, b.Client)
	}
	return cmp.Compare(a.Seq, b.Seq)
}

// checkViewCommitted announces, once the view's no-op is committed, that
// witness records of older ballots may go (PROTOCOL.md 6.3 step 6).
func (c *Core) checkViewCommitted() {
	if c.role != Leader || c.rec != nil || c.viewCommitted || c.commitIndex < c.viewStart-1 {
		return
	}
	c.viewCommitted = true
	c.wit.removeOlderThan(c.ballot)
	c.announceView()
}

// view is this leader's NewView: its ballot, its view start, and whether
// that start is committed.
func (c *Core) view() *wire.NewView {
	return &wire.NewView{Ballot: c.ballot, Leader: c.o.ID, ViewStart: c.viewStart, Committed: c.viewCommitted}
}

// announceView sends a NewView to every replica and to every session this
// replica knows: a session re-sends its operations at once instead of
// waiting for its retry timer (PROTOCOL.md 6.6), and learns when the view
// start is committed.
func (c *Core) announceView() {
	nv := c.view()
	for p := range c.o.N {
		if wire.ReplicaID(p) != c.o.ID {
			c.out.toReplica(wire.ReplicaID(p), nv)
		}
	}
	clients := make([]wire.ClientID, 0, len(c.sessions))
	for id, s := range c.sessions {
		if s.ended != 0 {
			continue
		}
		clients = append(clients, id)
	}
	slices.Sort(clients)
	for _, id := range clients {
		c.out.toClient(id, nv)
	}
}

// SessionAttached tells the core that session id attached a connection to
// this replica. A leader whose view has started tells it the view at once:
// a session that attached after the view's announcement (one whose
// connection broke, or, after a whole-cluster restart, one that redialled
// while the replicas elected a leader) would otherwise learn of the view
// only from its retry timer (PROTOCOL.md 6.6). A session that knows the
// view re-sends nothing; an ended one, like announceView's, is not told.
func (c *Core) SessionAttached(id wire.ClientID) {
	if c.role != Leader || c.rec != nil || c.sessions.endedAt(id) != 0 {
		return
	}
	c.out.toClient(id, c.view())
}

func (c *Core) onNewView(from wire.ReplicaID, m *wire.NewView) error {
	if m.Leader != from {
		return invalid("NewView from replica %d names leader %d", from, m.Leader)
	}
	if err := c.checkLeader(from, m.Ballot); err != nil {
		return err
	}
	if m.Ballot < c.ballot {
		return nil
	}
	if m.Ballot > c.ballot || c.role != Follower {
		c.becomeFollower(m.Ballot, m.Leader)
	}
	c.leader = m.Leader
	c.heardLeader()
	c.learnViewStart(m.Ballot, m.ViewStart)
	if m.Committed {
		c.wit.removeOlderThan(m.Ballot)
	}
	return nil
}
