package client

import "swiftpaxos/wire"

// Leader reads (Options.LeaderReads, docs/DECISIONS.md 46): a strong read
// goes to the leader alone, which answers it with a SyncReply from
// committed state once a majority has confirmed its leadership, or, when
// a write to the key is not committed yet, logs it and answers on the
// slow path. A re-send after silence goes to every replica as any strong
// operation does: the leader may be gone, and the witnesses' records then
// reach the next one. A redirect (NotLeader, a new view) is a leader read
// again.
//
// A leader read has no slot, so no later operation can name it as its
// barrier dependency: an ordered write behind one last sent to the
// leader alone (Pending.atLeader) is held until it completes (order.go).

// Leader writes (Options.LeaderWrites, docs/DECISIONS.md 48): a strong
// write goes to the leader alone as an ordinary Propose. No witness
// records it, so it completes with the leader's SyncReply once it is
// committed and applied: the slow path. A re-send after silence goes to
// every replica (the leader may be gone, or was never the leader: a
// follower records the write as a witness and answers no NotLeader), and
// the witnesses' records may then complete it on the fast path, as any
// strong write's; a new view sends it to the new leader alone. It has a
// slot, so later operations order behind it as behind any strong write.

// writesAtLeader reports whether strong write p goes to the leader alone.
func (s *Core) writesAtLeader(p *Pending) bool {
	return s.o.LeaderWrites && p.Op.Level == wire.Strong && p.Op.Command.IsWrite() &&
		s.leader >= 0 && int(s.leader) < s.o.N
}

// readsAtLeader reports whether strong operation p is read at the leader.
func (s *Core) readsAtLeader(p *Pending) bool {
	return s.o.LeaderReads && p.Op.Level == wire.Strong && !p.Op.Command.IsWrite() &&
		s.leader >= 0 && int(s.leader) < s.o.N
}
