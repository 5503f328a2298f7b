package replica

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/wire"
)

// TestSyncForAnUnknownCommandGetsTheCommittedView: a leader whose view
// is committed answers a Sync for a command it does not hold with that
// view (a tainted CURP-HO session waits for one or the other), and
// nothing for a command it holds but has not applied yet.
func TestSyncForAnUnknownCommandGetsTheCommittedView(t *testing.T) {
	c := leaderWith(t, 3, 1)
	c.StepClient(9, &wire.Sync{Cmd: cmdID(7, 1)})
	require.Empty(t, msgsOf[*wire.NewView](c.out.take()), "the command is in the log, not applied yet")

	c.StepClient(9, &wire.Sync{Cmd: cmdID(8, 3)})
	views := msgsOf[*wire.NewView](c.out.take())
	require.Len(t, views, 1)
	require.True(t, views[0].Committed)
	require.Equal(t, c.Ballot(), views[0].Ballot)
}
