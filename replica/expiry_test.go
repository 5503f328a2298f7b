package replica

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

func strongPut(client wire.ClientID, seq wire.Seq, ki int) *wire.Propose {
	key := key(ki)
	return &wire.Propose{Cmd: wire.CmdID{Client: client, Seq: seq}, Command: kvs.Command{Op: kvs.OpPut, Key: key, Value: kvs.Value("v")}}
}

// endReplies returns the EndSession messages among ms.
func endReplies(ms []wire.Message) []*wire.EndSession {
	var out []*wire.EndSession
	for _, m := range ms {
		if e, ok := m.(*wire.EndSession); ok {
			out = append(out, e)
		}
	}
	return out
}

// TestSessionEndReleasesRow: a client that closes its session cleanly
// (EndSession) has its row released through the log; a late copy of a
// command applied before the end is answered with EndSession and never
// executes a second time (PROTOCOL.md 6.10, docs/DECISIONS.md 23).
func TestSessionEndReleasesRow(t *testing.T) {
	c := newTestCoreWith(t, 0, 3, BasePolicy{})
	const client = 7
	put := strongPut(client, 1, 5)
	c.StepClient(client, put)
	commitAll(c)
	ver := c.store.Get(key(5)).Version
	require.Equal(t, kvs.Slot(1), ver)
	require.NotNil(t, c.sessions.peek(client).results)

	c.StepClient(3, &wire.EndSession{Client: client})
	require.Equal(t, kvs.Slot(1), c.LastSlot(), "a client cannot end another client's session")
	c.StepClient(client, &wire.EndSession{Client: client})
	c.StepClient(client, &wire.EndSession{Client: client})
	require.Equal(t, kvs.Slot(2), c.LastSlot(), "one end entry")
	commitAll(c)
	require.Equal(t, kvs.Slot(2), c.sessions.endedAt(client))
	require.Nil(t, c.sessions.peek(client).results, "the row is released")
	require.Equal(t, 1, c.sessions.live(), "only client 3's row is left")

	c.out.take()
	c.StepClient(client, put)
	require.Len(t, endReplies(c.out.take()), 1, "the late copy is told the session ended")
	require.Equal(t, kvs.Slot(2), c.LastSlot(), "and is not appended")
	c.StepClient(client, &wire.Sync{Cmd: put.Cmd})
	require.Len(t, endReplies(c.out.take()), 1)

	// A follower that applies the end refuses the session's requests too.
	f := newTestCoreWith(t, 1, 3, BasePolicy{})
	f.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, PrevSlot: 0, Entries: []wire.Entry{*c.entries.at(1), *c.entries.at(2)}, LeaderCommit: 2})
	require.Equal(t, kvs.Slot(2), f.AppliedIndex())
	require.Equal(t, kvs.Slot(2), f.sessions.endedAt(client))
	f.StepClient(client, strongPut(client, 2, 6))
	require.Len(t, endReplies(f.out.take()), 1)
	require.Empty(t, f.wit.byCmd, "no witness record for an ended session")
}

// TestCommandAfterEndNeverExecutes: a command of the session that reaches
// the log after its end (a leader that did not know of the end appended
// it) is skipped at apply, at every replica alike.
func TestCommandAfterEndNeverExecutes(t *testing.T) {
	c := newTestCoreWith(t, 0, 3, BasePolicy{})
	const client = 7
	c.StepClient(client, strongPut(client, 1, 5))
	c.endSession(client)
	c.appendStrong(client, strongPut(client, 2, 6))
	commitAll(c)
	require.Equal(t, kvs.Slot(3), c.AppliedIndex())
	ver := c.store.Get(key(6)).Version
	require.Zero(t, ver, "the command after the end never executes")
	ver = c.store.Get(key(5)).Version
	require.Equal(t, kvs.Slot(1), ver, "the one before it did")
	require.NotEmpty(t, endReplies(c.out.take()), "the leader tells the client")
}

