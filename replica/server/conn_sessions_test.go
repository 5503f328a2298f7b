package server

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/batcher"
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

func sessionsHello() []byte {
	return wire.AppendFrame(nil, &wire.Hello{Kind: wire.PeerSessions, Alias: "client0"})
}

func attachFrame(id wire.ClientID) []byte {
	return wire.AppendFrame(nil, &wire.Hello{Kind: wire.PeerClient, Client: id})
}

func getFrame(id wire.ClientID, ki int) []byte {
	key := key(ki)
	return wire.AppendFrame(nil, &wire.Propose{Cmd: wire.CmdID{Client: id, Seq: 1}, Command: kvs.Command{Op: kvs.OpGet, Key: key}})
}

// Two sessions attached to one connection are each answered on it, and
// each reply names its own session.
func TestSessionsShareAConnection(t *testing.T) {
	r := startReplica0(t, "", false)
	c := r.dial(t)
	var frames []byte
	for _, part := range [][]byte{sessionsHello(), attachFrame(5), attachFrame(6), getFrame(5, 1), getFrame(6, 2)} {
		frames = append(frames, part...)
	}
	_, err := c.Write(frames)
	require.NoError(t, err)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(closeWithin)))
	rd := wire.NewReader(c, 1<<20)
	got := map[wire.ClientID]bool{}
	for range 2 {
		m := nextAfterViews(t, rd)
		reply, ok := m.(*wire.LeaderReply)
		require.True(t, ok, "got %T", m)
		got[reply.Cmd.Client] = true
	}
	assert.Equal(t, map[wire.ClientID]bool{5: true, 6: true}, got)
	assert.Zero(t, r.counters.InvalidMessage.Load())
}

// A sessions connection speaks only for the sessions attached to it: a
// request for another, a replica's Hello inside it, or a message that
// names no session closes it, counted as invalid; the replica still
// serves a well-behaved connection.
func TestSessionsConnectionRefusesUnattached(t *testing.T) {
	r := startReplica0(t, "", false)
	for _, bad := range [][]byte{
		getFrame(9, 1), // session 9 never attached
		wire.AppendFrame(nil, &wire.Hello{Kind: wire.PeerReplica, Replica: 2}),
		wire.AppendFrame(nil, &wire.StatusRequest{Nonce: 1}),
		wire.AppendFrame(nil, &wire.Routed{Session: 9, Msg: &wire.Sync{Cmd: wire.CmdID{Client: 5, Seq: 1}}}),
	} {
		c := r.dial(t)
		frames := append(append(sessionsHello(), attachFrame(5)...), bad...)
		_, err := c.Write(frames)
		require.NoError(t, err)
		waitClosed(t, c)
	}
	assert.Equal(t, uint64(4), r.counters.InvalidMessage.Load())

	c := r.dial(t)
	_, err := c.Write(append(append(sessionsHello(), attachFrame(5)...), getFrame(5, 1)...))
	require.NoError(t, err)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(closeWithin)))
	assert.IsType(t, &wire.LeaderReply{}, nextAfterViews(t, wire.NewReader(c, 1<<20)))
}

// nextAfterViews reads the next message that is not a NewView, plain or
// routed: the leader tells each session that attaches its view
// (Core.SessionAttached).
func nextAfterViews(t *testing.T, rd *wire.Reader) wire.Message {
	t.Helper()
	for {
		m, err := rd.Next()
		require.NoError(t, err)
		if rt, ok := m.(*wire.Routed); ok {
			if _, view := rt.Msg.(*wire.NewView); view {
				continue
			}
		}
		if _, view := m.(*wire.NewView); !view {
			return m
		}
	}
}

// One connection attaches at most maxSessionsPerConn sessions.
func TestSessionsPerConnectionAreBounded(t *testing.T) {
	r := startReplica0(t, "", false)
	c := r.dial(t)
	frames := sessionsHello()
	for id := range maxSessionsPerConn + 1 {
		frames = append(frames, attachFrame(wire.ClientID(id+1))...)
	}
	_, err := c.Write(frames)
	require.NoError(t, err)
	waitClosed(t, c)
	assert.Equal(t, uint64(1), r.counters.InvalidMessage.Load())
}

// A session may ask about another client's command (a CURP-HO session's
// Sync for the foreign write its read saw): on a shared connection it
// sends the Sync inside a Routed that names the session, the connection
// stays open, and what the replica answers comes back routed to the
// session, also when the answer names no session at all (a NewView).
func TestSessionsConnectionRoutesForeignSync(t *testing.T) {
	r := startReplica0(t, "", false)
	c := r.dial(t)
	foreign := wire.CmdID{Client: 77, Seq: 3} // no such command
	frames := append(append(sessionsHello(), attachFrame(5)...),
		wire.AppendFrame(nil, &wire.Routed{Session: 5, Msg: &wire.Sync{Cmd: foreign}})...)
	frames = append(frames, getFrame(5, 1)...)
	_, err := c.Write(frames)
	require.NoError(t, err)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(closeWithin)))
	rd := wire.NewReader(c, 1<<20)
	var routed []*wire.Routed
	for len(routed) < 2 {
		m, err := rd.Next()
		require.NoError(t, err, "the connection was closed")
		if rt, ok := m.(*wire.Routed); ok {
			routed = append(routed, rt)
		} else {
			id, ok := wire.SessionOf(m)
			require.True(t, ok && id == 5, "%T names no session, or another", m)
		}
	}
	for _, rt := range routed {
		assert.Equal(t, wire.ClientID(5), rt.Session)
		assert.IsType(t, &wire.NewView{}, rt.Msg)
	}
	// The first tells the attaching session the view; the second answers
	// the Sync.
	assert.Zero(t, r.counters.InvalidMessage.Load())
}

// A sessions connection's queue has room for the sessions its Hello
// declares, up to maxQueuedSessions, while the replica's budget lasts;
// past it a connection gets the default queue, and a closed connection
// gives its room back.
func TestSessionsQueueFollowsTheDeclaredSessions(t *testing.T) {
	s := &server{}
	s.queueRoom.Store(sessionsQueueBudget)
	for _, c := range []struct {
		declared uint32
		want     int
	}{{0, 1}, {1, 1}, {8, 8}, {maxQueuedSessions, maxQueuedSessions}, {1 << 30, maxQueuedSessions}} {
		n, release := s.sessionsQueue(c.declared)
		assert.Equal(t, c.want*batcher.DefaultQueueLen, n, "%d sessions declared", c.declared)
		release()
	}
	require.Equal(t, int64(sessionsQueueBudget), s.queueRoom.Load())

	var releases []func()
	for {
		n, release := s.sessionsQueue(maxQueuedSessions)
		releases = append(releases, release)
		if n == batcher.DefaultQueueLen {
			break
		}
	}
	full := sessionsQueueBudget / ((maxQueuedSessions - 1) * batcher.DefaultQueueLen)
	require.Len(t, releases, full+1, "the budget holds %d full queues", full)
	releases[0]()
	n, release := s.sessionsQueue(maxQueuedSessions)
	assert.Equal(t, maxQueuedSessions*batcher.DefaultQueueLen, n, "a closed connection's room is taken again")
	release()
	for _, r := range releases[1:] {
		r()
	}
	assert.Equal(t, int64(sessionsQueueBudget), s.queueRoom.Load())
}
