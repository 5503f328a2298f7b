package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLatencyUniform(t *testing.T) {
	l, err := ParseLatency("lat", strings.NewReader("// one RTT for all\nuniform 50ms\n"))
	require.NoError(t, err)
	assert.Equal(t, 25*time.Millisecond, l.OneWay("10.0.0.1", "10.0.0.2"))
	assert.Equal(t, 25*time.Millisecond, l.OneWay("10.0.0.2", "10.0.0.1"))
	assert.Equal(t, time.Duration(0), l.OneWay("10.0.0.1", "10.0.0.1"), "same IP is co-located")
	assert.Equal(t, time.Duration(0), l.OneWay("bogus", "10.0.0.1"))
	assert.Equal(t, 5*time.Millisecond, UniformLatency(10*time.Millisecond).OneWay("10.0.0.1", "10.0.0.2"))
	var none *Latency
	assert.Equal(t, time.Duration(0), none.OneWay("10.0.0.1", "10.0.0.2"))
}

func TestLatencyPairs(t *testing.T) {
	l, err := ParseLatency("lat", strings.NewReader(strings.Join([]string{
		"10.0.0.1 10.0.0.2 40      // bare number: milliseconds",
		"10.0.0.1 10.0.0.3 100ms",
		"10.0.0.2 ::ffff:10.0.0.3 0.5",
	}, "\n")))
	require.NoError(t, err)
	assert.Equal(t, 20*time.Millisecond, l.OneWay("10.0.0.1", "10.0.0.2"))
	assert.Equal(t, 20*time.Millisecond, l.OneWay("10.0.0.2", "10.0.0.1"), "symmetric")
	assert.Equal(t, 50*time.Millisecond, l.OneWay("10.0.0.3", "10.0.0.1"))
	assert.Equal(t, 250*time.Microsecond, l.OneWay("10.0.0.3", "10.0.0.2"))
	assert.Equal(t, time.Duration(0), l.OneWay("10.0.0.1", "10.0.0.9"), "unknown pair")
}

