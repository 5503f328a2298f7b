package replica

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// Data model v2 in the core (issue 29): which client requests are
// admitted, and the leader's speculative results of the operations whose
// outcome depends on the state (DELETE, CAS, INCR, and reads over them).

// handledPolicy is BasePolicy that records the client messages the core
// hands it (a protocol's weak writes).
type handledPolicy struct {
	BasePolicy
	handled *[]wire.Message
}

func (p handledPolicy) HandleClient(_ *Core, _ wire.ClientID, m wire.Message) bool {
	*p.handled = append(*p.handled, m)
	return true
}

// TestWeakCASAndIncrRefused: a CAS or an INCR is strong only (PROTOCOL.md
// 1.2): a weak write is answered before it is ordered, so its outcome
// would be invented. A hostile client that sends one as a CURP-HT or
// CURP-HO weak write is dropped by the core's admission check: the
// protocol never sees it, nothing is recorded, appended or answered, at
// the leader or at a witness. A weak PUT or DELETE passes, and a strong
// CAS or INCR is admitted.
func TestWeakCASAndIncrRefused(t *testing.T) {
	cas := kvs.Command{Op: kvs.OpCAS, Key: key(1), Expect: kvs.ExpectAbsent, Value: kvs.Value("v")}
	casDelete := kvs.Command{Op: kvs.OpCAS, Key: key(1), Expect: kvs.ExpectVersion, ExpectVersion: 3, Delete: true}
	incr := kvs.Command{Op: kvs.OpIncr, Key: key(1), Delta: 1}
	del := kvs.Command{Op: kvs.OpDelete, Key: key(1)}
	id := cmdID(7, 1)
	weak := func(cmd kvs.Command) []wire.Message {
		return []wire.Message{
			&wire.WeakPropose{Cmd: id, Command: cmd},
			&wire.CausalPropose{Cmd: id, Command: cmd, Bound: 1},
		}
	}
	for _, cmd := range []kvs.Command{cas, casDelete, incr} {
		for _, m := range weak(cmd) {
			require.False(t, validRequest(m, kvs.DefaultLimits, false), "%T %v", m, cmd)
			for _, r := range []wire.ReplicaID{0, 1} {
				var handled []wire.Message
				c := newStepCore(t, r, 3, func(o *Options) { o.Policy = handledPolicy{handled: &handled} })
				c.StepClient(7, m)
				require.Empty(t, handled, "%T %v at replica %d reached the protocol", m, cmd, r)
				require.Zero(t, c.RecordCount())
				require.Zero(t, c.LastSlot())
				require.Empty(t, c.out.take())
			}
		}
		require.True(t, validRequest(&wire.Propose{Cmd: id, Command: cmd}, kvs.DefaultLimits, false), "strong %v", cmd)
	}
	for _, cmd := range []kvs.Command{putCmd(1, "v"), del} {
		for _, m := range weak(cmd) {
			require.True(t, validRequest(m, kvs.DefaultLimits, false), "%T %v", m, cmd)
			var handled []wire.Message
			c := newStepCore(t, 0, 3, func(o *Options) { o.Policy = handledPolicy{handled: &handled} })
			c.StepClient(7, m)
			require.Equal(t, []wire.Message{m}, handled, "%T %v reaches the protocol", m, cmd)
		}
	}
}

// TestAdmissionUsesTheConfiguredLimits: the core admits keys and values
// by the replica's configured limits, not the defaults.
func TestAdmissionUsesTheConfiguredLimits(t *testing.T) {
	c := newStepCore(t, 0, 3, func(o *Options) { o.Limits = kvs.Limits{MaxKey: 8, MaxValue: 4} })
	c.StepClient(7, &wire.Propose{Cmd: cmdID(7, 1), Command: kvs.Command{Op: kvs.OpPut, Key: "123456789", Value: kvs.Value("v")}})
	c.StepClient(7, &wire.Propose{Cmd: cmdID(7, 2), Command: kvs.Command{Op: kvs.OpPut, Key: "k", Value: kvs.Value("12345")}})
	require.Zero(t, c.LastSlot(), "over the configured limits")
	c.StepClient(7, &wire.Propose{Cmd: cmdID(7, 3), Command: kvs.Command{Op: kvs.OpPut, Key: "12345678", Value: kvs.Value("1234")}})
	require.Equal(t, kvs.Slot(1), c.LastSlot(), "at the limits")
}

