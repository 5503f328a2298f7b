package config

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEveryKeyReachesItsField(t *testing.T) {
	c := mustParse(t, hostsOnly(
		"protocol: curpho",
		"masterPort: 9000",
		"maxDescRoutines: 200",
		"batchDelayUs: 150",
		"noop: true",
		"reqs: 12345",
		"runTime: 90s",
		"writes: 5",
		"weakRatio: 50",
		"weakWrites: 0",
		"conflicts: 2",
		"key: 42",
		"commandSize: 4096",
		"deletes: 10",
		"rmw: 20",
		"maxKeyBytes: 256",
		"maxValueBytes: 8192",
		"clientThreads: 8",
		"clones: 3",
		"pipeline: true",
		"pendings: 15",
		"syncs: 7",
		"keySpace: 10000000000",
		"zipfSkew: 0.99",
		"scanRatio: 20",
		"scanCount: 100",
		"replyTimeout: 30",
		"networkDelay: 25",
		"htWeakAck: commit",
		"heartbeatMs: 20",
		"electionTimeoutMs: 300-900",
		"retryMs: 1500",
		"readWaitMs: 700",
		"strongReads: Leader",
		"strongWrites: Leader",
		"witnessSyncMs: 2500",
		"snapshotEvery: 5000",
		"logRetain: 700",
		"sessionIdleMs: 60000",
		"checkerMode: true",
		"fast: true",
		"thrifty: false",
		"optread: false",
		"leaderless: false",
		"waitClosest: false",
		"tls: /etc/swiftpaxos/Certs",
		"dataDir: /var/lib/swiftpaxos",
		"maxConns: 100",
		"handshakeTimeoutMs: 250",
		"clientIdleTimeoutMs: 60000",
		"respPort: 6380",
		"respLevel: Weak",
		"respPassword: S3cret",
	))
	require.Len(t, c.Warnings, 1, "runTime overrides reqs")
	assert.Contains(t, c.Warnings[0].Msg, "reqs: 12345 is ignored")
	assert.Equal(t, Params{
		Protocol:           CURPHO,
		MasterPort:         9000,
		MaxDescRoutines:    200,
		BatchDelay:         150 * time.Microsecond,
		Noop:               true,
		Fast:               true,
		Reqs:               12345,
		RunTime:            90 * time.Second,
		Writes:             5,
		WeakRatio:          50,
		WeakWrites:         0,
		Conflicts:          2,
		Key:                42,
		CommandSize:        4096,
		Deletes:            10,
		RMW:                20,
		MaxKeyBytes:        256,
		MaxValueBytes:      8192,
		ClientThreads:      8,
		Clones:             3,
		Pipeline:           true,
		Pendings:           15,
		Syncs:              7,
		KeySpace:           10_000_000_000,
		ZipfSkew:           0.99,
		ScanRatio:          20,
		ScanCount:          100,
		ReplyTimeout:       30 * time.Second,
		NetworkDelay:       25 * time.Millisecond,
		HTWeakAck:          WeakAckCommit,
		Heartbeat:          20 * time.Millisecond,
		ElectionTimeoutMin: 300 * time.Millisecond,
		ElectionTimeoutMax: 900 * time.Millisecond,
		Retry:              1500 * time.Millisecond,
		ReadWait:           700 * time.Millisecond,
		StrongReads:        "leader",
		StrongWrites:       "leader",
		WitnessSync:        2500 * time.Millisecond,
		SnapshotEvery:      5000,
		LogRetain:          700,
		SessionIdle:        time.Minute,
		CheckerMode:        true,
		DataDir:            "/var/lib/swiftpaxos",
		TLS:                "/etc/swiftpaxos/Certs",
		MaxConns:           100,
		HandshakeTimeout:   250 * time.Millisecond,
		ClientIdleTimeout:  time.Minute,
		RESPPort:           6380,
		RESPLevel:          "weak",
		RESPPassword:       "S3cret",
	}, c.Params)
	assert.Equal(t, "/etc/swiftpaxos/Certs", c.TLSDir)
	assert.Equal(t, "/var/lib/swiftpaxos", c.DataPath)
}

func TestDefaults(t *testing.T) {
	c := mustParse(t, hostsOnly("protocol: curpht"))
	assert.Equal(t, Params{
		Protocol:           CURPHT,
		MasterPort:         7087,
		MaxDescRoutines:    500,
		Fast:               true,
		Reqs:               1000,
		CommandSize:        100,
		ClientThreads:      1, // clones (0) + 1
		Pendings:           1,
		ReplyTimeout:       10 * time.Second,
		HTWeakAck:          WeakAckCommit,
		Heartbeat:          50 * time.Millisecond,
		ElectionTimeoutMin: 500 * time.Millisecond,
		ElectionTimeoutMax: 1500 * time.Millisecond,
		Retry:              2 * time.Second,
		ReadWait:           time.Second,
		StrongReads:        "log",
		StrongWrites:       "witnesses",
		WitnessSync:        2 * time.Second,
		SnapshotEvery:      10_000,
		LogRetain:          10_000,
		SessionIdle:        5 * time.Minute,
		MaxConns:           4096,
		MaxKeyBytes:        1024,
		MaxValueBytes:      1 << 20,
		HandshakeTimeout:   5 * time.Second,
		ClientIdleTimeout:  5 * time.Minute,
		RESPLevel:          "strong",
	}, c.Params)
	assert.Nil(t, c.Latency)
	assert.Empty(t, c.TLSDir, "TLS is off by default")
	assert.Empty(t, c.DataPath, "replicas keep their state in memory by default")
}

