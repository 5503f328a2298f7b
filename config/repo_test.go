package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The file shipped at the repository root is the one users start from; it
// must load cleanly and say what its comments claim.
func TestRepoMultiClientConf(t *testing.T) {
	c, err := Load("../multi-client.conf")
	require.NoError(t, err)
	assert.Empty(t, c.Warnings)

	require.Equal(t, 3, c.N())
	for i, ip := range []string{"127.0.0.1", "127.0.0.2", "127.0.0.3"} {
		assert.Equal(t, ip, c.Replica(i).IP)
		assert.Equal(t, 7070+i, c.Replica(i).Port)
	}
	require.Len(t, c.Clients, 2)
	assert.Equal(t, "client0", c.Clients[0].Alias)
	assert.Equal(t, "127.0.0.4", c.Clients[0].IP)
	assert.Equal(t, "client1", c.Clients[1].Alias)
	assert.Equal(t, "127.0.0.5", c.Clients[1].IP)

	for client, replica := range map[string]int{"client0": 0, "client1": 1} {
		r, local, ok := c.BoundReplica(client)
		require.True(t, ok, client)
		assert.Equal(t, replica, r, client)
		assert.True(t, local, client)
	}

	assert.Equal(t, CURPHO, c.Protocol)
	assert.Equal(t, 500, c.MaxDescRoutines)
	assert.Equal(t, time.Duration(0), c.BatchDelay)
	assert.Equal(t, 15, c.Pendings)
	assert.True(t, c.Pipeline)
	assert.Equal(t, 2, c.ClientThreads)
	assert.Equal(t, 10000, c.Reqs)
	assert.Equal(t, 50, c.WeakRatio)
	assert.Equal(t, 10, c.WeakWrites)
	assert.Equal(t, 10, c.Writes)
	assert.Equal(t, int64(1000000), c.KeySpace)
	assert.Equal(t, 0.99, c.ZipfSkew)
	assert.Equal(t, 100, c.CommandSize)
	assert.Equal(t, time.Duration(0), c.NetworkDelay)
}

// scripts/restart.conf is the restart experiment's configuration: its run
// must outlast a kill at 5 s, a second down and 10 s to watch the rejoin,
// and it runs by time (runTime), not by a count of operations.
func TestRepoRestartConf(t *testing.T) {
	c, err := Load("../scripts/restart.conf")
	require.NoError(t, err)
	assert.Empty(t, c.Warnings)
	assert.GreaterOrEqual(t, c.RunTime, 16*time.Second)
	assert.Equal(t, 3, c.N())
}
