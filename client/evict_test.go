package client_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/client"
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// TestEvictionDuringAWeakReadKeepsReadYourWrites: a session's own strong
// PUT of k completes (slot 100) and a weak read of k goes out, asking for
// the frontier of then, below 100. Before its answer comes, the cache
// fills and is evicted: k's entry goes, the frontier stands for it. The
// answer, from a replica that had not applied slot 100 yet, must not
// complete the read with the value before the session's own write
// (read-your-writes, PROTOCOL.md 2.3): it is asked again, for the
// frontier of now (docs/DECISIONS.md 42).
func TestEvictionDuringAWeakReadKeepsReadYourWrites(t *testing.T) {
	r := newRecorder(t)
	core := r.core
	put := core.Invoke(client.Op{Level: wire.Strong, Command: kvs.Command{Op: kvs.OpPut, Key: "k", Value: kvs.Value("mine")}})
	core.Step(0, &wire.SyncReply{Replica: 0, Cmd: wire.CmdID{Client: 5, Seq: put}, Slot: 100})
	read := core.Invoke(client.Op{Level: wire.Weak, Command: kvs.Command{Op: kvs.OpGet, Key: "k"}})
	to, m := r.lastRead(t)
	require.Less(t, m.MinSlot, kvs.Slot(100))

	// Reads of other keys fill the cache until it is evicted.
	for i := range 1<<14 + 1 {
		core.Invoke(client.Op{Level: wire.Weak, Command: kvs.Command{Op: kvs.OpGet, Key: kvs.Key("x" + strconv.Itoa(i))}})
		to2, m2 := r.lastRead(t)
		core.Step(to2, &wire.WeakReadReply{Replica: to2, Cmd: m2.Cmd, Attempt: m2.Attempt,
			Result: kvs.Result{Value: kvs.Value("v"), Found: true, Version: 50}, AppliedIndex: 60})
	}
	core.Step(to, &wire.WeakReadReply{Replica: to, Cmd: m.Cmd, Attempt: m.Attempt,
		Result: kvs.Result{Value: kvs.Value("old"), Found: true, Version: 40}, AppliedIndex: 60})
	for _, res := range r.completed() {
		if res.Seq == read {
			require.Equal(t, kvs.Value("mine"), res.Value, "the read returned a value older than the session's own write")
		}
	}
	to, again := r.lastRead(t)
	require.Equal(t, m.Cmd, again.Cmd, "the read is asked again")
	require.GreaterOrEqual(t, again.MinSlot, kvs.Slot(100), "with the frontier the eviction raised")
	core.Step(to, &wire.WeakReadReply{Replica: to, Cmd: again.Cmd, Attempt: again.Attempt,
		Result: kvs.Result{Value: kvs.Value("mine"), Found: true, Version: 100}, AppliedIndex: 100})
	res := r.completed()
	require.Equal(t, read, res[len(res)-1].Seq)
	require.Equal(t, kvs.Value("mine"), res[len(res)-1].Value)
}
