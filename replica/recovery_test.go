package replica

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// recorder keeps what a core produced, taken from its Ready.
type recorder struct {
	core     *Core
	toClient []wire.Message
	toPeer   []wire.Message
}

// drain moves the core's outputs into the recorder.
func (r *recorder) drain() *recorder {
	rd := r.core.Ready()
	for _, e := range append(rd.Messages, rd.AfterSync...) {
		if e.ToClient {
			r.toClient = append(r.toClient, e.Msg)
		} else {
			r.toPeer = append(r.toPeer, e.Msg)
		}
	}
	return r
}

// take returns and forgets the client messages produced so far.
func (r *recorder) take() []wire.Message {
	out := r.drain().toClient
	r.toClient = nil
	return out
}

// discard forgets every output so far without the per-batch work of
// Ready (which would already send what the test is about to provoke).
func (r *recorder) discard() {
	r.core.out.take()
	r.toClient, r.toPeer = nil, nil
}

// peer returns the replica messages produced so far.
func (r *recorder) peer() []wire.Message { return r.drain().toPeer }

// lastPeer is the last replica message produced so far.
func (r *recorder) lastPeer() wire.Message {
	m := r.peer()
	return m[len(m)-1]
}

// testCore is a core on a fake clock whose outputs are recorded.
type testCore struct {
	*Core
	out *recorder
	now int64
}

func newTestCoreWith(t *testing.T, id wire.ReplicaID, n int, p Policy) *testCore {
	t.Helper()
	tc := &testCore{out: &recorder{}}
	c, err := New(Options{ID: id, N: n, Policy: p, Now: func() int64 { return tc.now }, StartAsMember: true,
		Rand: rand.New(rand.NewPCG(1, uint64(id))), Incarnation: 1})
	require.NoError(t, err)
	tc.Core = c
	tc.out.core = c
	return tc
}

func newTestCore(t *testing.T, id wire.ReplicaID, n int) *Core {
	return newTestCoreWith(t, id, n, BasePolicy{}).Core
}

func rec(client wire.ClientID, seq wire.Seq) wire.Record {
	return wire.Record{Cmd: wire.CmdID{Client: client, Seq: seq}, Level: wire.Strong, Accepted: true,
		Command: kvs.Command{Op: kvs.OpPut, Key: key(int(client)), Value: kvs.Value("v")}}
}

// replies builds collected replies, each listing records in arrival order.
func replies(lists ...[]wire.Record) []*wire.CollectReply {
	out := make([]*wire.CollectReply, len(lists))
	for i, l := range lists {
		out[i] = &wire.CollectReply{Replica: wire.ReplicaID(i), Records: l}
	}
	return out
}

func ids(rs []wire.Record) []wire.CmdID {
	out := make([]wire.CmdID, len(rs))
	for i, r := range rs {
		out[i] = r.Cmd
	}
	return out
}

// TestReplayOrder: PROTOCOL.md 6.5, last paragraph. Pairs go by the
// majority of the replies that hold both, ties by (ClientId, Seq), and a
// session's records keep their Seq order whatever the witnesses say.
func TestReplayOrder(t *testing.T) {
	a1, a2, b1, c1 := rec(9, 1), rec(9, 2), rec(5, 1), rec(7, 1)
	cases := []struct {
		name    string
		replies [][]wire.Record
		in      []wire.Record
		want    []wire.Record
	}{
		{"witnesses agree", [][]wire.Record{{a1, b1, c1}, {a1, b1, c1}}, []wire.Record{b1, c1, a1}, []wire.Record{a1, b1, c1}},
		{"majority of three", [][]wire.Record{{c1, b1}, {c1, b1}, {b1, c1}}, []wire.Record{b1, c1}, []wire.Record{c1, b1}},
		{"a tie goes by client id", [][]wire.Record{{c1, b1}, {b1, c1}}, []wire.Record{c1, b1}, []wire.Record{b1, c1}},
		{"only replies holding both count", [][]wire.Record{{c1}, {b1}, {c1, b1}}, []wire.Record{b1, c1}, []wire.Record{c1, b1}},
		{"a session keeps its order", [][]wire.Record{{a2, a1}, {a2, a1}}, []wire.Record{a2, a1}, []wire.Record{a1, a2}},
		{"witnesses against session order", [][]wire.Record{{a2, b1, a1}, {a2, b1, a1}}, []wire.Record{a1, a2, b1}, nil},
		{"a cycle still keeps session order", [][]wire.Record{{a1, b1, c1}, {b1, c1, a1}, {c1, a1, b1}}, []wire.Record{a1, b1, c1},
			nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestCore(t, 0, 3)
			c.rec = &recovery{replies: replies(tc.replies...)}
			got := c.replayOrder(tc.in)
			require.ElementsMatch(t, ids(tc.in), ids(got))
			last := map[wire.ClientID]wire.Seq{}
			for _, r := range got {
				require.Greater(t, r.Cmd.Seq, last[r.Cmd.Client], "session order in %v", ids(got))
				last[r.Cmd.Client] = r.Cmd.Seq
			}
			if tc.want != nil {
				require.Equal(t, ids(tc.want), ids(got))
			}
		})
	}
}
