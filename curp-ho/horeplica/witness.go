package horeplica

import (
	"fmt"
	"maps"
	"slices"

	"swiftpaxos/kvs"
	"swiftpaxos/replica"
	"swiftpaxos/wire"
)

// What a CURP-HO witness adds to the core's record store (PROTOCOL.md
// 5.3, 5.5): its weak-write records by session, which its report on a
// strong request names, and the read dependency of a strong read.

// weakRecords lists, per session, the Seqs of the weak-write records the
// witness keeps, in arrival order. It is the replica policy's
// replica.RecordIndex: the core tells it of every record kept and
// dropped, so it never lists a record the witness no longer holds, and
// a session's entry goes with its last record.
type weakRecords struct {
	bySession map[wire.ClientID][]wire.Seq
}

// RecordKept lists a weak record under its session.
func (w *weakRecords) RecordKept(r wire.Record) {
	if r.Level == wire.Weak {
		w.bySession[r.Cmd.Client] = append(w.bySession[r.Cmd.Client], r.Cmd.Seq)
	}
}

// RecordDropped unlists a weak record.
func (w *weakRecords) RecordDropped(r wire.Record) {
	if r.Level != wire.Weak {
		return
	}
	l := w.bySession[r.Cmd.Client]
	if i := slices.Index(l, r.Cmd.Seq); i >= 0 {
		l = slices.Delete(l, i, i+1)
	}
	if len(l) == 0 {
		delete(w.bySession, r.Cmd.Client)
	} else {
		w.bySession[r.Cmd.Client] = l
	}
}

// CheckRecords verifies that each session lists exactly the weak records
// c keeps for it, in arrival order.
func (w *weakRecords) CheckRecords(c *replica.Core) error {
	want := make(map[wire.ClientID][]wire.Seq)
	for _, r := range c.Records() {
		if r.Level == wire.Weak {
			want[r.Cmd.Client] = append(want[r.Cmd.Client], r.Cmd.Seq)
		}
	}
	for _, cl := range slices.Sorted(maps.Keys(w.bySession)) {
		if l := w.bySession[cl]; !slices.Equal(l, want[cl]) {
			return fmt.Errorf("session %d lists weak records %v, the witness keeps %v", cl, l, want[cl])
		}
	}
	for _, cl := range slices.Sorted(maps.Keys(want)) {
		if _, ok := w.bySession[cl]; !ok {
			return fmt.Errorf("session %d lists no weak record, the witness keeps %v", cl, want[cl])
		}
	}
	return nil
}

// causalDeps names the session's kept weak records (PROTOCOL.md 5.5 item
// 2).
func (w *weakRecords) causalDeps(client wire.ClientID) []wire.CmdID {
	l := w.bySession[client]
	if len(l) == 0 {
		return nil
	}
	ids := make([]wire.CmdID, len(l))
	for i, seq := range l {
		ids[i] = wire.CmdID{Client: client, Seq: seq}
	}
	return ids
}

// readDep classifies the write records c keeps overlapping a read: none,
// exactly one weak write whose chain c vouches for, or anything else.
func readDep(c *replica.Core, cmd kvs.Command) wire.ReadDep {
	var buf [2]wire.Record
	ws := c.KeptWrites(cmd, buf[:0], len(buf))
	switch {
	case len(ws) == 0:
		return wire.ReadDep{Kind: wire.DepNone}
	case len(ws) == 1 && ws[0].Level == wire.Weak && vouchesChain(c, &ws[0]):
		return wire.ReadDep{Kind: wire.DepOne, Cmd: ws[0].Cmd}
	}
	return wire.ReadDep{Kind: wire.DepMulti}
}

// vouchesChain reports whether c keeps, or has applied, every weak write
// before r in its session's causal chain. Recovery replays a weak write
// only with its chain (docs/DECISIONS.md 11), so a witness that answers
// ONE(w) must be able to vouch for the chain too; otherwise a strong read
// could return w and recovery drop it (docs/DECISIONS.md 13).
func vouchesChain(c *replica.Core, r *wire.Record) bool {
	committed := c.WeakCommittedSeq(r.Cmd.Client)
	for dep := r.CausalDep; dep > committed; {
		p, ok := c.Kept(wire.CmdID{Client: r.Cmd.Client, Seq: dep})
		if !ok || p.Level != wire.Weak {
			return false
		}
		dep = p.CausalDep
	}
	return true
}