func TestLatencyErrors(t *testing.T) {
	cases := []struct {
		name, text, prefix string
		want               []string
	}{
		{"bad IP", "10.0.0.1 10.0.0.300 5ms", "lat:1: ", []string{`"10.0.0.300"`}},
		{"bad RTT", "10.0.0.1 10.0.0.2 fast", "lat:1: ", []string{`"fast"`}},
		{"negative RTT", "\n10.0.0.1 10.0.0.2 -5ms", "lat:2: ", []string{"-5ms", "negative"}},
		{"NaN RTT", "uniform nan", "lat:1: ", []string{`"nan"`}},
		{"same IP", "10.0.0.1 10.0.0.1 5", "lat:1: ", []string{"10.0.0.1"}},
		{"pair twice", "10.0.0.1 10.0.0.2 5\n10.0.0.2 10.0.0.1 6", "lat:2: ", []string{"twice", "line 1"}},
		{"uniform twice", "uniform 5ms\nuniform 6ms", "lat:2: ", []string{"twice", "line 1"}},
		{"uniform and pairs", "uniform 5ms\n10.0.0.1 10.0.0.2 5", "lat:2: ", []string{"uniform", "line 1", "line 2"}},
		{"uniform without RTT", "uniform", "lat:1: ", []string{"uniform"}},
		{"wrong shape", "10.0.0.1 5ms", "lat:1: ", []string{`"10.0.0.1 5ms"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseLatency("lat", strings.NewReader(tc.text))
			got := issueStrings(t, err)
			require.Len(t, got, 1, "%q", got)
			assert.True(t, strings.HasPrefix(got[0], tc.prefix), "%q does not start with %q", got[0], tc.prefix)
			for _, w := range tc.want {
				assert.Contains(t, got[0], w)
			}
		})
	}
}

// delayConf has client0 co-located with replica0, client1 bound to replica1
// without co-location, client2 co-located with replica0 too, and client3
// unbound.
func delayConf(extra ...string) string {
	return withHosts(append([]string{
		"client1 127.0.0.5",
		"client2 127.0.0.6",
		"client3 127.0.0.7",
		"-- Proxy --",
		"server_alias replica0",
		"client0 (local)",
		"client2 (local)",
		"server_alias replica1",
		"client1",
		"---",
	}, extra...)...)
}

func TestOneWayDelayFromNetworkDelay(t *testing.T) {
	c := mustParse(t, delayConf("networkDelay: 5"))
	d := 5 * time.Millisecond
	cases := []struct {
		from, to string
		want     time.Duration
	}{
		{"replica0", "replica1", d},
		{"replica1", "replica0", d},
		{"replica0", "replica0", 0},
		{"client0", "replica0", 0},
		{"replica0", "client0", 0},
		{"client0", "client2", 0}, // both on replica0's machine
		{"client0", "replica1", d},
		{"client1", "replica1", d}, // bound but not co-located
		{"client3", "replica2", d},
		{"client0", "nobody", 0},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, c.OneWayDelay(tc.from, tc.to), "%s -> %s", tc.from, tc.to)
	}
	assert.Equal(t, time.Duration(0), mustParse(t, delayConf()).OneWayDelay("replica0", "replica1"))
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

func TestLatencyFileRelativeToConfig(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "net/Lat.txt", strings.Join([]string{
		"127.0.0.1 127.0.0.2 40ms", // replica0 - replica1
		"127.0.0.4 127.0.0.2 30ms", // client0 - replica1
		"127.0.0.4 127.0.0.1 90ms", // client0 - replica0, but they are co-located
	}, "\n"))
	path := writeFile(t, dir, "conf/f.conf", delayConf("networkDelay: 5", "latencyFile: ../net/Lat.txt"))
	c, err := Load(path)
	require.NoError(t, err)
	require.NotNil(t, c.Latency)
	assert.Equal(t, "../net/Lat.txt", c.LatencyFile, "paths keep their case")
	assert.Equal(t, 20*time.Millisecond, c.OneWayDelay("replica0", "replica1"), "listed pair")
	assert.Equal(t, 15*time.Millisecond, c.OneWayDelay("replica1", "client0"), "listed pair")
	assert.Equal(t, time.Duration(0), c.OneWayDelay("client0", "replica0"), "co-location wins")
	assert.Equal(t, 5*time.Millisecond, c.OneWayDelay("replica0", "replica2"), "unlisted pair falls back to networkDelay")
}

func TestLatencyFileProblemsAreReported(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "lat.txt", "10.0.0.1 10.0.0.2 5\n10.0.0.1 bad 5\n")
	path := writeFile(t, dir, "f.conf", withHosts("latencyFile: lat.txt", "pendings: -1"))
	_, err := Load(path)
	got := issueStrings(t, err)
	require.Len(t, got, 2, "%q", got)
	assert.Equal(t, path+":8: pendings: -1 is negative", got[0])
	assert.True(t, strings.HasPrefix(got[1], filepath.Join(dir, "lat.txt")+":2: "), got[1])

	path = writeFile(t, dir, "g.conf", withHosts("latencyFile: missing.txt"))
	_, err = Load(path)
	got = issueStrings(t, err)
	require.Len(t, got, 1)
	assert.True(t, strings.HasPrefix(got[0], path+":7: latencyFile: "), got[0])
	assert.Contains(t, got[0], "missing.txt")
}

func TestLoadLatency(t *testing.T) {
	p := writeFile(t, t.TempDir(), "lat.txt", "uniform 8ms\n")
	l, err := LoadLatency(p)
	require.NoError(t, err)
	assert.Equal(t, 4*time.Millisecond, l.OneWay("1.1.1.1", "2.2.2.2"))
	_, err = LoadLatency(p + ".none")
	assert.Error(t, err)
}