// TestIdleSessionsExpire: the leader ends sessions it has not heard from
// for SessionIdle, counting from when it became leader, through the log.
func TestIdleSessionsExpire(t *testing.T) {
	c := newTestCoreWith(t, 0, 3, BasePolicy{})
	idle := int64(c.o.SessionIdle)
	c.StepClient(7, strongPut(7, 1, 5))
	c.StepClient(8, strongPut(8, 1, 6))
	commitAll(c)
	c.now = idle / 2
	c.StepClient(8, strongPut(8, 2, 6))
	// A follower answers in the meantime, as its heartbeats' AcceptAcks
	// would: a leader that hears nobody falls quiet (checkquorum.go).
	c.now = idle
	commitAll(c)
	c.Tick()
	require.Equal(t, kvs.Slot(4), c.LastSlot(), "session 7 idle for SessionIdle: one end entry")
	require.True(t, c.entries.at(4).IsSessionEnd())
	require.Equal(t, wire.ClientID(7), c.entries.at(4).Cmd.Client)
	c.now = idle + idle/16
	commitAll(c)
	c.Tick()
	require.Equal(t, kvs.Slot(4), c.LastSlot(), "no second scan before SessionIdle/8")
	c.now = idle + idle/2
	commitAll(c)
	c.Tick()
	require.Equal(t, kvs.Slot(5), c.LastSlot(), "session 8 expires in turn")
	commitAll(c)
	require.Zero(t, c.sessions.live())
}

// TestEndedSessionRecordsAreRefused: a witness record of a session that
// ended is not dropped with the row (PROTOCOL.md 3.4 rule 6): the leader
// decides it as a refusal, and every witness drops it when it applies
// that refusal.
func TestEndedSessionRecordsAreRefused(t *testing.T) {
	c := newTestCoreWith(t, 0, 3, BasePolicy{})
	const client = 7
	rec := weakRecord(client, 4, 0, 0)
	c.wit.add(rec, c.now)
	c.endSession(client)
	commitAll(c)
	require.NotNil(t, c.wit.byCmd[rec.Cmd], "the row's end does not drop the record")
	c.decide([]wire.Record{rec})
	_, _, refused := c.Outcome(rec.Cmd)
	require.True(t, refused, "the leader refuses it")
	commitAll(c)
	require.Nil(t, c.wit.byCmd[rec.Cmd], "applying the refusal drops it")
	ver := c.store.Get(key(4)).Version
	require.Zero(t, ver)
}

// TestSnapshotKeepsEndedSessions: an installed snapshot carries the ended
// sessions, so a replica that caught up by state transfer refuses their
// requests too.
func TestSnapshotKeepsEndedSessions(t *testing.T) {
	tab := make(sessionTable)
	tab.get(3).floor = 2
	tab.end(7, 9)
	got := restoreSessions(tab.states())
	require.Equal(t, kvs.Slot(9), got.endedAt(7))
	require.Equal(t, wire.Seq(2), got.peek(3).floor)
	require.Equal(t, 1, got.live())
}

// TestNewLeaderRefusesRecordsOfAnEndingSession: a leader that takes over
// a log holding a session's end it has not applied must order nothing more
// of that session: a weak write of it replayed from the witnesses is
// refused (so its client learns it is lost), never appended as a command
// that the apply step would then skip after the leader had reported it
// committed (soak seed 179930833846444, curpho/expiry/n=5).
func TestNewLeaderRefusesRecordsOfAnEndingSession(t *testing.T) {
	c := newTestCoreWith(t, 1, 3, BasePolicy{})
	const client = 9
	end := wire.Entry{Cmd: wire.CmdID{Client: client}, Command: kvs.Command{Op: kvs.OpNoop}, Level: wire.Strong}
	require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, Entries: []wire.Entry{put(client, 1, 1, "a"), end}}))
	require.Zero(t, c.AppliedIndex(), "nothing committed yet")

	c.now = int64(c.o.ElectionTimeoutMax) + 1 // the leader has gone silent
	c.Tick()
	c.out.take()
	require.NoError(t, c.StepReplica(2, &wire.PreVoteReply{Ballot: 0, PreBallot: 1, Replica: 2, Granted: true, Lives: lifeOf(c.o.N, 2)}))
	require.NoError(t, c.StepReplica(2, &wire.RequestVoteReply{Ballot: 1, Replica: 2, Granted: true, Lives: lifeOf(c.o.N, 2)}))
	require.True(t, c.IsLeader())

	w := weakRecord(client, 2, 1, 0)
	require.NoError(t, c.StepReplica(2, &wire.CollectReply{Ballot: 1, Replica: 2, Records: []wire.Record{w}}))
	slot, _, refused := c.Outcome(w.Cmd)
	require.NotZero(t, slot, "the replayed record has an outcome in the log")
	require.True(t, refused, "its session's end is in the log before it: refused, not ordered")
}
