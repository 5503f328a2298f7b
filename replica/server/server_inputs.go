package server

import (
	"net"

	"go.uber.org/zap"

	"swiftpaxos/batcher"
	"swiftpaxos/wire"
)

// The event loop's inputs: what the connections' readers hand it, in
// batches (one per read), and how the loop steps them into the core.

// inbound is one decoded message, or a connection event, for the loop.
type inbound struct {
	fromReplica wire.ReplicaID
	fromClient  wire.ClientID
	isClient    bool
	msg         wire.Message
	// connection events
	peer   *batcher.Batcher[wire.Message] // non-nil: a connection (un)registers
	closed bool
	down   bool // the connection from fromReplica broke
	// shared: the connection carries many sessions (wire.PeerSessions).
	// A session attaching to it leaves its older connection open: other
	// sessions may still use that one. sessions: at a shared
	// connection's close, the sessions it carried.
	shared   bool
	sessions []wire.ClientID
	// conn is the connection msg came on: the loop closes it when the
	// message breaks a protocol invariant.
	conn net.Conn
}

// maxDrain bounds the inputs the loop steps before it sends what they
// produced, so that a flood of input does not hold every output back.
const maxDrain = 256

// handleAll steps a reader's batch of inputs, hands the emptied batch
// back to the readers, and returns how many inputs it held.
func (s *server) handleAll(ins []inbound) int {
	for i := range ins {
		s.handle(ins[i])
	}
	n := len(ins)
	if cap(ins) < maxHandOff/4 {
		return n // an event's batch of one: not worth keeping
	}
	clear(ins) // the messages are the core's now, not the batch's
	select {
	case s.spare <- ins[:0]:
	default:
	}
	return n
}

// newBatch is an empty batch for a reader to fill.
func (s *server) newBatch() []inbound {
	select {
	case b := <-s.spare:
		return b
	default:
		return make([]inbound, 0, maxHandOff/4)
	}
}

func (s *server) handle(in inbound) {
	switch {
	case in.peer != nil && in.isClient:
		if in.closed {
			if s.clients[in.fromClient] == in.peer {
				delete(s.clients, in.fromClient)
			}
			for _, id := range in.sessions {
				if s.clients[id] == in.peer {
					delete(s.clients, id)
				}
			}
			return
		}
		if old := s.clients[in.fromClient]; old != nil && old != in.peer && !in.shared {
			old.Close()
		}
		s.clients[in.fromClient] = in.peer
		s.core.SessionAttached(in.fromClient)
	case in.peer != nil:
		if in.closed {
			if s.peers[in.fromReplica] == in.peer {
				s.peers[in.fromReplica] = nil
			}
			return
		}
		s.peers[in.fromReplica] = in.peer
	case in.down:
		s.core.PeerDown(in.fromReplica)
	case in.isClient:
		if req, ok := in.msg.(*wire.StatusRequest); ok {
			s.answerStatus(in.fromClient, req)
			return
		}
		s.core.StepClient(in.fromClient, in.msg)
	default:
		if err := s.core.StepReplica(in.fromReplica, in.msg); err != nil {
			s.reject(in, err)
		}
	}
}

// reject drops the connection an invalid message came on, counts it, and
// logs it once per remote address (ARCHITECTURE.md rule 8).
func (s *server) reject(in inbound, err error) {
	s.counters.InvalidMessage.Add(1)
	addr := "unknown"
	if in.conn != nil {
		addr = in.conn.RemoteAddr().String()
		in.conn.Close()
	}
	if _, seen := s.rejectedFrom[addr]; !seen {
		s.rejectedFrom[addr] = struct{}{}
		s.log.Warn("invalid message from a peer: connection closed", zap.String("remote", addr),
			zap.Int32("claims_replica", int32(in.fromReplica)), zap.Error(err))
	}
}