// proposeAtLeader steps a strong proposal at leader c and returns its
// LeaderReply.
func proposeAtLeader(t *testing.T, c *testCore, seq wire.Seq, cmd kvs.Command) *wire.LeaderReply {
	t.Helper()
	replies := msgsOf[*wire.LeaderReply](propose(c, 8, cmd, seq))
	require.Len(t, replies, 1, "%v", cmd)
	return replies[0]
}

// TestSpeculationOverUnappliedWrites: PROTOCOL.md 3.5. The leader's
// speculative result is the command's result against the log, not the
// applied store: a CAS, an INCR or a DELETE proposed after unapplied
// writes of its key sees them (a CAS expecting the value a PUT before it
// writes applies; one expecting the key absent does not; the version a
// CAS expects is the slot of the last write in the log), and so does a
// read after them, a SCAN included. Each speculative result is the result
// the command gets when it executes.
func TestSpeculationOverUnappliedWrites(t *testing.T) {
	c := leaderWith(t, 3)
	type step struct {
		cmd  kvs.Command
		want kvs.Result
	}
	steps := []step{
		{putCmd(1, "a"), kvs.Result{Version: 1}},
		{kvs.Command{Op: kvs.OpCAS, Key: key(1), Expect: kvs.ExpectValue, ExpectValue: kvs.Value("a"), Value: kvs.Value("b")},
			kvs.Result{Applied: true, Value: kvs.Value("b"), Found: true, Version: 2}},
		{kvs.Command{Op: kvs.OpCAS, Key: key(1), Expect: kvs.ExpectAbsent, Value: kvs.Value("c")},
			kvs.Result{Value: kvs.Value("b"), Found: true, Version: 2}},
		{kvs.Command{Op: kvs.OpCAS, Key: key(1), Expect: kvs.ExpectVersion, ExpectVersion: 2, Value: kvs.Value("d")},
			kvs.Result{Applied: true, Value: kvs.Value("d"), Found: true, Version: 4}},
		{getCmd(1), kvs.Result{Value: kvs.Value("d"), Found: true, Version: 4}},
		{putCmd(2, "41"), kvs.Result{Version: 6}},
		{kvs.Command{Op: kvs.OpIncr, Key: key(2), Delta: 1}, kvs.Result{Value: kvs.Value("42"), Found: true, Version: 7}},
		{kvs.Command{Op: kvs.OpIncr, Key: key(2), Delta: -50}, kvs.Result{Value: kvs.Value("-8"), Found: true, Version: 8}},
		{kvs.Command{Op: kvs.OpIncr, Key: key(1), Delta: 1}, kvs.Result{Value: kvs.Value("d"), Found: true, Version: 4, Err: kvs.ErrNotInteger}},
		{kvs.Command{Op: kvs.OpIncr, Key: key(3), Delta: 5}, kvs.Result{Value: kvs.Value("5"), Found: true, Version: 10}},
		{kvs.Command{Op: kvs.OpDelete, Key: key(1)}, kvs.Result{Found: true, Version: 11}},
		{kvs.Command{Op: kvs.OpDelete, Key: key(1)}, kvs.Result{Found: false, Version: 12}},
		{getCmd(1), kvs.Result{Version: 12}},
		{kvs.Command{Op: kvs.OpCAS, Key: key(1), Expect: kvs.ExpectAbsent, Value: kvs.Value("e")},
			kvs.Result{Applied: true, Value: kvs.Value("e"), Found: true, Version: 14}},
		{kvs.Command{Op: kvs.OpCAS, Key: key(2), Expect: kvs.ExpectValue, ExpectValue: kvs.Value("-8"), Delete: true},
			kvs.Result{Applied: true, Version: 15}},
		{kvs.Command{Op: kvs.OpIncr, Key: key(2), Delta: 2}, kvs.Result{Value: kvs.Value("2"), Found: true, Version: 16}},
		{rangeCmd(0, 9), kvs.Result{Items: []kvs.Item{
			{Key: key(1), Value: kvs.Value("e"), Found: true, Version: 14},
			{Key: key(2), Value: kvs.Value("2"), Found: true, Version: 16},
			{Key: key(3), Value: kvs.Value("5"), Found: true, Version: 10},
		}, Version: 16}},
		{scanRange(key(2), ""), kvs.Result{Items: []kvs.Item{
			{Key: key(2), Value: kvs.Value("2"), Found: true, Version: 16},
			{Key: key(3), Value: kvs.Value("5"), Found: true, Version: 10},
		}, Version: 16}},
		{kvs.Command{Op: kvs.OpScan, Key: key(0), End: key(9), Limit: 1}, kvs.Result{Items: []kvs.Item{
			{Key: key(1), Value: kvs.Value("e"), Found: true, Version: 14},
		}, More: true, Version: 14}},
	}
	for i, s := range steps {
		seq := wire.Seq(i + 1)
		r := proposeAtLeader(t, c, seq, s.cmd)
		require.Equal(t, kvs.Slot(seq), r.Slot)
		require.Equal(t, s.want, r.Result, "speculative result of %v at slot %d", s.cmd, r.Slot)
	}
	require.Zero(t, c.AppliedIndex(), "nothing applied: every result came from the log")

	commitAll(c)
	require.Equal(t, c.LastSlot(), c.AppliedIndex())
	got := map[kvs.Slot]kvs.Result{}
	for _, r := range syncReplies(c.out.take()) {
		got[r.Slot] = r.Result
	}
	require.Len(t, got, len(steps))
	for i, s := range steps {
		require.Equal(t, s.want, got[kvs.Slot(i+1)], "executed result of %v at slot %d", s.cmd, i+1)
	}
}

