package replica

import (
	"bytes"
	"testing"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// seedStream encodes messages as one byte stream of frames.
func seedStream(ms ...wire.Message) []byte {
	var b []byte
	for _, m := range ms {
		b = wire.AppendFrame(b, m)
	}
	return b
}

// FuzzPeerMessages feeds arbitrary sequences of messages, from a fake
// replica and a fake client, into a replica core that has committed state
// (issue 12): no input may panic it, move its commit or applied index
// back, change a committed entry or break its witness indexes.
func FuzzPeerMessages(f *testing.F) {
	e := put(9, 1, 3, "x")
	f.Add(byte(0), seedStream(&wire.PreVote{Ballot: 1, Candidate: 2, LastSlot: 9}, &wire.RequestVote{Ballot: 1, Candidate: 2, LastSlot: 9},
		&wire.Accept{Ballot: 1, Leader: 2, PrevSlot: 2, Entries: []wire.Entry{e}, LeaderCommit: 3}))
	f.Add(byte(1), seedStream(&wire.Accept{Ballot: 5, Leader: 2, Entries: []wire.Entry{e}, LeaderCommit: 1},
		&wire.RequestVote{Ballot: 1<<32 - 1, Candidate: 2, LastSlot: 1 << 40}, &wire.Commit{Ballot: 0, CommitIndex: 1 << 60}))
	f.Add(byte(2), seedStream(&wire.Propose{Cmd: wire.CmdID{Client: 5, Seq: 1}, Command: kvs.Command{Op: kvs.OpPut, Key: key(1), Value: kvs.Value("v")}},
		&wire.WitnessSync{Records: []wire.Record{{Cmd: wire.CmdID{Client: 5, Seq: 2}, Level: wire.Weak, CausalDep: 1, Age: 1 << 62,
			Command: kvs.Command{Op: kvs.OpPut, Key: key(2), Value: kvs.Value("w")}}}},
		&wire.CollectReply{Ballot: 0, Replica: 2}, &wire.NewView{Ballot: 3, Leader: 2, ViewStart: 2}))
	f.Fuzz(func(t *testing.T, who byte, stream []byte) {
		var c *testCore
		if who%2 == 0 {
			c = follower1(t)
		} else {
			c = leader0(t)
		}
		r := wire.NewReader(bytes.NewReader(stream), 1<<16)
		committed := snapshotCommitted(c)
		for step := 0; ; step++ {
			m, err := r.Next()
			if err != nil {
				return
			}
			c.now += int64(c.o.HeartbeatInterval)
			switch m.(type) {
			case *wire.Propose, *wire.WeakRead, *wire.Sync, *wire.WeakPropose, *wire.CausalPropose:
				c.StepClient(5, m)
			default:
				_ = c.StepReplica(2, m)
			}
			if step%8 == 7 {
				c.Tick()
			}
			checkInvariants(t, c, committed)
			committed = snapshotCommitted(c)
		}
	})
}

// leader0 is replica 0 of three, the leader of ballot 0, with slots 1
// and 2 committed and applied.
func leader0(t *testing.T) *testCore {
	t.Helper()
	c := newTestCoreWith(t, 0, 3, BasePolicy{})
	for seq := wire.Seq(1); seq <= 2; seq++ {
		c.StepClient(7, &wire.Propose{Cmd: wire.CmdID{Client: 7, Seq: seq}, Command: kvs.Command{Op: kvs.OpPut, Key: key(int(seq)), Value: kvs.Value("v")}})
	}
	if err := c.StepReplica(1, &wire.AcceptAck{Ballot: 0, Replica: 1, Success: true, MatchSlot: 2}); err != nil {
		t.Fatal(err)
	}
	if c.AppliedIndex() != 2 {
		t.Fatalf("leader applied %d, want 2", c.AppliedIndex())
	}
	return c
}

type committedState struct {
	commit, applied kvs.Slot
	entries         []wire.Entry // slots 1..commit
}

func snapshotCommitted(c *testCore) committedState {
	s := committedState{commit: c.commitIndex, applied: c.appliedIndex}
	for i := kvs.Slot(1); i <= c.commitIndex; i++ {
		s.entries = append(s.entries, *c.entries.at(i))
	}
	return s
}

func checkInvariants(t *testing.T, c *testCore, before committedState) {
	t.Helper()
	if c.commitIndex < before.commit || c.appliedIndex < before.applied {
		t.Fatalf("commit %d -> %d, applied %d -> %d: moved back", before.commit, c.commitIndex, before.applied, c.appliedIndex)
	}
	if c.appliedIndex > c.commitIndex || c.commitIndex > c.entries.last() {
		t.Fatalf("applied %d, commit %d, last %d out of order", c.appliedIndex, c.commitIndex, c.entries.last())
	}
	for i, e := range before.entries {
		got := c.entries.at(kvs.Slot(i + 1))
		if got.Ballot != e.Ballot || got.Cmd != e.Cmd || got.Command.Op != e.Command.Op || !bytes.Equal(got.Command.Value, e.Command.Value) {
			t.Fatalf("committed slot %d changed: %v %s -> %v %s", i+1, e.Cmd, e.Command, got.Cmd, got.Command)
		}
	}
	if err := c.CheckWitness(); err != nil {
		t.Fatal(err)
	}
}
