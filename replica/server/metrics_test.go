package server

import (
	"path/filepath"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/storage"
	"swiftpaxos/replica/storage/disk"
)

// A durable replica's scrape has the fsyncs of its log, as a histogram
// whose count is the store's; an in-memory one has none.
func TestMetricsShowTheLogsFsyncs(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := newReplicaMetrics(reg, 3)
	fsyncs := func() *dto.Histogram {
		mfs, err := reg.Gather()
		require.NoError(t, err)
		for _, mf := range mfs {
			if mf.GetName() == "swiftpaxos_replica_log_fsync_seconds" {
				return mf.GetMetric()[0].GetHistogram()
			}
		}
		return nil
	}
	require.Nil(t, fsyncs(), "in memory")

	st, _, err := disk.Open(filepath.Join(t.TempDir(), "r"), testCluster, nil)
	require.NoError(t, err)
	defer st.Close()
	m.durable(st)
	for s := kvs.Slot(1); s <= 3; s++ {
		require.NoError(t, st.Write([]*storage.Batch{{Seq: uint64(s), Entries: entry(s)}}))
	}
	h := fsyncs()
	require.NotNil(t, h)
	want := st.Syncs()
	require.Equal(t, want.Count, h.GetSampleCount())
	require.GreaterOrEqual(t, h.GetSampleCount(), uint64(3), "one per synced write at least")
	require.InDelta(t, want.Total.Seconds(), h.GetSampleSum(), 1e-9)
	require.Len(t, h.GetBucket(), disk.SyncBuckets)
	for i, b := range h.GetBucket() {
		require.Equal(t, disk.SyncBound(i).Seconds(), b.GetUpperBound(), "bounds in seconds")
		require.Equal(t, want.Buckets[i], b.GetCumulativeCount())
	}
}
