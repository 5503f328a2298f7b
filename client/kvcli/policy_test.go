package kvcli

import (
	"time"

	"swiftpaxos/client"
	"swiftpaxos/wire"
)

// silentPolicy is a client policy for clusters that never answer: the
// tests here need a session, not a protocol, and a policy of their own
// keeps them apart from the replica packages.
type silentPolicy struct{}

func newPolicy() client.Policy { return silentPolicy{} }

func (silentPolicy) SendWeakWrite(s *client.Core, p *client.Pending) {
	if p != nil {
		s.Send(s.Leader(), &wire.WeakPropose{Cmd: s.CmdID(p.Seq), Command: p.Op.Command, CausalDep: p.CausalDep, AckUpTo: s.AckUpTo()})
	}
}
func (silentPolicy) Handle(*client.Core, wire.ReplicaID, wire.Message) bool { return false }
func (silentPolicy) StrongWeakDep(*client.Core) wire.Seq                    { return 0 }
func (silentPolicy) FastPathAck(*client.Core, *client.Pending, *wire.LeaderReply, *wire.RecordAck) bool {
	return true
}
func (silentPolicy) StrongCompleted(*client.Core, *client.Pending, client.Result) {}
func (silentPolicy) Defer(*client.Core, *client.Pending) bool                     { return false }
func (silentPolicy) Tick(*client.Core, time.Duration)                             {}
func (silentPolicy) OldestUnconfirmed() wire.Seq                                  { return 0 }
func (silentPolicy) Abandon(*client.Core) []wire.Seq                              { return nil }
