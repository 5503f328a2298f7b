package storage

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A store takes the first identity it is claimed with, keeps it across a
// restart, and refuses another, naming its directory and both.
func TestClaimKeepsTheFirstCluster(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "replica0")
	s, _, err := Open(dir, nil)
	require.NoError(t, err)
	require.NoError(t, s.Claim("curpht replica0,replica1,replica2"))
	require.NoError(t, s.Claim("curpht replica0,replica1,replica2"), "the same cluster again")
	require.NoError(t, s.Close())

	s, _, err = Open(dir, nil)
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Claim("curpht replica0,replica1,replica2"), "after a restart")
	err = s.Claim("curpho replica0,replica1,replica2")
	require.ErrorContains(t, err, dir)
	require.ErrorContains(t, err, "another cluster (curpht replica0,replica1,replica2), not of this one (curpho replica0,replica1,replica2)")
}

// Claiming does not disturb what the store holds.
func TestClaimLeavesTheStateAlone(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	s, _, err := Open(dir, nil)
	require.NoError(t, err)
	require.NoError(t, s.Write([]*Batch{{Seq: 1, Hard: &HardState{Ballot: 3, Vote: 1, Member: true}}}))
	require.NoError(t, s.Claim("x"))
	require.NoError(t, s.Close())
	s, st, err := Open(dir, nil)
	require.NoError(t, err)
	defer s.Close()
	require.Equal(t, HardState{Ballot: 3, Vote: 1, Member: true}, st.Hard)
	require.Empty(t, st.Entries)
	require.Empty(t, st.Records)
}