// TestSpeculationSeesPartlyAppliedWrites: the key's state is the applied
// store's with the unapplied writes on top: a CAS after an applied PUT and
// an unapplied INCR sees both.
func TestSpeculationSeesPartlyAppliedWrites(t *testing.T) {
	c := leaderWith(t, 3)
	require.Equal(t, kvs.Result{Version: 1}, proposeAtLeader(t, c, 1, putCmd(1, "10")).Result)
	commitAll(c)
	require.Equal(t, kvs.Slot(1), c.AppliedIndex())
	require.Equal(t, kvs.Value("11"), proposeAtLeader(t, c, 2, kvs.Command{Op: kvs.OpIncr, Key: key(1), Delta: 1}).Result.Value)
	r := proposeAtLeader(t, c, 3, kvs.Command{Op: kvs.OpCAS, Key: key(1), Expect: kvs.ExpectValue, ExpectValue: kvs.Value("10"), Value: kvs.Value("x")})
	require.Equal(t, kvs.Result{Value: kvs.Value("11"), Found: true, Version: 2}, r.Result, "the applied value is shadowed by the INCR")
	r = proposeAtLeader(t, c, 4, kvs.Command{Op: kvs.OpCAS, Key: key(1), Expect: kvs.ExpectValue, ExpectValue: kvs.Value("11"), Value: kvs.Value("x")})
	require.True(t, r.Result.Applied)
	commitAll(c)
	require.Equal(t, kvs.Value("x"), c.store.Get(key(1)).Value)
}

