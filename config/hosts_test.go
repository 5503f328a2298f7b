package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReplicasOrderedByIndexWithPorts(t *testing.T) {
	c := mustParse(t, strings.Join([]string{
		"-- Replicas --",
		"replica2 10.0.0.3",
		"replica0 10.0.0.1:9000",
		"replica1 [::1]:9001",
		"replica4 10.0.0.5",
		"replica3 ::ffff:10.0.0.4",
		"-- Clients --",
		"client0 10.0.0.9",
		"client1 10.0.0.9:6000",
		"---",
		"protocol: curpht",
	}, "\n"))
	require.Equal(t, 5, c.N())
	var addrs []string
	for i := 0; i < c.N(); i++ {
		addrs = append(addrs, c.Replica(i).Addr())
		j, ok := c.ReplicaIndex(c.Replica(i).Alias)
		require.True(t, ok)
		assert.Equal(t, i, j)
	}
	assert.Equal(t, []string{"10.0.0.1:9000", "[::1]:9001", "10.0.0.3:7072", "10.0.0.4:7073", "10.0.0.5:7074"}, addrs)
	assert.Equal(t, 0, c.Clients[0].Port, "clients do not listen unless told")
	assert.Equal(t, 6000, c.Clients[1].Port)
	_, ok := c.ReplicaIndex("client0")
	assert.False(t, ok)
}

func TestQuorumSizes(t *testing.T) {
	// PROTOCOL.md 1.7.
	cases := []struct{ n, f, m, q, r int }{
		{3, 1, 2, 3, 2},
		{5, 2, 3, 4, 2},
		{7, 3, 4, 6, 3},
		{9, 4, 5, 7, 3},
	}
	for _, tc := range cases {
		lines := []string{"-- Replicas --"}
		for i := 0; i < tc.n; i++ {
			lines = append(lines, "replica"+string(rune('0'+i))+" 10.0.0."+string(rune('1'+i)))
		}
		lines = append(lines, "protocol: curpht")
		c := mustParse(t, strings.Join(lines, "\n"))
		assert.Equal(t, tc.n, c.N())
		assert.Equal(t, tc.f, c.F(), "n=%d", tc.n)
		assert.Equal(t, tc.m, c.Majority(), "n=%d", tc.n)
		assert.Equal(t, tc.q, c.SuperQuorum(), "n=%d", tc.n)
		assert.Equal(t, tc.r, c.RecoveryThreshold(), "n=%d", tc.n)
		// For odd n the reference's floor(3n/4)+1 is the same size.
		assert.Equal(t, 3*tc.n/4+1, c.SuperQuorum(), "n=%d", tc.n)
	}
}

func TestProxyBindings(t *testing.T) {
	c := mustParse(t, withHosts(
		"client1 127.0.0.5",
		"client2 127.0.0.6",
		"client3 127.0.0.7",
		"-- Proxy --",
		"server_alias replica0",
		"client0 (local)",
		"client2 (LOCAL)",
		"server_alias Replica1  // comments work here too",
		"client1",
		"---",
	))
	type bound struct {
		replica       int
		colocated, ok bool
	}
	get := func(a string) bound {
		r, col, ok := c.BoundReplica(a)
		return bound{r, col, ok}
	}
	assert.Equal(t, bound{0, true, true}, get("client0"))
	assert.Equal(t, bound{0, true, true}, get("CLIENT2"))
	assert.Equal(t, bound{1, false, true}, get("client1"))
	assert.Equal(t, bound{0, false, false}, get("client3"), "unbound client")
	assert.Equal(t, bound{0, false, false}, get("nobody"))
}

func TestMasterSectionIsIgnored(t *testing.T) {
	c := mustParse(t, withHosts("-- Master --", "master0 127.0.0.1", "masterPort: 7087"))
	_, ok := c.Lookup("master0")
	assert.False(t, ok)
	assert.Equal(t, 7087, c.MasterPort)
	assert.Equal(t, 3, c.N())
}
