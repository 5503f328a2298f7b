package wire

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
)

// TestFillChunk: chunks carry the client table first, in pieces of
// bounded size, then the items; together they hold everything once, only
// the last says Done, and every frame stays near the budget.
func TestFillChunk(t *testing.T) {
	const budget = 4 << 10
	store := kvs.NewStore()
	for k := range 200 {
		store.Apply(kvs.Slot(k+1), kvs.Command{Op: kvs.OpPut, Key: kvs.Key(fmt.Sprintf("k%04d", k)), Value: make(kvs.Value, 100)})
	}
	var sessions []SessionState
	for c := range 100 {
		sessions = append(sessions, SessionState{Client: ClientID(c + 1), Floor: 3,
			Results: []SessionResult{{Seq: 4, Slot: 9, Result: kvs.Result{Value: make(kvs.Value, 200)}}}})
	}
	for _, tc := range []struct {
		name     string
		sessions []SessionState
		store    *kvs.Snapshot
	}{
		{"both", sessions, store.Snapshot()},
		{"empty", nil, kvs.NewStore().Snapshot()},
		{"sessions only", sessions, kvs.NewStore().Snapshot()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cur SnapshotCursor
			var gotSessions []SessionState
			items := 0
			for chunk := 0; ; chunk++ {
				require.Less(t, chunk, 1000, "no end")
				m := &InstallSnapshot{Chunk: uint32(chunk)}
				cur = FillChunk(m, tc.sessions, tc.store, cur, budget)
				require.LessOrEqual(t, len(AppendFrame(nil, m)), 2*budget, "chunk %d", chunk)
				gotSessions = append(gotSessions, m.Sessions...)
				if len(gotSessions) < len(tc.sessions) {
					require.Empty(t, m.Items, "items before the table is complete")
				}
				items += len(m.Items)
				if m.Done {
					break
				}
			}
			require.Equal(t, tc.sessions, gotSessions)
			require.Equal(t, tc.store.Keys(), items)
		})
	}
}
