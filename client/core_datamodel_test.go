package client

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// commitPolicy acknowledges weak writes at commit, as CURP-HT does: a
// WeakReply gives the slot, and the write has not executed yet. Its own
// copy keeps these tests apart from the replica packages.
type commitPolicy struct{}

func (commitPolicy) SendWeakWrite(s *Core, p *Pending) {
	if p != nil {
		s.Send(s.Leader(), &wire.WeakPropose{Cmd: s.CmdID(p.Seq), Command: p.Op.Command, CausalDep: p.CausalDep, AckUpTo: s.AckUpTo()})
	}
}

func (commitPolicy) Handle(s *Core, _ wire.ReplicaID, m wire.Message) bool {
	r, ok := m.(*wire.WeakReply)
	if !ok {
		return false
	}
	if p := s.Lookup(r.Cmd); p != nil && r.Committed {
		s.SetCache(p.Op.Command, r.Slot, p.Seq)
		s.Complete(p, Result{Version: r.Slot, Slot: r.Slot, Path: PathWeak})
	}
	return true
}
func (commitPolicy) StrongWeakDep(*Core) wire.Seq { return 0 }
func (commitPolicy) FastPathAck(*Core, *Pending, *wire.LeaderReply, *wire.RecordAck) bool {
	return true
}
func (commitPolicy) StrongCompleted(*Core, *Pending, Result) {}
func (commitPolicy) Defer(*Core, *Pending) bool              { return false }
func (commitPolicy) Tick(*Core, time.Duration)               {}
func (commitPolicy) OldestUnconfirmed() wire.Seq             { return 0 }
func (commitPolicy) Abandon(*Core) []wire.Seq                { return nil }

// core is a session core on a fake network: replica 0 leads, replica 2
// answers weak reads.
type core struct {
	t *testing.T
	c *Core
}

func newTestCore(t *testing.T) *core {
	c, err := NewCore(Options{ID: 9, N: 3, Leader: 0, Nearest: 2, Policy: commitPolicy{}, Now: func() int64 { return 0 }, RetryAfter: time.Hour})
	require.NoError(t, err)
	return &core{t, c}
}

// strong runs a strong command that completes on the leader's SyncReply.
func (x *core) strong(cmd kvs.Command, res kvs.Result, slot kvs.Slot) Result {
	seq := x.c.Invoke(Op{Level: Strong, Command: cmd})
	x.c.Step(0, &wire.SyncReply{Replica: 0, Cmd: x.c.CmdID(seq), Result: res, Slot: slot})
	return x.one()
}

// weakWrite runs a weak write the leader commits at slot.
func (x *core) weakWrite(cmd kvs.Command, slot kvs.Slot) Result {
	seq := x.c.Invoke(Op{Level: Weak, Command: cmd})
	x.c.Step(0, &wire.WeakReply{Replica: 0, Cmd: x.c.CmdID(seq), Slot: slot, Committed: true})
	return x.one()
}

// weakRead runs a weak read that replica 2 answers with res at applied.
func (x *core) weakRead(cmd kvs.Command, res kvs.Result, applied kvs.Slot) Result {
	seq := x.c.Invoke(Op{Level: Weak, Command: cmd})
	x.c.Step(2, &wire.WeakReadReply{Replica: 2, Cmd: x.c.CmdID(seq), Result: res, AppliedIndex: applied})
	return x.one()
}

func (x *core) one() Result {
	x.t.Helper()
	done := x.c.Ready().Completed
	require.Len(x.t, done, 1)
	return done[0]
}

func item(k string, v string, ver kvs.Slot) kvs.Item {
	return kvs.Item{Key: kvs.Key(k), Value: kvs.Value(v), Found: true, Version: ver}
}

// A weak DELETE is acknowledged before it executes: its result does not
// say whether the key existed (Known false), while a strong one does.
func TestDeleteExistedKnownOnlyWhenStrong(t *testing.T) {
	x := newTestCore(t)
	r := x.weakWrite(kvs.Command{Op: kvs.OpDelete, Key: "a"}, 5)
	assert.False(t, r.Known)
	assert.Equal(t, kvs.Slot(5), r.Version)
	r = x.strong(kvs.Command{Op: kvs.OpDelete, Key: "b"}, kvs.Result{Found: true, Version: 6}, 6)
	assert.True(t, r.Known)
	assert.True(t, r.Found, "b existed")
}

