package config

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestApplyToOverridesOneProcess(t *testing.T) {
	c := mustParse(t, withHosts(
		"client1 127.0.0.5",
		"---",
		"pendings: 15",
		"clones: 1",
		"-- Apply to Client1 --",
		"pendings: 5",
		"clones: 3",
		"-- Apply to replica2 --",
		"maxDescRoutines: 0",
		"---",
		"weakRatio: 30", // back to global scope
	))
	assert.Equal(t, 15, c.Pendings)
	assert.Equal(t, 2, c.ClientThreads)
	assert.Equal(t, 30, c.WeakRatio)

	c1 := c.For("CLIENT1")
	assert.Equal(t, 5, c1.Pendings)
	assert.Equal(t, 4, c1.ClientThreads, "clientThreads is derived from the effective clones")
	assert.Equal(t, 30, c1.WeakRatio, "a global key after the block applies to everyone")
	assert.Equal(t, c.Replicas, c1.Replicas)

	c0 := c.For("client0")
	assert.Equal(t, 15, c0.Pendings)
	assert.Equal(t, c.Params, c0.Params)

	r2 := c.For("replica2")
	assert.Equal(t, 0, r2.MaxDescRoutines)
	assert.Equal(t, 500, c.MaxDescRoutines)

	// For must not disturb its source.
	assert.Equal(t, 15, c.Pendings)
}

func TestApplyToBlockEndsAtNextHeader(t *testing.T) {
	c := mustParse(t, withHosts(
		"-- Apply to client0 --",
		"reqs: 10",
		"-- Clients --",
		"reqs: 20", // a key in a host section is global
	))
	assert.Equal(t, 20, c.Reqs)
	assert.Equal(t, 10, c.For("client0").Reqs)
	assert.Equal(t, 20, c.For("replica0").Reqs)
}

func TestApplyToMayRepeatAlias(t *testing.T) {
	c := mustParse(t, withHosts(
		"-- Apply to client0 --",
		"reqs: 10",
		"-- Apply to client0 --",
		"writes: 50",
	))
	c0 := c.For("client0")
	assert.Equal(t, 10, c0.Reqs)
	assert.Equal(t, 50, c0.Writes)
}

func TestApplyToWarnings(t *testing.T) {
	c := mustParse(t, withHosts("-- Apply to client0 --", "fast: false", "replyTimeout: 3"))
	require.Len(t, c.Warnings, 1)
	assert.Equal(t, 8, c.Warnings[0].Line)
	c0 := c.For("client0")
	assert.True(t, c0.Fast)
	assert.Equal(t, 3*time.Second, c0.ReplyTimeout)
}

// Command-line overrides outrank the file for every process, including one
// whose settings For rebuilds from its "-- Apply to" block.
func TestOverrideSurvivesFor(t *testing.T) {
	c := mustParse(t, withHosts("-- Apply to client0 --", "pendings: 3"))
	c.Override(func(p *Params) { p.CheckerMode, p.ClientThreads = true, 7 })
	for _, alias := range []string{"client0", "replica0"} {
		f := c.For(alias)
		assert.True(t, f.CheckerMode, alias)
		assert.Equal(t, 7, f.ClientThreads, alias)
	}
	assert.Equal(t, 3, c.For("client0").Pendings)
	assert.True(t, c.CheckerMode)
}

// TestRunTimeAndReqs: runTime takes precedence over reqs, with a warning
// on the reqs line; neither is an error.
func TestRunTimeAndReqs(t *testing.T) {
	c, err := parseString(t, withHosts("reqs: 500", "runTime: 30s"))
	require.NoError(t, err)
	assert.Equal(t, 30*time.Second, c.RunTime)
	require.Len(t, c.Warnings, 1)
	assert.Equal(t, 7, c.Warnings[0].Line)
	assert.Contains(t, c.Warnings[0].Msg, "reqs: 500 is ignored: runTime: 30s")

	c, err = parseString(t, withHosts("runTime: 2m"))
	require.NoError(t, err)
	assert.Empty(t, c.Warnings, "reqs left at its default is not worth a warning")

	c, err = parseString(t, withHosts("runTime: 10s", "-- Apply to client0 --", "reqs: 50"))
	require.NoError(t, err)
	require.Len(t, c.Warnings, 1)
	assert.Contains(t, c.Warnings[0].Msg, "(in the settings of client0)")

	_, err = parseString(t, withHosts("reqs: 0", "runTime: none"))
	require.ErrorContains(t, err, "f.conf:7: reqs: 0 with runTime: none: a client thread would run no operation")
	_, err = parseString(t, withHosts("reqs: 0", "runTime: 5s"))
	require.NoError(t, err)
}

// A run's operations are counted in 64 bits: reqs that would overflow
// the count is an error, unless runTime decides the length instead.
func TestReqsThatOverflowTheRun(t *testing.T) {
	_, err := parseString(t, withHosts("reqs: 9223372036854775807"))
	require.ErrorContains(t, err, "f.conf:7: reqs: 9223372036854775807 with clientThreads: 1 and 1 client processes is more operations than a run can count")
	_, err = parseString(t, withHosts("reqs: 4611686018427387904", "clientThreads: 2"))
	require.ErrorContains(t, err, "f.conf:7: reqs: 4611686018427387904 with clientThreads: 2")
	c, err := parseString(t, withHosts("reqs: 4611686018427387902", "clientThreads: 2"))
	require.NoError(t, err)
	n, ok := c.RunOps(len(c.Clients))
	assert.True(t, ok)
	assert.Equal(t, int64(math.MaxInt64-1), n)
	_, err = parseString(t, withHosts("reqs: 9223372036854775807", "runTime: 5s"))
	require.NoError(t, err)
}

// metrics is per process: each process of a host needs its own port.
func TestApplyToMetrics(t *testing.T) {
	c := mustParse(t, withHosts(
		"-- Apply to replica0 --",
		"metrics: :9400",
		"-- Apply to client0 --",
		"metrics: 127.0.0.4:9403",
	))
	assert.Equal(t, "", c.Metrics)
	assert.Equal(t, ":9400", c.For("replica0").Metrics)
	assert.Equal(t, "127.0.0.4:9403", c.For("client0").Metrics)
	assert.Equal(t, "", c.For("replica1").Metrics)
}
