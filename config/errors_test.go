package config

import (
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAcceptanceUnknownKeyOnLine7(t *testing.T) {
	_, err := parse("F", strings.NewReader(withHosts("pendingz: 15")), noDisk)
	got := issueStrings(t, err)
	require.Len(t, got, 1)
	assert.True(t, strings.HasPrefix(got[0], "F:7: "), got[0])
	assert.Contains(t, got[0], "pendingz")
}

// Each case is one mistake; the file must fail with exactly one issue that
// starts with prefix and names the key and the value (want).
func TestEveryErrorClass(t *testing.T) {
	type tc struct {
		name   string
		text   string
		prefix string
		want   []string
	}
	cases := []tc{
		{"unknown key", withHosts("pendingz: 15"), "f.conf:7: ", []string{`unknown key "pendingz"`}},
		{"unknown key keeps its spelling", withHosts("PendingZ: 15"), "f.conf:7: ", []string{`"PendingZ"`}},
		{"not an integer", withHosts("reqs: 10k"), "f.conf:7: ", []string{"reqs", `"10k"`, "not an integer"}},
		{"negative", withHosts("pendings: -3"), "f.conf:7: ", []string{"pendings: -3 is negative"}},
		{"negative keySpace", withHosts("keySpace: -1"), "f.conf:7: ", []string{"keySpace", "-1", "negative"}},
		{"negative replyTimeout", withHosts("replyTimeout: -1"), "f.conf:7: ", []string{"replyTimeout", "-1", "negative"}},
		{"negative networkDelay", withHosts("networkDelay: -5"), "f.conf:7: ", []string{"networkDelay", "-5", "negative"}},
		{"negative batchDelayUs", withHosts("batchDelayUs: -150"), "f.conf:7: ", []string{"batchDelayUs", "-150", "negative"}},
		{"zipfSkew not a number", withHosts("zipfSkew: abc"), "f.conf:7: ", []string{`zipfSkew: "abc" is not a number`}},
		{"zipfSkew NaN", withHosts("zipfSkew: NaN"), "f.conf:7: ", []string{"zipfSkew", `"nan"`, "not a number"}},
		{"zipfSkew negative", withHosts("zipfSkew: -0.5"), "f.conf:7: ", []string{"zipfSkew", "-0.5", "negative"}},
		{"metrics not an address", withHosts("metrics: 9400"), "f.conf:7: ", []string{"metrics", `"9400"`, "HOST:PORT"}},
		{"percent above 100", withHosts("weakRatio: 150"), "f.conf:7: ", []string{"weakRatio: 150 is out of range 0..100"}},
		{"percent below 0", withHosts("writes: -1"), "f.conf:7: ", []string{"writes", "-1", "0..100"}},
		{"scanRatio out of range", withHosts("scanRatio: 101"), "f.conf:7: ", []string{"scanRatio", "101", "0..100"}},
		{"commandSize zero", withHosts("commandSize: 0"), "f.conf:7: ", []string{"commandSize", "0", "1..15728640"}},
		{"commandSize over the default maxValueBytes", withHosts("commandSize: 1048577"), "f.conf:7: ", []string{"commandSize: 1048577", "maxValueBytes: 1048576"}},
		{"masterPort too big", withHosts("masterPort: 70000"), "f.conf:7: ", []string{"masterPort", "70000"}},
		{"not a boolean", withHosts("pipeline: yes"), "f.conf:7: ", []string{"pipeline", `"yes"`, "boolean"}},
		{"not a duration", withHosts("runTime: 5x"), "f.conf:7: ", []string{"runTime", `"5x"`, "duration"}},
		{"runTime zero", withHosts("runTime: 0s"), "f.conf:7: ", []string{"runTime: 0s: omit the key or write none for no time limit"}},
		{"runTime bare zero", withHosts("runTime: 0"), "f.conf:7: ", []string{"runTime: 0: omit the key or write none"}},
		{"protocol curp", hostsOnly("protocol: curp"), "f.conf:7: ", []string{"protocol", `"curp"`, "curpht, curpho"}},
		{"protocol raft", hostsOnly("protocol: raft"), "f.conf:7: ", []string{"protocol", `"raft"`, "supported"}},
		{"protocol epaxos", hostsOnly("protocol: epaxos"), "f.conf:7: ", []string{"protocol", `"epaxos"`, "supported"}},
		{"htWeakAck", withHosts("htWeakAck: late"), "f.conf:7: ", []string{"htWeakAck", `"late"`}},
		{"htWeakAck early is not implemented", withHosts("htWeakAck: early"), "f.conf:7: ", []string{"htWeakAck", `"early" is not implemented`}},
		{"heartbeat zero", withHosts("heartbeatMs: 0"), "f.conf:7: ", []string{"heartbeatMs", "0", "positive"}},
		{"retry not an int", withHosts("retryMs: 2s"), "f.conf:7: ", []string{"retryMs", `"2s"`}},
		{"election not a range", withHosts("electionTimeoutMs: 1000"), "f.conf:7: ", []string{"electionTimeoutMs", `"1000"`, "range"}},
		{"election min >= max", withHosts("electionTimeoutMs: 1500-500"), "f.conf:7: ", []string{"electionTimeoutMs", `"1500-500"`, "less than"}},
		{"election zero", withHosts("electionTimeoutMs: 0-500"), "f.conf:7: ", []string{"electionTimeoutMs", `"0-500"`, "positive"}},
		{"checkerMode", withHosts("checkerMode: on"), "f.conf:7: ", []string{"checkerMode", `"on"`}},
		{"trailing garbage", withHosts("pendings: 15 16"), "f.conf:7: ", []string{"pendings", `"16"`, `"15"`}},
		{"missing value", withHosts("pendings:"), "f.conf:7: ", []string{"pendings", "missing value"}},
		{"a comment for a value", withHosts("respPassword://x"), "f.conf:7: ", []string{"respPassword", "missing value"}},
		{"missing key", withHosts(": 5"), "f.conf:7: ", []string{"missing key"}},
		{"key given twice", withHosts("pendings: 1", "pendings: 2"), "f.conf:8: ", []string{"pendings", "line 7"}},
		{"check and checkerMode are one key", withHosts("check: true", "checkerMode: true"), "f.conf:8: ", []string{"checkerMode", "line 7"}},
		{"unknown key in a host section", strings.Join([]string{
			"-- Replicas --", "networkDelayy: 5", "replica0 127.0.0.1", "replica1 127.0.0.2", "replica2 127.0.0.3", "protocol: curpht",
		}, "\n"), "f.conf:2: ", []string{`unknown key "networkDelayy"`}},
		{"duplicate alias", withHosts("client0 127.0.0.8"), "f.conf:7: ", []string{`"client0"`, "line 6"}},
		{"duplicate alias across sections", withHosts("replica1 127.0.0.8"), "f.conf:7: ", []string{`"replica1"`, "line 3"}},
		{"duplicate address", withHosts("client1 127.0.0.1:7070"), "f.conf:7: ", []string{"client1", "127.0.0.1:7070", "replica0", "line 2"}},
		{"duplicate address via default port", strings.Join([]string{
			"-- Replicas --", "replica0 127.0.0.1:7071", "replica1 127.0.0.1", "replica2 127.0.0.3", "protocol: curpht",
		}, "\n"), "f.conf:3: ", []string{"replica1", "127.0.0.1:7071", "replica0"}},
		{"invalid IP", withHosts("client1 300.1.1.1"), "f.conf:7: ", []string{"client1", `"300.1.1.1"`, "invalid IP"}},
		{"host name is not an IP", withHosts("client1 localhost"), "f.conf:7: ", []string{"client1", `"localhost"`}},
		{"bad port", withHosts("client1 10.0.0.1:99999"), "f.conf:7: ", []string{"client1", "10.0.0.1:99999"}},
		{"host without IP", withHosts("client1"), "f.conf:7: ", []string{"client1", "missing IP"}},
		{"host with garbage", withHosts("client1 10.0.0.1 extra"), "f.conf:7: ", []string{"client1", `"extra"`}},
		{"proxy to unknown replica", withHosts("-- Proxy --", "server_alias replica7", "client0 (local)", "---"),
			"f.conf:8: ", []string{"server_alias", `"replica7"`}},
		{"proxy to a client", withHosts("-- Proxy --", "server_alias client0", "---"),
			"f.conf:8: ", []string{"server_alias", `"client0"`}},
		{"proxy unknown client", withHosts("-- Proxy --", "server_alias replica0", "client9 (local)", "---"),
			"f.conf:9: ", []string{`"client9"`, "not a client"}},
		{"proxy client before server_alias", withHosts("-- Proxy --", "client0 (local)", "---"),
			"f.conf:8: ", []string{`"client0"`, "server_alias"}},
		{"proxy client garbage", withHosts("-- Proxy --", "server_alias replica0", "client0 (remote)", "---"),
			"f.conf:9: ", []string{`"client0"`, `"(remote)"`}},
		{"proxy client bound twice", withHosts("-- Proxy --", "server_alias replica0", "client0", "server_alias replica1", "client0 (local)", "---"),
			"f.conf:11: ", []string{`"client0"`, "line 9"}},
		{"unknown section", withHosts("-- Servers --"), "f.conf:7: ", []string{`"-- Servers --"`}},
		{"apply to unknown alias", withHosts("-- Apply to client9 --", "pendings: 3"), "f.conf:7: ", []string{"client9"}},
		{"global key in apply to", withHosts("-- Apply to client0 --", "networkDelay: 5"), "f.conf:8: ", []string{"networkDelay", "client0"}},
		{"apply to key twice", withHosts("-- Apply to client0 --", "pendings: 3", "-- Apply to client0 --", "pendings: 4"),
			"f.conf:10: ", []string{"pendings", "line 8"}},
		{"stray line outside sections", withHosts("---", "hello world"), "f.conf:8: ", []string{`"hello world"`}},
		{"pipeline without window", withHosts("pipeline: true", "pendings: 0"), "f.conf:8: ", []string{"pendings", "0", "pipeline"}},
		{"pipeline without window in apply to", withHosts("pipeline: true", "-- Apply to client0 --", "pendings: 0"),
			"f.conf:9: ", []string{"pendings", "0", "client0"}},
		{"heartbeat slower than election", withHosts("heartbeatMs: 600"), "f.conf:7: ", []string{"heartbeatMs", "600", "500"}},
		{"heartbeat slower than the lease", withHosts("heartbeatMs: 375", "leaseReads: true"), "f.conf:7: ", []string{"heartbeatMs", "375", "three quarters", "leaseReads"}},
		{"scan without count", withHosts("scanRatio: 10"), "f.conf:7: ", []string{"scanRatio", "10", "scanCount"}},
		{"scan limit over the largest", withHosts("scanCount: 10001"), "f.conf:7: ", []string{"scanCount", "10001", "0..10000"}},
		{"key number negative", withHosts("key: -1"), "f.conf:7: ", []string{"key", "-1", "negative"}},
		{"key number the largest int64", withHosts("key: 9223372036854775807"), "f.conf:7: ", []string{"key", "9223372036854775807", "largest int64"}},
		{"deletes not a percentage", withHosts("deletes: 101"), "f.conf:7: ", []string{"deletes", "101", "0..100"}},
		{"rmw not a percentage", withHosts("rmw: -3"), "f.conf:7: ", []string{"rmw", "-3", "0..100"}},
		{"maxKeyBytes zero", withHosts("maxKeyBytes: 0"), "f.conf:7: ", []string{"maxKeyBytes", "0", "1..65536"}},
		{"maxKeyBytes over 64 KiB", withHosts("maxKeyBytes: 65537"), "f.conf:7: ", []string{"maxKeyBytes", "65537", "1..65536"}},
		{"maxValueBytes over the frame", withHosts("maxValueBytes: 15728641"), "f.conf:7: ", []string{"maxValueBytes", "15728641", "0..15728640"}},
		{"maxValueBytes in apply to", withHosts("-- Apply to client0 --", "maxValueBytes: 10"), "f.conf:8: ", []string{"maxValueBytes", "client0"}},
		{"commandSize over maxValueBytes", withHosts("maxValueBytes: 1000", "commandSize: 1001"), "f.conf:8: ",
			[]string{"commandSize: 1001", "maxValueBytes: 1000"}},
		{"tls in apply to", withHosts("-- Apply to client0 --", "tls: certs"), "f.conf:8: ", []string{"tls", "client0", "same value"}},
		{"tls without a directory", withHosts("tls:"), "f.conf:7: ", []string{"tls", "missing value"}},
		{"maxConns negative", withHosts("maxConns: -1"), "f.conf:7: ", []string{"maxConns", "-1", "negative"}},
		{"handshake timeout zero", withHosts("handshakeTimeoutMs: 0"), "f.conf:7: ", []string{"handshakeTimeoutMs", "0", "positive"}},
		{"idle timeout negative", withHosts("clientIdleTimeoutMs: -5"), "f.conf:7: ", []string{"clientIdleTimeoutMs", "-5", "negative"}},
		{"idle timeout in apply to", withHosts("-- Apply to client0 --", "clientIdleTimeoutMs: 9000"), "f.conf:8: ", []string{"clientIdleTimeoutMs", "client0"}},
		{"idle timeout shorter than two retries", withHosts("clientIdleTimeoutMs: 3000"), "f.conf:7: ", []string{"clientIdleTimeoutMs: 3000", "4000", "retryMs"}},
		{"idle timeout shorter than two read waits", withHosts("retryMs: 100", "readWaitMs: 5000", "clientIdleTimeoutMs: 9000"), "f.conf:9: ",
			[]string{"clientIdleTimeoutMs: 9000", "10000", "readWaitMs"}},
		{"session idle time shorter than two retries", withHosts("sessionIdleMs: 3000"), "f.conf:7: ", []string{"sessionIdleMs: 3000", "4000", "retryMs"}},
		{"session idle time zero", withHosts("sessionIdleMs: 0"), "f.conf:7: ", []string{"sessionIdleMs", "0", "positive"}},
		{"handshake timeout below the injected delay", withHosts("networkDelay: 3000"), "f.conf:7: ", []string{"handshakeTimeoutMs: 5000", "3000 ms"}},
		{"missing protocol", hostsOnly(), "f.conf: ", []string{"protocol", "curpht"}},
		{"even replica count", strings.Join([]string{
			"-- Replicas --", "replica0 10.0.0.1", "replica1 10.0.0.2", "replica2 10.0.0.3", "replica3 10.0.0.4", "protocol: curpho",
		}, "\n"), "f.conf: ", []string{"have 4", "odd"}},
		{"one replica", "-- Replicas --\nreplica0 10.0.0.1\nprotocol: curpho\n", "f.conf: ", []string{"have 1", "at least 3"}},
		{"no replicas", "-- Clients --\nclient0 10.0.0.1\nprotocol: curpho\n", "f.conf: ", []string{"no replicas"}},
		{"index gap", strings.Join([]string{
			"-- Replicas --", "replica0 10.0.0.1", "replica2 10.0.0.3", "replica3 10.0.0.4", "protocol: curpho",
		}, "\n"), "f.conf: ", []string{"index 1"}},
		{"alias without index", strings.Join([]string{
			"-- Replicas --", "replica0 10.0.0.1", "replica1 10.0.0.2", "replica2 10.0.0.3", "replicax 10.0.0.4", "protocol: curpho",
		}, "\n"), "f.conf:5: ", []string{`"replicax"`, "index"}},
		{"two aliases with one index", strings.Join([]string{
			"-- Replicas --", "replica0 10.0.0.1", "replica1 10.0.0.2", "replica2 10.0.0.3", "r1 10.0.0.4", "protocol: curpho",
		}, "\n"), "f.conf:5: ", []string{`"r1"`, `"replica1"`, "line 3"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseString(t, c.text)
			got := issueStrings(t, err)
			require.Len(t, got, 1, "issues: %q", got)
			assert.True(t, strings.HasPrefix(got[0], c.prefix), "%q does not start with %q", got[0], c.prefix)
			rest := strings.TrimPrefix(got[0], c.prefix)
			assert.NotEmpty(t, rest)
			assert.NotRegexp(t, `^\d`, rest, "line number where none was expected")
			for _, w := range c.want {
				assert.Contains(t, got[0], w)
			}
		})
	}
}

func TestEveryProblemIsReported(t *testing.T) {
	_, err := parseString(t, withHosts(
		"pendings: -3",    // 7
		"zipfSkew: abc",   // 8
		"weakRatio: 150",  // 9
		"client0 1.2.3.4", // 10: duplicate alias
	))
	got := issueStrings(t, err)
	assert.Equal(t, []string{
		"f.conf:7: pendings: -3 is negative",
		`f.conf:8: zipfSkew: "abc" is not a number`,
		"f.conf:9: weakRatio: 150 is out of range 0..100",
		`f.conf:10: duplicate alias "client0" (first at line 6)`,
	}, got)
}

func TestLineAndFileProblemsTogether(t *testing.T) {
	_, err := parseString(t, "-- Replicas --\nreplica0 10.0.0.1\nreplica1 10.0.0.2\npendingz: 1\nfoo: 2\n")
	got := issueStrings(t, err)
	require.Len(t, got, 4, "%q", got)
	assert.True(t, strings.HasPrefix(got[0], "f.conf:4: "))
	assert.True(t, strings.HasPrefix(got[1], "f.conf:5: "))
	assert.Contains(t, got[2], "have 2")
	assert.Contains(t, got[3], "protocol")
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load("does-not-exist.conf")
	var pe *os.PathError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), "does-not-exist.conf")
}

