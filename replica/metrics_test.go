package replica

import (
	"path/filepath"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/storage"
)

// A durable replica's scrape has the fsyncs of its log, as a histogram
// whose count is the store's; an in-memory one has none.
func TestMetricsShowTheLogsFsyncs(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := newReplicaMetrics(reg, 3)
	fsyncs := func() (uint64, bool) {
		mfs, err := reg.Gather()
		require.NoError(t, err)
		for _, mf := range mfs {
			if mf.GetName() == "swiftpaxos_replica_log_fsync_seconds" {
				return mf.GetMetric()[0].GetHistogram().GetSampleCount(), true
			}
		}
		return 0, false
	}
	_, shown := fsyncs()
	require.False(t, shown, "in memory")

	st, _, err := storage.Open(filepath.Join(t.TempDir(), "r"), nil)
	require.NoError(t, err)
	defer st.Close()
	m.durable(st)
	for s := kvs.Slot(1); s <= 3; s++ {
		require.NoError(t, st.Write([]*storage.Batch{{Seq: uint64(s), Entries: entry(s)}}))
	}
	n, shown := fsyncs()
	require.True(t, shown)
	require.Equal(t, st.Syncs().Count, n)
	require.GreaterOrEqual(t, n, uint64(3), "one per synced write at least")
}
