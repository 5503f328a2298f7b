package bench

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOutageOf: every replica killed and restarted is a whole-cluster
// crash, timed from the first kill to the last restart; without
// histories the first operation after it comes from the timeline. One
// replica's restart alone is no outage.
func TestOutageOf(t *testing.T) {
	sum := &Summary{StartUnixMs: 10_000, Timeline: []int64{5, 5, 0, 0, 0, 3, 4}}
	evs := []EventJSON{
		{UnixMs: 12_000, S: 2, Event: "killed", Replica: "replica0"},
		{UnixMs: 12_010, S: 2.01, Event: "killed", Replica: "replica1"},
		{UnixMs: 12_020, S: 2.02, Event: "killed", Replica: "replica2"},
		{UnixMs: 14_000, S: 4, Event: "restarted", Replica: "replica0"},
		{UnixMs: 14_100, S: 4.1, Event: "restarted", Replica: "replica1"},
		{UnixMs: 14_200, S: 4.2, Event: "restarted", Replica: "replica2"},
	}
	o, err := outageOf(t.TempDir(), evs, 3, sum)
	require.NoError(t, err)
	require.NotNil(t, o)
	require.Equal(t, int64(12_000), o.KilledUnixMs)
	require.Equal(t, int64(14_200), o.RestartedUnixMs)
	require.InDelta(t, 2.2, o.DownS, 1e-9)
	require.Equal(t, "timeline", o.FirstOpFrom)
	require.InDelta(t, 0.8, *o.FirstOpAfterRestartS, 1e-9, "second 5 is the first with operations after the restart")

	o, err = outageOf(t.TempDir(), evs[:5], 3, sum)
	require.NoError(t, err)
	require.Nil(t, o, "one replica was never restarted")
}