// A directory is no configuration file: it is said so, as for a missing
// file, instead of being parsed as a file of no lines.
func TestLoadDirectory(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(dir)
	var pe *os.PathError
	require.ErrorAs(t, err, &pe)
	assert.EqualError(t, err, "open "+dir+": is a directory, not a configuration file")
}

func TestLongLineIsAnError(t *testing.T) {
	text := withHosts("pendings: 1 // " + strings.Repeat("x", maxLine+1))
	_, err := parseString(t, text)
	got := issueStrings(t, err)
	assert.True(t, strings.HasPrefix(got[0], "f.conf:7: "), got[0])
}

// A file with a problem on every line (binary garbage) reports the first
// MaxIssues and counts the rest, and quotes no line at length.
func TestIssuesStopAfterTwenty(t *testing.T) {
	lines := []string{"---"} // line 7: out of the host sections
	for i := range 100 {
		lines = append(lines, fmt.Sprintf("garbage%d %s", i, strings.Repeat("x", 1000)))
	}
	_, err := parseString(t, withHosts(lines...))
	var es *Errors
	require.ErrorAs(t, err, &es)
	require.Len(t, es.Issues, MaxIssues)
	assert.Equal(t, 100-MaxIssues, es.More)
	text := strings.Split(err.Error(), "\n")
	require.Len(t, text, MaxIssues+1)
	assert.True(t, strings.HasPrefix(text[0], "f.conf:8: unexpected line"), text[0])
	assert.Equal(t, "and 80 more", text[MaxIssues])
	for _, l := range text {
		assert.Less(t, len(l), 300, "an issue quotes a whole line: %q", l)
	}
}

// A latency file's problems count towards the same limit.
func TestLatencyIssuesCountTowardsTheLimit(t *testing.T) {
	var lines []string
	for range 30 {
		lines = append(lines, "not a latency line at all")
	}
	lat := strings.Join(lines, "\n")
	open := func(string) (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(lat)), nil }
	_, err := parse("f.conf", strings.NewReader(withHosts("latencyFile: lat.txt", "pendingz: 1")), open)
	var es *Errors
	require.ErrorAs(t, err, &es)
	require.Len(t, es.Issues, MaxIssues)
	assert.Equal(t, 31-MaxIssues, es.More)
	assert.Contains(t, err.Error(), "and 11 more")
}