// A deleted key is cached absent with the DELETE's version: a weak GET
// answered by a replica that has not applied the DELETE finds nothing.
func TestDeleteIsCachedAbsent(t *testing.T) {
	x := newTestCore(t)
	x.weakWrite(kvs.Command{Op: kvs.OpDelete, Key: "a"}, 7)
	r := x.weakRead(kvs.Command{Op: kvs.OpGet, Key: "a"}, kvs.Result{Value: kvs.Value("old"), Found: true, Version: 3}, 4)
	assert.True(t, r.Known)
	assert.False(t, r.Found)
	assert.Nil(t, r.Value)
	assert.Equal(t, kvs.Slot(7), r.Version)
	// A newer write the replica applied wins over the cached absence.
	r = x.weakRead(kvs.Command{Op: kvs.OpGet, Key: "a"}, kvs.Result{Value: kvs.Value("new"), Found: true, Version: 9}, 9)
	assert.True(t, r.Found)
	assert.Equal(t, "new", string(r.Value))
}

// An empty value is a value: it is cached as found.
func TestEmptyValueIsFound(t *testing.T) {
	x := newTestCore(t)
	x.strong(kvs.Command{Op: kvs.OpPut, Key: "e", Value: kvs.Value{}}, kvs.Result{Version: 4}, 4)
	r := x.weakRead(kvs.Command{Op: kvs.OpGet, Key: "e"}, kvs.Result{Version: 2}, 3)
	assert.True(t, r.Found)
	assert.Empty(t, r.Value)
	assert.Equal(t, kvs.Slot(4), r.Version)
}

// A weak SCAN merges the cache over the part of the range the answer
// covered: the session's newer writes add and replace keys, its newer
// DELETEs remove them, and a key past the answer's last item (More) is
// left alone.
func TestWeakScanMergesCoveredPart(t *testing.T) {
	x := newTestCore(t)
	x.weakWrite(kvs.Command{Op: kvs.OpPut, Key: "b", Value: kvs.Value("own-b")}, 10)
	x.weakWrite(kvs.Command{Op: kvs.OpDelete, Key: "c"}, 11)
	x.weakWrite(kvs.Command{Op: kvs.OpPut, Key: "z", Value: kvs.Value("own-z")}, 12)
	scan := kvs.Command{Op: kvs.OpScan, Key: "a", End: "", Limit: 3}
	ans := kvs.Result{Items: []kvs.Item{item("a", "va", 2), item("c", "vc", 3), item("d", "vd", 4)}, More: true, Version: 4}
	r := x.weakRead(scan, ans, 9)
	assert.True(t, r.Known)
	assert.Equal(t, []kvs.Item{item("a", "va", 2), item("b", "own-b", 10), item("d", "vd", 4)}, r.Items,
		"b added, c deleted by the session; z lies past the covered part")
	assert.True(t, r.More)
	assert.Equal(t, kvs.Slot(10), r.Version)
}

// Merged items over the limit are cut to it, and More says so.
func TestWeakScanMergeKeepsTheLimit(t *testing.T) {
	x := newTestCore(t)
	x.weakWrite(kvs.Command{Op: kvs.OpPut, Key: "b", Value: kvs.Value("own-b")}, 10)
	scan := kvs.Command{Op: kvs.OpScan, Key: "a", End: "z", Limit: 2}
	r := x.weakRead(scan, kvs.Result{Items: []kvs.Item{item("a", "va", 2), item("c", "vc", 3)}}, 9)
	assert.Equal(t, []kvs.Item{item("a", "va", 2), item("b", "own-b", 10)}, r.Items)
	assert.True(t, r.More)
}

