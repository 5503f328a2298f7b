package replica

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// The two drivers of a Core, the TCP server (replica/server) and the
// simulator (sim/), must drive it through the same narrow surface, so that
// what the simulator establishes about the core (safety under faults,
// checked histories) holds for the server too (docs/ARCHITECTURE.md,
// "Deterministic cores"). They differ in one respect only: the server
// steps every input already queued and then takes the outputs once, the
// simulator takes them after every input. These tests pin the surface and
// show that the difference changes how outputs are packed into messages,
// never what the core decides or what its peers and clients learn.

// driver is the surface both drivers use: inputs stepped one at a time,
// outputs taken as a value.
type driver interface {
	StepClient(from wire.ClientID, m wire.Message)
	StepReplica(from wire.ReplicaID, m wire.Message) error
	Tick()
	Ready() Ready
}

var _ driver = (*Core)(nil)

// batchingPolicy stands in for a protocol that batches notifications
// until Ready, as CURP-HO batches its WeakCommits: it queues one SlotOf
// per committed command and sends them, one WeakCommit per client, in
// Flush.
type batchingPolicy struct {
	BasePolicy
	queued map[wire.ClientID][]wire.SlotOf
	order  []wire.ClientID
}

func (p *batchingPolicy) Committed(_ *Core, e *wire.Entry) {
	if e.Cmd.IsZero() {
		return
	}
	if _, ok := p.queued[e.Cmd.Client]; !ok {
		p.order = append(p.order, e.Cmd.Client)
	}
	p.queued[e.Cmd.Client] = append(p.queued[e.Cmd.Client], wire.SlotOf{Cmd: e.Cmd, Slot: e.Slot})
}

func (p *batchingPolicy) Flush(c *Core) {
	for _, id := range p.order {
		c.ToClient(id, &wire.WeakCommit{Ballot: c.Ballot(), Commits: p.queued[id]})
		delete(p.queued, id)
	}
	p.order = p.order[:0]
}

// input is one input of a script: a client or replica message, or a tick,
// at an instant.
type input struct {
	at     int64
	client wire.ClientID // a client message when non-zero
	from   wire.ReplicaID
	msg    wire.Message // nil: a tick
}

// drive runs a script, a list of batches of inputs, through a fresh core
// with replica id id of three. Batched is the server's loop: every input
// of a batch, then one Ready (a tick is a batch of its own). Otherwise it
// is the simulator's: Ready after every input. It returns the core and
// every envelope its Readys held, in order.
func drive(t *testing.T, id wire.ReplicaID, batched bool, script [][]input) (*testCore, []Envelope) {
	t.Helper()
	c := newStepCore(t, id, 3, func(o *Options) {
		o.Policy = &batchingPolicy{queued: make(map[wire.ClientID][]wire.SlotOf)}
	})
	var out []Envelope
	ready := func() {
		rd := c.Ready()
		out = append(out, rd.Messages...)
		out = append(out, rd.AfterSync...)
	}
	for _, batch := range script {
		for _, in := range batch {
			c.now = in.at
			switch {
			case in.msg == nil:
				c.Tick()
			case in.client != 0:
				c.StepClient(in.client, in.msg)
			default:
				require.NoError(t, c.StepReplica(in.from, in.msg))
			}
			if !batched {
				ready()
			}
		}
		if batched {
			ready()
		}
	}
	return c, out
}

// coreState is what a core decided: its log, commitment, store, records
// and replication state.
type coreState struct {
	Ballot                wire.Ballot
	Role                  Role
	Log                   []string
	Last, Commit, Applied kvs.Slot
	Store                 []string
	Held                  []wire.CmdID
	Match, Sent           []kvs.Slot
	Reads                 int
}

func stateOf(c *Core) coreState {
	s := coreState{Ballot: c.Ballot(), Role: c.role, Last: c.LastSlot(), Commit: c.CommitIndex(), Applied: c.AppliedIndex(),
		Held: ids(c.Records()), Match: slices.Clone(c.match), Sent: slices.Clone(c.sent), Reads: len(c.reads)}
	for sl := c.entries.first(); sl <= c.LastSlot(); sl++ {
		e := c.entries.at(sl)
		s.Log = append(s.Log, fmt.Sprintf("%d:b%d:%v:%s", sl, e.Ballot, e.Cmd, e.Command))
	}
	for k := range 8 {
		e := c.store.Get(key(k))
		s.Store = append(s.Store, fmt.Sprintf("%d=%q/%t@%d", k, e.Value, e.Found, e.Version))
	}
	return s
}

// toClients splits the envelopes for clients into the core's replies, in
// order, and the policy's batched notifications, flattened, per client.
func toClients(envs []Envelope) (replies map[wire.ClientID][]string, notes map[wire.ClientID][]wire.SlotOf) {
	replies, notes = map[wire.ClientID][]string{}, map[wire.ClientID][]wire.SlotOf{}
	for _, e := range envs {
		if !e.ToClient {
			continue
		}
		if wc, ok := e.Msg.(*wire.WeakCommit); ok {
			notes[e.Client] = append(notes[e.Client], wc.Commits...)
			continue
		}
		replies[e.Client] = append(replies[e.Client], fmt.Sprintf("%T%+v", e.Msg, e.Msg))
	}
	return replies, notes
}

// deliver steps the messages for replica p, in order, into a fresh
// replica p and returns what it decided.
func deliver(t *testing.T, p wire.ReplicaID, envs []Envelope) coreState {
	t.Helper()
	f := newStepCore(t, p, 3, nil)
	for _, e := range envs {
		if !e.ToClient && e.To == p {
			require.NoError(t, f.StepReplica(0, e.Msg))
		}
	}
	return stateOf(f.Core)
}

