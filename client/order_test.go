package client

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// sent lists the Seqs of the proposals (strong) and weak writes a core
// sent since the last call, each once, with a strong one's barrier
// dependency.
func sent(c *Core) map[wire.Seq]wire.Seq {
	out := map[wire.Seq]wire.Seq{}
	for _, e := range c.Ready().Messages {
		switch m := e.Msg.(type) {
		case *wire.Propose:
			out[m.Cmd.Seq] = m.WeakDep
		case *wire.WeakPropose:
			out[m.Cmd.Seq] = 0
		}
	}
	return out
}

func put(k string) kvs.Command {
	return kvs.Command{Op: kvs.OpPut, Key: kvs.Key(k), Value: kvs.Value("v")}
}
func get(k string) kvs.Command { return kvs.Command{Op: kvs.OpGet, Key: kvs.Key(k)} }

// Ordered strong writes of one key go out at once, each naming the one
// before as its barrier dependency, and complete only on the slow path.
func TestOrderedStrongChain(t *testing.T) {
	x := newTestCore(t)
	a := x.c.Invoke(Op{Level: Strong, Command: put("k"), Ordered: true})
	b := x.c.Invoke(Op{Level: Strong, Command: put("k"), Ordered: true})
	other := x.c.Invoke(Op{Level: Strong, Command: put("j"), Ordered: true})
	c := x.c.Invoke(Op{Level: Strong, Command: get("k"), Ordered: true})
	require.Equal(t, map[wire.Seq]wire.Seq{a: 0, b: a, other: 0, c: b}, sent(x.c))

	// The leader's Ok and every witness's ack make no fast path for b.
	x.c.Step(0, &wire.LeaderReply{Replica: 0, Cmd: x.c.CmdID(b), Ok: true, Slot: 2})
	for r := wire.ReplicaID(1); r < 3; r++ {
		x.c.Step(r, &wire.RecordAck{Replica: r, Cmd: x.c.CmdID(b), Ok: true})
	}
	require.Empty(t, x.c.Ready().Completed)
	x.c.Step(0, &wire.SyncReply{Replica: 0, Cmd: x.c.CmdID(b), Slot: 2})
	require.Equal(t, PathSlow, x.one().Path)
}

// An ordered operation whose conflicting predecessors cannot be named by
// one dependency waits, unsent, with everything after it, until they
// complete: a weak write, or two reads that are not ordered between
// themselves.
func TestOrderedHeld(t *testing.T) {
	x := newTestCore(t)
	w := x.c.Invoke(Op{Level: Weak, Command: put("k")})
	s := x.c.Invoke(Op{Level: Strong, Command: put("k"), Ordered: true})
	later := x.c.Invoke(Op{Level: Strong, Command: put("j")})
	require.Equal(t, map[wire.Seq]wire.Seq{w: 0}, sent(x.c))
	x.c.Step(0, &wire.WeakReply{Replica: 0, Cmd: x.c.CmdID(w), Slot: 1, Committed: true})
	require.Equal(t, map[wire.Seq]wire.Seq{s: 0, later: 0}, sent(x.c))

	y := newTestCore(t)
	g1 := y.c.Invoke(Op{Level: Strong, Command: get("k")})
	g2 := y.c.Invoke(Op{Level: Strong, Command: get("k"), Ordered: true})
	p := y.c.Invoke(Op{Level: Strong, Command: put("k"), Ordered: true})
	require.Equal(t, map[wire.Seq]wire.Seq{g1: 0, g2: 0}, sent(y.c))
	y.c.Step(0, &wire.SyncReply{Replica: 0, Cmd: y.c.CmdID(g1), Slot: 1})
	require.Equal(t, map[wire.Seq]wire.Seq{p: g2}, sent(y.c))
}

// A predecessor that completed drops out of the barrier: a read, which
// recovery does not replay, would be unknown to a new leader, and the
// ordered write re-sent to it would wait for it for good. So after a
// view change the write names only the policy's own dependency.
func TestOrderedResendAfterPredecessorCompleted(t *testing.T) {
	x := newTestCore(t)
	g := x.c.Invoke(Op{Level: Strong, Command: get("k")})
	p := x.c.Invoke(Op{Level: Strong, Command: put("k"), Ordered: true})
	require.Equal(t, map[wire.Seq]wire.Seq{g: 0, p: g}, sent(x.c))
	x.c.Step(0, &wire.LeaderReply{Replica: 0, Cmd: x.c.CmdID(g), Ok: true, Slot: 1})
	for r := wire.ReplicaID(1); r < 3; r++ {
		x.c.Step(r, &wire.RecordAck{Replica: r, Cmd: x.c.CmdID(g), Ok: true})
	}
	require.Equal(t, PathFast, x.one().Path)
	x.c.Step(1, &wire.NewView{Ballot: 1, Leader: 1, ViewStart: 2})
	require.Equal(t, map[wire.Seq]wire.Seq{p: 0}, sent(x.c))
}
