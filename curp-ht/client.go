package curpht

import (
	"time"

	"swiftpaxos/client"
	"swiftpaxos/wire"
)

// clientPolicy is the CURP-HT session side.
type clientPolicy struct{}

// NewClientPolicy returns the CURP-HT client policy.
func NewClientPolicy() client.Policy { return clientPolicy{} }

// SendWeakWrite sends a weak write to the leader. A retry after silence
// goes to the replica after the last one tried, so that it reaches a live
// replica whatever has crashed; a live one answers NotLeader with the
// leader it knows, and the redirect goes straight there (PROTOCOL.md 6.6).
func (clientPolicy) SendWeakWrite(s *client.Core, p *client.Pending) {
	if p == nil {
		return
	}
	to := s.Leader()
	if p.Attempts() > 0 && !p.Redirected() {
		to = s.NextReplica(p.Target())
	}
	p.SetTarget(to)
	s.Send(to, &wire.WeakPropose{Cmd: s.CmdID(p.Seq), Command: p.Op.Command, CausalDep: p.CausalDep, AckUpTo: s.AckUpTo()})
}

// Handle completes a weak write on its commit-time WeakReply and caches
// the written value (a DELETE: absent) with its slot (PROTOCOL.md 4.5
// step 4). The write has not executed yet, so what it found (a DELETE's
// Found) is not known: the result says so (Result.Known false).
func (clientPolicy) Handle(s *client.Core, _ wire.ReplicaID, m wire.Message) bool {
	r, ok := m.(*wire.WeakReply)
	if !ok {
		return false
	}
	p := s.Lookup(r.Cmd)
	if p == nil || p.Op.Level != wire.Weak || !r.Committed {
		return true
	}
	if r.Refused {
		s.Complete(p, client.Result{Slot: r.Slot, Path: client.PathWeak, Err: client.ErrRefused})
		s.Expire()
		return true
	}
	s.SetCache(p.Op.Command, r.Slot, p.Seq)
	s.Complete(p, client.Result{Version: r.Slot, Slot: r.Slot, Path: client.PathWeak})
	return true
}

// StrongWeakDep: CURP-HT strong proposals carry no weak dependency; weak
// writes are committed before they complete.
func (clientPolicy) StrongWeakDep(*client.Core) wire.Seq { return 0 }

// FastPathAck: the plain CURP conditions suffice (PROTOCOL.md 4.1).
func (clientPolicy) FastPathAck(*client.Core, *client.Pending, *wire.LeaderReply, *wire.RecordAck) bool {
	return true
}

// StrongCompleted does nothing beyond the shared cache update.
func (clientPolicy) StrongCompleted(*client.Core, *client.Pending, client.Result) {}

// OldestUnconfirmed: CURP-HT weak writes complete only once committed.
func (clientPolicy) OldestUnconfirmed() wire.Seq { return 0 }

// Tick has no timers of its own.
func (clientPolicy) Tick(*client.Core, time.Duration) {}

// Abandon: CURP-HT weak writes complete only once committed, so none is
// lost with the session.
func (clientPolicy) Abandon(*client.Core) []wire.Seq { return nil }

// Defer never defers an operation.
func (clientPolicy) Defer(*client.Core, *client.Pending) bool { return false }