func countAccepts(envs []Envelope) int {
	n := 0
	for _, e := range envs {
		if a, ok := e.Msg.(*wire.Accept); ok && len(a.Entries) > 0 {
			n++
		}
	}
	return n
}

// leaderScript is a run of leader 0: proposals (one refused Ok, one read,
// one re-sent after it applied), acknowledgements arriving in several
// batches (one failed, rewinding the follower), a Sync, a weak read parked
// until its slot applies, heartbeats.
func leaderScript() [][]input {
	ms := int64(1e6)
	p := func(at int64, client wire.ClientID, seq wire.Seq, cmd kvs.Command, ackUpTo wire.Seq) input {
		return input{at: at, client: client, msg: &wire.Propose{Cmd: cmdID(client, seq), Command: cmd, AckUpTo: ackUpTo}}
	}
	ack := func(at int64, from wire.ReplicaID, ok bool, match kvs.Slot) input {
		return input{at: at, from: from, msg: &wire.AcceptAck{Ballot: 0, Replica: from, Success: ok, MatchSlot: match}}
	}
	return [][]input{
		{p(0, 7, 1, putCmd(1, "a"), 0), p(0, 8, 1, putCmd(1, "b"), 0), p(0, 9, 1, getCmd(1), 0), p(0, 7, 2, putCmd(2, "c"), 1)},
		{ack(ms, 1, true, 2), p(ms, 8, 2, getCmd(2), 1), {at: ms, client: 7, msg: &wire.Sync{Cmd: cmdID(7, 1)}},
			{at: ms, client: 9, msg: &wire.WeakRead{Cmd: cmdID(9, 2), Command: getCmd(1), MinSlot: 3}}},
		{{at: 60 * ms}},
		{ack(61*ms, 2, true, 5), ack(61*ms, 1, false, 1), p(61*ms, 8, 2, getCmd(2), 1), p(61*ms, 9, 3, putCmd(3, "d"), 2)},
		{ack(62*ms, 1, true, 6), ack(62*ms, 2, true, 4)},
		{{at: 120 * ms}},
	}
}

// followerScript is a run of follower 1: witness records (one rejected),
// the leader's Accepts (one re-sent), a Commit, a weak read parked until
// its slot applies, ticks.
func followerScript() [][]input {
	ms := int64(1e6)
	p := func(at int64, client wire.ClientID, cmd kvs.Command) input {
		return input{at: at, client: client, msg: &wire.Propose{Cmd: cmdID(client, 1), Command: cmd}}
	}
	acc := func(at int64, prev kvs.Slot, commit kvs.Slot, ents ...wire.Entry) input {
		return input{at: at, msg: &wire.Accept{Ballot: 0, Leader: 0, PrevSlot: prev, Entries: ents, LeaderCommit: commit}}
	}
	return [][]input{
		{p(0, 7, putCmd(1, "a")), p(0, 8, putCmd(1, "b")), p(0, 9, putCmd(2, "c"))},
		{acc(ms, 0, 0, put(7, 1, 1, "a"), put(8, 1, 1, "b")), {at: ms, client: 10, msg: &wire.WeakRead{Cmd: cmdID(10, 1), Command: getCmd(1), MinSlot: 2}}},
		{acc(2*ms, 2, 1, put(9, 1, 2, "c")), acc(2*ms, 0, 1, put(7, 1, 1, "a"), put(8, 1, 1, "b"))},
		{{at: 40 * ms}},
		{{at: 41 * ms, msg: &wire.Commit{Ballot: 0, CommitIndex: 3}}, p(41*ms, 8, putCmd(1, "b"))},
		{{at: 80 * ms}},
	}
}

// TestBatchedAndPerStepDrivingAgree runs the same inputs through a core
// driven as the server drives it and as the simulator does. The core ends
// in the same state; each client gets the same replies in the same order
// and the same batched notifications; each follower, fed what the leader
// sent it, ends in the same state. Only the packing differs: the server's
// loop sends fewer Accepts, which is why it takes the outputs per batch.
func TestBatchedAndPerStepDrivingAgree(t *testing.T) {
	for _, tc := range []struct {
		name   string
		id     wire.ReplicaID
		script [][]input
	}{{"leader", 0, leaderScript()}, {"follower", 1, followerScript()}} {
		t.Run(tc.name, func(t *testing.T) {
			server, sout := drive(t, tc.id, true, tc.script)
			sim, mout := drive(t, tc.id, false, tc.script)

			st := stateOf(server.Core)
			require.Equal(t, st, stateOf(sim.Core))
			require.NotZero(t, st.Applied, "the script commits something")

			sr, sn := toClients(sout)
			mr, mn := toClients(mout)
			require.Equal(t, sr, mr)
			require.Equal(t, sn, mn)
			require.NotEmpty(t, sr)

			if tc.id != 0 {
				return
			}
			require.NotEmpty(t, sn, "the policy's Flush sent something")
			for _, p := range []wire.ReplicaID{1, 2} {
				got := deliver(t, p, sout)
				require.Equal(t, got, deliver(t, p, mout), "follower %d", p)
				require.Equal(t, st.Commit, got.Commit, "follower %d learned the commit index", p)
			}
			require.Less(t, countAccepts(sout), countAccepts(mout), "batching merges Accepts")
		})
	}
}
