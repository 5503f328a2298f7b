package client

import "swiftpaxos/wire"

// Envelope is one message a session core produced for a replica.
type Envelope struct {
	To  wire.ReplicaID
	Msg wire.Message
}

// Ready is what a session core produced since the driver last asked: the
// messages to send, in order, and the operations that completed. The
// driver calls Ready after every input it steps (Session.loop, the
// simulator) and acts on it then, so that the core is never re-entered
// from one of its own sends: a connection found broken while sending is
// reported with ReplicaDown after the Ready is handled.
//
// The slices belong to the core and are valid until the next call to
// Ready; a message in them must not be mutated.
type Ready struct {
	Messages  []Envelope
	Completed []Result
}

// outputs collects a core's outputs between two calls to Ready, in two
// buffers handed out in turn, so that a steady loop does not allocate.
type outputs struct {
	msgs, spareMsgs []Envelope
	done, spareDone []Result
}

func (o *outputs) take() Ready {
	rd := Ready{Messages: o.msgs, Completed: o.done}
	clear(o.spareMsgs)
	clear(o.spareDone)
	o.msgs, o.spareMsgs = o.spareMsgs[:0], o.msgs
	o.done, o.spareDone = o.spareDone[:0], o.done
	return rd
}

// Ready returns every output produced since the last call.
func (s *Core) Ready() Ready {
	s.releaseHeld()
	return s.out.take()
}
