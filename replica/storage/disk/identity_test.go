package disk

import (
	"path/filepath"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/stretchr/testify/require"

	"swiftpaxos/replica/storage"
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
	require.NoError(t, s.Write([]*storage.Batch{{Seq: 1, Hard: &storage.HardState{Ballot: 3, Vote: 1, Member: true}}}))
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
	require.Equal(t, storage.HardState{Ballot: 3, Vote: 1, Member: true}, st.Hard, "the state is untouched")
	require.Empty(t, st.Entries)
	require.Empty(t, st.Records)
}

func TestClusterRoundTrip(t *testing.T) {
	got, model, err := decodeCluster(encodeCluster(testCluster))
	require.NoError(t, err)
	require.Equal(t, testCluster, got)
	require.Equal(t, DataModel, model)
	got, model, err = decodeCluster([]byte(`{"protocol":"curpho","replicas":["a","b"],"added_later":7}`))
	require.NoError(t, err, "a field of a later version is ignored")
	require.Equal(t, Cluster{Protocol: "curpho", Replicas: []string{"a", "b"}}, got)
	require.Equal(t, 1, model, "no data_model: data model 1")
	for _, bad := range []string{"", "{", `{"protocol":"curpht"}`, `{"replicas":["a"]}`, "\x01\x06curpht",
		`{"protocol":"curpht","replicas":["a"],"data_model":-1}`} {
		_, _, err := decodeCluster([]byte(bad))
		require.Error(t, err, "%q", bad)
	}
}

// A store of data model 1 is refused with a message that names its data
// model, whether it named its cluster (without a data model) or was
// written before stores named one; it is never read.
func TestOpenRefusesAnOlderDataModel(t *testing.T) {
	for _, unnamed := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "replica0")
		s, _, err := Open(dir, testCluster, nil)
		require.NoError(t, err)
		require.NoError(t, s.Write([]*storage.Batch{{Seq: 1, Hard: &storage.HardState{Ballot: 2, Vote: 0, Member: true}}}))
		if unnamed {
			require.NoError(t, s.db.Delete([]byte{prefixCluster}, pebble.Sync))
		} else {
			require.NoError(t, s.db.Set([]byte{prefixCluster}, []byte(`{"protocol":"curpht","replicas":["replica0","replica1","replica2"]}`), pebble.Sync))
		}
		require.NoError(t, s.Close())
		_, _, err = Open(dir, testCluster, nil)
		require.ErrorContains(t, err, "was written for data model 1 (64-bit integer keys", "unnamed %v", unnamed)
		require.ErrorContains(t, err, "this build stores data model 2")
	}
	// An empty store without a name is taken, as a new one is.
	dir := filepath.Join(t.TempDir(), "replica1")
	s, _, err := Open(dir, testCluster, nil)
	require.NoError(t, err)
	require.NoError(t, s.db.Delete([]byte{prefixCluster}, pebble.Sync))
	require.NoError(t, s.Close())
	s, _, err = Open(dir, testCluster, nil)
	require.NoError(t, err)
	require.NoError(t, s.Close())
}
