package replica

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// leaderWithLog is a leader that applied n puts of distinct keys with
// 100-byte values.
func leaderWithLog(t testing.TB, n int) *testCore {
	c := newTestCoreWith(t.(*testing.T), 0, 3, BasePolicy{})
	v := make(kvs.Value, 100)
	for i := range n {
		c.StepClient(7, &wire.Propose{Cmd: wire.CmdID{Client: 7, Seq: wire.Seq(i + 1)}, AckUpTo: wire.Seq(i),
			Command: kvs.Command{Op: kvs.OpPut, Key: key(i), Value: v}})
	}
	require.NoError(t, c.StepReplica(1, &wire.AcceptAck{Ballot: 0, Replica: 1, Success: true, MatchSlot: c.LastSlot()}))
	require.Equal(t, kvs.Slot(n), c.AppliedIndex())
	return c
}

// TestCompactionKeepsTheTail: a snapshot compacts the log behind it but
// keeps LogRetain entries, and a follower that needs a compacted slot gets
// the snapshot, then the log after it.
func TestCompactionKeepsTheTail(t *testing.T) {
	c := leaderWithLog(t, 300)
	c.o.LogRetain = 50
	c.takeSnapshot()
	require.Equal(t, kvs.Slot(250), c.entries.base)
	require.Equal(t, kvs.Slot(300), c.LastSlot())
	c.out.discard()
	c.sent[2] = 0
	c.flush()
	var snap *wire.InstallSnapshot
	for _, m := range c.out.peer() {
		if s, ok := m.(*wire.InstallSnapshot); ok {
			snap = s
		}
	}
	require.NotNil(t, snap, "the lagging follower gets the snapshot")
	require.Equal(t, kvs.Slot(300), snap.LastSlot)
	require.Len(t, snap.Sessions, 1)
}

// BenchmarkSnapshotPause is the event-loop pause a snapshot causes at a
// million keys of 100 B with a retained tail of 10,000 entries (issue 13
// asks for less than 5 ms): freezing the store's shards, copying the
// client table, and compacting the log.
func BenchmarkSnapshotPause(b *testing.B) {
	c := newTestCoreWith(&testing.T{}, 0, 3, BasePolicy{})
	v := make(kvs.Value, 100)
	for i := range 1_000_000 {
		c.store.Apply(kvs.Slot(i+1), kvs.Command{Op: kvs.OpPut, Key: key(i), Value: v})
	}
	for i := range 20_000 {
		c.StepClient(7, &wire.Propose{Cmd: wire.CmdID{Client: 7, Seq: wire.Seq(i + 1)}, AckUpTo: wire.Seq(i),
			Command: kvs.Command{Op: kvs.OpPut, Key: key(i), Value: v}})
	}
	c.commitIndex, c.appliedIndex = c.LastSlot(), c.LastSlot()
	c.o.LogRetain = 10_000
	b.StopTimer()
	b.ResetTimer()
	full := c.entries
	var longest time.Duration
	for range b.N {
		c.entries = raftLog{entries: append([]wire.Entry(nil), full.entries...)}
		// The copy above is the benchmark's own garbage; collecting it
		// first keeps the garbage collector's assist for it out of the
		// measured pause.
		runtime.GC()
		b.StartTimer()
		start := time.Now()
		c.takeSnapshot()
		longest = max(longest, time.Since(start))
		b.StopTimer()
	}
	b.ReportMetric(float64(longest.Microseconds())/1000, "max-ms")
}

