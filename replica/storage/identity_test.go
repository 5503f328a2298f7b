package storage

import (
	"path/filepath"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"swiftpaxos/replica/wire"
)

// testCluster is the cluster the package's tests open stores for.
var testCluster = Cluster{Protocol: "curpht", Replicas: []string{"replica0", "replica1", "replica2"}}

// A store takes the cluster it is first opened for, keeps it across a
// restart, and refuses another, naming its directory and both, before it
// reads any of its state.
func TestOpenKeepsTheFirstCluster(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "replica0")
	s, _, err := Open(dir, testCluster, nil)
	require.NoError(t, err)
	require.NoError(t, s.Write([]*Batch{{Seq: 1, Hard: &HardState{Ballot: 3, Vote: 1, Member: true}}}))
	require.NoError(t, s.Close())

	for _, other := range []Cluster{
		{Protocol: "curpho", Replicas: testCluster.Replicas},
		{Protocol: "curpht", Replicas: []string{"replica0", "replica1", "replica2", "replica3", "replica4"}},
		{Protocol: "curpht", Replicas: []string{"replica1", "replica0", "replica2"}},
	} {
		_, _, err = Open(dir, other, nil)
		require.ErrorContains(t, err, dir+" holds the state of another cluster (protocol curpht, replicas replica0 replica1 replica2), not of this one ("+other.String()+")")
	}
	s, st, err := Open(dir, testCluster, nil)
	require.NoError(t, err, "its own cluster, after the refusals")
	defer s.Close()
	require.Equal(t, HardState{Ballot: 3, Vote: 1, Member: true}, st.Hard, "the state is untouched")
	require.Empty(t, st.Entries)
	require.Empty(t, st.Records)
}

func TestClusterRoundTrip(t *testing.T) {
	got, err := decodeCluster(encodeCluster(testCluster))
	require.NoError(t, err)
	require.Equal(t, testCluster, got)
	got, err = decodeCluster([]byte(`{"protocol":"curpho","replicas":["a","b"],"added_later":7}`))
	require.NoError(t, err, "a field of a later version is ignored")
	require.Equal(t, Cluster{Protocol: "curpho", Replicas: []string{"a", "b"}}, got)
	for _, bad := range []string{"", "{", `{"protocol":"curpht"}`, `{"replicas":["a"]}`, "\x01\x06curpht"} {
		_, err := decodeCluster([]byte(bad))
		require.Error(t, err, "%q", bad)
	}
}

// A store written before stores named their cluster is taken by the
// first cluster that opens it, with a warning.
func TestOpenTakesAnUnnamedStoreWithAWarning(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "replica0")
	s, _, err := Open(dir, testCluster, nil)
	require.NoError(t, err)
	require.NoError(t, s.Write([]*Batch{{Seq: 1, Hard: &HardState{Ballot: 2, Vote: 0, Member: true}}}))
	require.NoError(t, s.db.Delete([]byte{prefixCluster}, pebble.Sync))
	require.NoError(t, s.Close())

	core, logs := observer.New(zap.WarnLevel)
	other := Cluster{Protocol: "curpho", Replicas: testCluster.Replicas}
	s, st, err := Open(dir, other, zap.New(core))
	require.NoError(t, err)
	require.Equal(t, wire.Ballot(2), st.Hard.Ballot)
	require.Equal(t, 1, logs.FilterMessageSnippet("before stores named their cluster").Len())
	require.NoError(t, s.Close())
	_, _, err = Open(dir, testCluster, nil)
	require.ErrorContains(t, err, "not of this one", "it is the other cluster's now")
}
