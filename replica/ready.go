package replica

import (
	"swiftpaxos/replica/storage"
	"swiftpaxos/wire"
)

// Envelope is one message a core produced, with where it goes: a replica,
// or a client session when ToClient is set.
type Envelope struct {
	To       wire.ReplicaID
	Client   wire.ClientID
	ToClient bool
	Msg      wire.Message
	// unsynced marks an acknowledgement that may leave before the batch
	// it came with is on disk (durable mode: Core.readAckUnsynced).
	unsynced bool
}

// Ready is what a core produced since the driver last asked (the shape of
// etcd-raft's Ready): the driver steps every input that is waiting, then
// calls Core.Ready once and sends what it holds. Draining once per batch
// of inputs, not per input, is what lets one Accept carry the entries of
// many proposals; and since the core only appends to it, a step never
// blocks on a connection and the core is never re-entered from a send.
//
// The slices belong to the core and are valid until the next call to
// Ready; a message in them must not be mutated.
type Ready struct {
	// Messages may leave at once.
	Messages []Envelope
	// AfterSync may leave only once the state they acknowledge is on
	// disk (an AcceptAck, a vote, a RecordAck in durable mode). A core
	// without durable state leaves it empty, and a driver sends it after
	// Messages.
	AfterSync []Envelope
	// Persist, in durable mode, is what changed in the replica's durable
	// state since the last Ready (nil if nothing did). The driver writes
	// batches in order; once every batch up to SyncSeq is on disk it sends
	// AfterSync and calls Core.Synced(SyncSeq). AfterSync waits even
	// without a batch of its own: what it acknowledges may be in an
	// earlier batch not yet synced.
	Persist *storage.Batch
	SyncSeq uint64
}

// outbox collects a core's outputs between two calls to Ready. It keeps
// two buffers and hands them out in turn, so that a steady loop does not
// allocate.
type outbox struct {
	cur, spare []Envelope
	// quiet drops every message to a member: a leader that hears no
	// majority (checkquorum.go). learner says, by replica, which ones
	// this leadership saw as learners (a Join it marked, or their
	// latest AcceptAck): a quiet leader still talks to those. It is kept
	// apart from the core's learner flags, which outlive a leadership:
	// with those, a replica that became a member under another leader
	// would keep hearing a quiet one, and keep the others from electing.
	quiet   bool
	learner []bool
}

// toReplica queues m for replica to, a valid replica id.
func (o *outbox) toReplica(to wire.ReplicaID, m wire.Message) {
	if !o.quiet || o.learner[to] {
		o.cur = append(o.cur, Envelope{To: to, Msg: m})
	}
}

func (o *outbox) toClient(to wire.ClientID, m wire.Message) {
	o.cur = append(o.cur, Envelope{Client: to, ToClient: true, Msg: m})
}

// take returns what was collected and starts an empty buffer.
// toClientUnsynced queues m for a client session, free to leave before
// the batch it came with is on disk.
func (o *outbox) toClientUnsynced(to wire.ClientID, m wire.Message) {
	o.cur = append(o.cur, Envelope{Client: to, ToClient: true, Msg: m, unsynced: true})
}

func (o *outbox) take() []Envelope {
	out := o.cur
	clear(o.spare) // drop the messages the driver has sent, for the GC
	o.cur, o.spare = o.spare[:0], out
	return out
}

// Ready runs what the core does once per batch of inputs (the leader
// replicates what was appended and checks its view; the policy sends what
// it batched) and returns every output produced since the last call.
func (c *Core) Ready() Ready {
	c.flush()
	if c.dur != nil {
		return c.durableReady()
	}
	return Ready{Messages: c.out.take()}
}