// A relative dataDir is relative to the file, and survives For.
func TestDataDirIsRelativeToTheFile(t *testing.T) {
	c, err := parse("conf/f.conf", strings.NewReader(withHosts("dataDir: data", "-- Apply to replica1 --", "snapshotEvery: 9")), noDisk)
	require.NoError(t, err)
	assert.Equal(t, "conf/data", c.DataPath)
	assert.Equal(t, "conf/data", c.For("replica1").DataPath)
	_, err = parse("f.conf", strings.NewReader(withHosts("-- Apply to replica1 --", "dataDir: x")), noDisk)
	require.ErrorContains(t, err, "dataDir")
}

// A relative tls directory is relative to the file, as latencyFile is, and
// survives For even when the process has settings of its own.
func TestTLSDirIsRelativeToTheFile(t *testing.T) {
	c, err := parse("conf/f.conf", strings.NewReader(withHosts("tls: certs", "-- Apply to client0 --", "pendings: 3")), noDisk)
	require.NoError(t, err)
	assert.Equal(t, "certs", c.TLS)
	assert.Equal(t, "conf/certs", c.TLSDir)
	c.TLSDir = "/override"
	assert.Equal(t, "/override", c.For("client0").TLSDir)
	assert.Equal(t, 3, c.For("client0").Pendings)
}

func TestIdleTimeoutZeroMeansNever(t *testing.T) {
	c := mustParse(t, withHosts("clientIdleTimeoutMs: 0", "maxConns: 0"))
	assert.Equal(t, time.Duration(0), c.ClientIdleTimeout)
	assert.Equal(t, 0, c.MaxConns)
}

func TestZeroMeansDerivedValue(t *testing.T) {
	c := mustParse(t, withHosts("clientThreads: 0", "clones: 2", "replyTimeout: 0", "runTime: none", "weakWrites: 0", "weakRatio: 50"))
	assert.Equal(t, 3, c.ClientThreads)
	assert.Equal(t, 10*time.Second, c.ReplyTimeout)
	assert.Equal(t, time.Duration(0), c.RunTime)
	assert.Equal(t, 0, c.WeakWrites, "weakWrites 0 stays 0 (PROTOCOL.md 7.2 Δ)")

	c = mustParse(t, withHosts("clones: 4"))
	assert.Equal(t, 5, c.ClientThreads)
}

func TestCheckIsCheckerMode(t *testing.T) {
	c := mustParse(t, withHosts("check: true"))
	assert.True(t, c.CheckerMode)
}

func TestIgnoredSettingsWarn(t *testing.T) {
	c := mustParse(t, withHosts("fast: false", "thrifty: true", "optread: true", "leaderless: true", "waitClosest: true"))
	assert.True(t, c.Fast, "fast is forced on")
	require.Len(t, c.Warnings, 5)
	for i, w := range c.Warnings {
		assert.Equal(t, 7+i, w.Line)
		assert.True(t, strings.HasPrefix(w.String(), "f.conf:"), w.String())
	}
	assert.Contains(t, c.Warnings[0].Msg, "fast: false")
	assert.Contains(t, c.Warnings[1].Msg, "thrifty")
}

func TestFormatTolerance(t *testing.T) {
	c := mustParse(t, strings.Join([]string{
		"// a comment line",
		"   //indented comment without blank",
		"",
		"-- REPLICAS --",
		"Replica0 127.0.0.1   // trailing comment on a host",
		"REPLICA1\t127.0.0.2",
		"replica2 127.0.0.3\r",
		"--Clients--",
		"Client0 127.0.0.4",
		"---",
		"PROTOCOL:   CURPHO   // trailing comment",
		"Pipeline: TRUE",
		"pendings:15",
		"runTime: 1M30S",
	}, "\n"))
	assert.Equal(t, CURPHO, c.Protocol)
	assert.True(t, c.Pipeline)
	assert.Equal(t, 15, c.Pendings)
	assert.Equal(t, 90*time.Second, c.RunTime)
	i, ok := c.ReplicaIndex("REPLICA1")
	require.True(t, ok)
	assert.Equal(t, 1, i)
	assert.Equal(t, "replica0", c.Replica(0).Alias)
	_, ok = c.Lookup("CLIENT0")
	assert.True(t, ok)
}

func TestKnownKeyInHostSectionIsAKey(t *testing.T) {
	c := mustParse(t, strings.Join([]string{
		"-- Replicas --",
		"networkDelay: 5",
		"replica0 127.0.0.1",
		"replica1 127.0.0.2",
		"replica2 127.0.0.3",
		"protocol: curpht",
	}, "\n"))
	assert.Equal(t, 5*time.Millisecond, c.NetworkDelay)
	assert.Equal(t, 3, c.N())
}

func TestKeyTableNamesAreConsistent(t *testing.T) {
	// Messages use spec.name while lookup lower-cases; a canonical name
	// whose lower-case form is missing from the table would be unreachable.
	for k, s := range keyTable {
		assert.Equal(t, k, strings.ToLower(k))
		got, ok := lookupKey(s.name)
		require.True(t, ok, s.name)
		assert.Same(t, s, got)
	}
}
