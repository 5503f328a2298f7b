package server

import (
	"time"

	"swiftpaxos/wire"
)

// answerStatus answers a StatusRequest (swiftpaxos -run status) on the
// event loop, from the core's read-only accessors: the request is about
// the replica, not a command, so it never enters the protocol's Step
// functions and changes nothing there.
func (s *server) answerStatus(from wire.ClientID, req *wire.StatusRequest) {
	b := s.clients[from]
	if b == nil {
		return
	}
	c := s.core
	size := c.Size()
	reply := &wire.StatusReply{
		Nonce: req.Nonce, Replica: s.id, Role: uint8(c.Role()), Member: c.Member(),
		Ballot: c.Ballot(), Leader: c.Leader(),
		CommitIndex: c.CommitIndex(), AppliedIndex: c.AppliedIndex(),
		LastSlot: c.LastSlot(), SnapshotSlot: c.SnapshotSlot(),
		Sessions: uint64(size.LiveSessions), WitnessRecords: uint64(size.WitnessRecords),
		UptimeMs: uint64(time.Since(s.started).Milliseconds()),
	}
	joining, fresh, freshNew := c.JoinStatus()
	reply.Joining, reply.ClusterNew, reply.Fresh, reply.FreshNew = joining, s.o.ClusterNew, uint64(fresh), uint64(freshNew)
	if s.o.FrontEndConns != nil {
		reply.RESPConns = uint64(max(s.o.FrontEndConns(), 0))
	}
	reply.Leases, reply.LeaseMs, reply.Quiet = s.cfg.LeaseReads, uint64(c.LeaseLeft().Milliseconds()), c.Quiet()
	reply.Founding = c.Founding()
	if s.disk != nil {
		st := s.disk.store.Syncs()
		reply.Durable, reply.Fsyncs, reply.FsyncMeanNs = true, st.Count, uint64(st.Mean())
	}
	if b.TrySend(reply) != nil {
		delete(s.clients, from)
	}
}