// TestSpeculativeWriteOk: PROTOCOL.md 3.5. A write's Ok needs no entry
// above the commit point on its key, whatever the write: a CAS, an INCR
// or a DELETE after an uncommitted write of its key, or inside the range
// of an uncommitted SCAN, is not Ok; on another key, or once the earlier
// entries committed, it is.
func TestSpeculativeWriteOk(t *testing.T) {
	for _, cmd := range []kvs.Command{
		{Op: kvs.OpCAS, Key: key(1), Expect: kvs.ExpectAbsent, Value: kvs.Value("v")},
		{Op: kvs.OpIncr, Key: key(1), Delta: 1},
		{Op: kvs.OpDelete, Key: key(1)},
	} {
		c := leaderWith(t, 3, 1)
		require.False(t, proposeAtLeader(t, c, 2, cmd).Ok, "%v after an uncommitted write of its key", cmd)
		other := cmd
		other.Key = key(2)
		require.True(t, proposeAtLeader(t, c, 3, other).Ok, "%v on another key", other)
		commitAll(c)
		require.True(t, proposeAtLeader(t, c, 4, cmd).Ok, "%v once the writes before committed", cmd)

		c = leaderWith(t, 3)
		proposeAtLeader(t, c, 1, rangeCmd(0, 5))
		require.False(t, proposeAtLeader(t, c, 2, cmd).Ok, "%v inside an uncommitted SCAN's range", cmd)
		beyond := cmd
		beyond.Key = key(5)
		require.True(t, proposeAtLeader(t, c, 3, beyond).Ok, "%v past an uncommitted SCAN's range", beyond)
	}
}

// TestSpeculationAgreesWithExecution: random INCRs, PUTs, DELETEs and
// CASes of two keys at a leader that commits, and so applies, a random
// prefix now and then. Every speculative result, computed over the
// unapplied writes (each key's state after its latest one kept, and the
// next write evaluated on top of it: Core.stateAfter), must be the result
// the command gets when it executes. Twenty seeds.
func TestSpeculationAgreesWithExecution(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 0))
		c := leaderWith(t, 3)
		want := map[kvs.Slot]kvs.Result{}
		executed := 0
		check := func() {
			for _, r := range syncReplies(c.out.take()) {
				require.Equal(t, want[r.Slot], r.Result, "seed %d: slot %d executed otherwise than speculated", seed, r.Slot)
				executed++
			}
		}
		values := []string{"1", "7", "x", "-3"}
		for i := range 300 {
			k := key(1 + rng.IntN(2))
			var cmd kvs.Command
			switch rng.IntN(6) {
			case 0, 1:
				cmd = kvs.Command{Op: kvs.OpIncr, Key: k, Delta: int64(rng.IntN(7) - 3)}
			case 2:
				cmd = kvs.Command{Op: kvs.OpPut, Key: k, Value: kvs.Value(values[rng.IntN(len(values))])}
			case 3:
				cmd = kvs.Command{Op: kvs.OpDelete, Key: k}
			case 4:
				cmd = kvs.Command{Op: kvs.OpCAS, Key: k, Expect: kvs.ExpectValue, ExpectValue: kvs.Value(values[rng.IntN(len(values))]), Value: kvs.Value("9")}
			default:
				cmd = kvs.Command{Op: kvs.OpCAS, Key: k, Expect: kvs.ExpectVersion, ExpectVersion: c.LastSlot() - kvs.Slot(rng.IntN(3)), Value: kvs.Value("5")}
			}
			r := proposeAtLeader(t, c, wire.Seq(i+1), cmd)
			want[r.Slot] = r.Result
			if rng.IntN(8) == 0 {
				match := c.LastSlot() - kvs.Slot(rng.IntN(int(c.LastSlot()-c.AppliedIndex())+1))
				require.NoError(t, c.StepReplica(1, &wire.AcceptAck{Ballot: c.Ballot(), Replica: 1, Success: true, MatchSlot: match}))
				check()
			}
		}
		commitAll(c)
		check()
		require.Len(t, want, 300)
		require.Equal(t, 300, executed, "seed %d: every command executed once", seed)
	}
}
