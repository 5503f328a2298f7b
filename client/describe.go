package client

import "fmt"

// Describe summarises the session's state for diagnostics: ballot, leader
// and the oldest operations in flight.
func (s *Core) Describe() string {
	out := fmt.Sprintf("ballot=%d leader=%d ack=%d inflight=%d policy=%v", s.ballot, s.leader, s.AckUpTo(), len(s.pending), s.o.Policy)
	n := 0
	for _, seq := range s.order {
		p, ok := s.pending[seq]
		if !ok {
			continue
		}
		lr := "none"
		if p.leaderReply != nil {
			lr = fmt.Sprintf("b%d ok=%v retry=%v", p.leaderReply.Ballot, p.leaderReply.Ok, p.leaderReply.Retry)
		}
		out += fmt.Sprintf(" [#%d %s deferred=%v attempts=%d lr=%s]", seq, p.Op, p.deferred, p.attempts, lr)
		if n++; n == 3 {
			break
		}
	}
	return out
}