// TestInstallKeepsAcknowledgedSuffix: a follower that already holds (and
// may have acknowledged) entries after the snapshot it is sent, agreeing
// with it at the snapshot's slot, keeps them: the leader counts them as
// held there, and would otherwise send from past the follower's log
// forever (found by the soak, curpho/expiry/n=5 seed 40660901708361).
func TestInstallKeepsAcknowledgedSuffix(t *testing.T) {
	c := leaderWithLog(t, 30)
	v := make(kvs.Value, 100)
	for i := 30; i < 35; i++ {
		c.StepClient(7, &wire.Propose{Cmd: wire.CmdID{Client: 7, Seq: wire.Seq(i + 1)}, AckUpTo: wire.Seq(i),
			Command: kvs.Command{Op: kvs.OpPut, Key: key(i), Value: v}})
	}
	f := newTestCoreWith(t, 2, 3, BasePolicy{})
	require.NoError(t, f.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, Entries: c.entries.slice(1, 35, 100)}))
	require.Equal(t, kvs.Slot(35), f.LastSlot())

	c.o.LogRetain = 1
	c.takeSnapshot()
	c.out.discard()
	c.sent[2] = 0
	c.flush()
	var snap *wire.InstallSnapshot
	for _, m := range c.out.peer() {
		if s, ok := m.(*wire.InstallSnapshot); ok {
			snap = s
		}
	}
	require.NotNil(t, snap)
	require.Equal(t, kvs.Slot(30), snap.LastSlot)
	require.True(t, snap.Done)
	require.NoError(t, f.StepReplica(0, snap))
	require.Equal(t, kvs.Slot(30), f.AppliedIndex(), "the snapshot is installed")
	require.Equal(t, kvs.Slot(35), f.LastSlot(), "the acknowledged entries after it stay")
	f.out.take()
	require.NoError(t, f.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, PrevSlot: 35, LeaderCommit: 35}))
	require.Equal(t, kvs.Slot(35), f.AppliedIndex(), "and commit and apply")
	ver := f.store.Get(key(34)).Version
	require.Equal(t, kvs.Slot(35), ver)
}

// TestTransferSplitsTheClientTable: a client table far larger than a chunk
// (held GET results carry their values) crosses in several chunks of
// bounded size, and the follower ends with the leader's whole table.
func TestTransferSplitsTheClientTable(t *testing.T) {
	c := leaderWithLog(t, 1)
	v := make(kvs.Value, 4<<10)
	c.StepClient(7, &wire.Propose{Cmd: wire.CmdID{Client: 7, Seq: 2}, AckUpTo: 1,
		Command: kvs.Command{Op: kvs.OpPut, Key: key(1), Value: v}})
	const clients = 100
	for cl := range wire.ClientID(clients) {
		// Never acknowledged, so each session holds its result and value.
		c.StepClient(100+cl, &wire.Propose{Cmd: wire.CmdID{Client: 100 + cl, Seq: 1},
			Command: kvs.Command{Op: kvs.OpGet, Key: key(1)}})
	}
	require.NoError(t, c.StepReplica(1, &wire.AcceptAck{Ballot: 0, Replica: 1, Success: true, MatchSlot: c.LastSlot()}))
	require.Equal(t, c.LastSlot(), c.AppliedIndex())
	c.o.LogRetain = 1
	c.takeSnapshot()
	require.Greater(t, len(c.snap.sessions), clients)

	f := newTestCoreWith(t, 2, 3, BasePolicy{})
	c.out.discard()
	c.sent[2] = 0
	c.flush()
	chunks := 0
	for {
		var snap *wire.InstallSnapshot
		for _, m := range c.out.peer() {
			if s, ok := m.(*wire.InstallSnapshot); ok {
				snap = s
			}
		}
		require.NotNil(t, snap, "chunk %d was not sent", chunks)
		chunks++
		require.LessOrEqual(t, len(wire.AppendFrame(nil, snap)), 2*snapshotChunkBytes, "chunk %d", snap.Chunk)
		require.NoError(t, f.StepReplica(0, snap))
		var ack *wire.InstallSnapshotAck
		for _, m := range f.out.peer() {
			if a, ok := m.(*wire.InstallSnapshotAck); ok {
				ack = a
			}
		}
		require.NotNil(t, ack)
		if snap.Done {
			break
		}
		require.NoError(t, c.StepReplica(2, ack))
	}
	require.Greater(t, chunks, 4, "the table crossed in one chunk")
	require.Equal(t, c.AppliedIndex(), f.AppliedIndex(), "the snapshot is installed")
	require.Equal(t, c.snap.sessions, f.snap.sessions, "the follower has the whole client table")
}
