package replica

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
)

type nullOut struct{}

func (nullOut) ToReplica(wire.ReplicaID, wire.Message) {}
func (nullOut) ToClient(wire.ClientID, wire.Message)   {}

func newTestCore(t *testing.T, id wire.ReplicaID, n int) *Core {
	t.Helper()
	var now int64
	c, err := New(Options{ID: id, N: n, Policy: BasePolicy{}, Out: nullOut{}, Now: func() int64 { return now },
		Rand: rand.New(rand.NewPCG(1, uint64(id)))})
	require.NoError(t, err)
	return c
}

func rec(client wire.ClientID, seq wire.Seq) wire.Record {
	return wire.Record{Cmd: wire.CmdID{Client: client, Seq: seq}, Level: wire.Strong, Accepted: true,
		Command: kvs.Command{Op: kvs.OpPut, Key: kvs.Key(client), Value: kvs.Value("v")}}
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