// A key the answer covers and does not list was absent at the replica's
// applied index: an older cached value of it gives way, and the frontier
// rises to that index, so that a later read cannot find the value from
// before the DELETE the answer reflects.
func TestWeakScanUnlistedKeyIsAbsent(t *testing.T) {
	x := newTestCore(t)
	x.strong(kvs.Command{Op: kvs.OpGet, Key: "b"}, kvs.Result{Value: kvs.Value("vb"), Found: true, Version: 3}, 0)
	scan := kvs.Command{Op: kvs.OpScan, Key: "a", End: "c", Limit: 10}
	r := x.weakRead(scan, kvs.Result{}, 20)
	assert.Empty(t, r.Items)
	assert.False(t, r.More)
	assert.Equal(t, kvs.Slot(20), x.c.readFrontier())
	seq := x.c.Invoke(Op{Level: Weak, Command: kvs.Command{Op: kvs.OpGet, Key: "b"}})
	msgs := x.c.Ready().Messages
	require.NotEmpty(t, msgs)
	wr, ok := msgs[len(msgs)-1].Msg.(*wire.WeakRead)
	require.True(t, ok)
	assert.Equal(t, x.c.CmdID(seq), wr.Cmd)
	assert.Equal(t, kvs.Slot(20), wr.MinSlot)
}

// A CAS that applied is the session's own write; one that did not read
// the key. INCR's error is an outcome, not a failure.
func TestCASAndIncrResults(t *testing.T) {
	x := newTestCore(t)
	cas := kvs.Command{Op: kvs.OpCAS, Key: "l", Expect: kvs.ExpectAbsent, Value: kvs.Value("me")}
	r := x.strong(cas, kvs.Result{Applied: true, Value: kvs.Value("me"), Found: true, Version: 5}, 5)
	assert.True(t, r.Applied)
	g := x.weakRead(kvs.Command{Op: kvs.OpGet, Key: "l"}, kvs.Result{Version: 0}, 1)
	assert.Equal(t, "me", string(g.Value), "the CAS's write is cached")
	r = x.strong(kvs.Command{Op: kvs.OpIncr, Key: "l", Delta: 1}, kvs.Result{Value: kvs.Value("me"), Found: true, Version: 5, Err: kvs.ErrNotInteger}, 6)
	assert.NoError(t, r.Err)
	assert.False(t, r.Applied)
	assert.ErrorIs(t, r.Code.Error(), kvs.ErrValueNotInteger)
	r = x.strong(kvs.Command{Op: kvs.OpIncr, Key: "n", Delta: 2}, kvs.Result{Value: kvs.Value("2"), Found: true, Version: 7}, 7)
	assert.True(t, r.Applied)
}

// Op.Validate refuses, before anything is sent, a weak CAS or INCR and a
// command over the configured limits.
func TestValidateLevelsAndLimits(t *testing.T) {
	l := kvs.Limits{MaxKey: 4, MaxValue: 8}
	for _, c := range []kvs.Command{
		{Op: kvs.OpCAS, Key: "k", Expect: kvs.ExpectAbsent},
		{Op: kvs.OpIncr, Key: "k", Delta: 1},
	} {
		err := Op{Level: Weak, Command: c}.Validate(l)
		assert.True(t, errors.Is(err, ErrStrongOnly), "%v: %v", c, err)
		assert.True(t, errors.Is(err, kvs.ErrInvalidCommand))
		assert.NoError(t, Op{Level: Strong, Command: c}.Validate(l))
	}
	for _, lv := range []Level{Strong, Weak} {
		for _, c := range []kvs.Command{
			{Op: kvs.OpGet, Key: "k"}, {Op: kvs.OpPut, Key: "k", Value: kvs.Value("")},
			{Op: kvs.OpDelete, Key: "k"}, {Op: kvs.OpScan, Key: "a", End: "b", Limit: 1},
		} {
			assert.NoError(t, Op{Level: lv, Command: c}.Validate(l), "%v %v", lv, c)
		}
	}
	for c, want := range map[*kvs.Command]string{
		{Op: kvs.OpGet, Key: "toolong"}: "over maxKeyBytes 4",
		{Op: kvs.OpGet}:                 "an empty key",
		{Op: kvs.OpPut, Key: "k", Value: kvs.Value("123456789")}: "over maxValueBytes 8",
		{Op: kvs.OpScan, Key: "b", End: "a", Limit: 1}:           "before the start",
		{Op: kvs.OpNoop}: "a session runs",
	} {
		assert.ErrorContains(t, Op{Level: Strong, Command: *c}.Validate(l), want)
	}
}
