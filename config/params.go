package config

import (
	"math"
	"math/bits"
	"time"

	"swiftpaxos/kvs"
)

// Protocol names a replication protocol.
type Protocol string

// The protocols this implementation runs (PROTOCOL.md sections 4 and 5).
const (
	CURPHT Protocol = "curpht"
	CURPHO Protocol = "curpho"
)

// Protocols returns the supported protocol names, in the order error
// messages list them.
func Protocols() []Protocol { return []Protocol{CURPHT, CURPHO} }

// WeakAck selects when CURP-HT acknowledges a weak write (PROTOCOL.md 4.8).
type WeakAck string

const (
	// WeakAckCommit acknowledges a weak write once it is committed.
	WeakAckCommit WeakAck = "commit"
	// WeakAckEarly acknowledges a weak write once the leader has ordered it.
	WeakAckEarly WeakAck = "early"
)

// Params are the key: value settings of a configuration file (PROTOCOL.md
// section 7.2), already converted to typed values. The comment on each field
// names its key; Default lists every default.
type Params struct {
	Protocol        Protocol      // protocol; required
	MasterPort      int           // masterPort: legacy master RPC port
	MaxDescRoutines int           // maxDescRoutines: writers encoding at once (PROTOCOL.md 9.2, docs/DECISIONS.md 9)
	BatchDelay      time.Duration // batchDelayUs: replication batching delay (PROTOCOL.md 9.1)

	Noop        bool // noop: order commands without executing them
	Thrifty     bool // thrifty: EPaxos only, ignored
	Fast        bool // fast: always true here; a false in the file is a warning
	OptRead     bool // optread: other protocols only, ignored
	Leaderless  bool // leaderless: other protocols only, ignored
	WaitClosest bool // waitClosest: other protocols only, ignored

	Reqs          int           // reqs: operations per client thread, plus one warm-up
	RunTime       time.Duration // runTime: 0 means none
	Writes        int           // writes: % of strong operations that write
	WeakRatio     int           // weakRatio: % of operations that are weak
	WeakWrites    int           // weakWrites: % of weak operations that write
	Conflicts     int           // conflicts: % of operations on the hot key
	Key           int64         // key: the hot key's number (bench.Keys); not negative
	CommandSize   int           // commandSize: bytes per written value, at most maxValueBytes
	Deletes       int           // deletes: % of writes issued as DELETE
	RMW           int           // rmw: % of strong operations issued as CAS or INCR, half each
	ClientThreads int           // clientThreads: sessions per client process (0 in the file means clones+1)
	Clones        int           // clones: legacy thread count
	Pipeline      bool          // pipeline: several outstanding operations per thread
	Pendings      int           // pendings: pipelining window
	Syncs         int           // syncs: legacy, parsed and unused
	KeySpace      int64         // keySpace: distinct keys; 0 means private sequential keys
	ZipfSkew      float64       // zipfSkew: Zipf exponent; < 0.01 means uniform
	ScanRatio     int           // scanRatio: % of weak reads issued as SCAN
	// StrongScanRatio: % of strong reads issued as SCAN (strongScanRatio;
	// 0 by default, so that the default workload's draws are the same).
	StrongScanRatio int
	ScanCount       int           // scanCount: maximum SCAN limit (keys of a SCAN's range)
	ReplyTimeout    time.Duration // replyTimeout: seconds in the file; 0 there means 10 s
	NetworkDelay    time.Duration // networkDelay: milliseconds in the file; one-way injected delay

	HTWeakAck          WeakAck       // htWeakAck: commit | early
	Heartbeat          time.Duration // heartbeatMs
	ElectionTimeoutMin time.Duration // electionTimeoutMs: lower end of "min-max"
	ElectionTimeoutMax time.Duration // electionTimeoutMs: upper end of "min-max"
	Retry              time.Duration // retryMs: client retry interval
	ReadWait           time.Duration // readWaitMs: bound on the read-frontier wait
	StrongReads        string        // strongReads: "log" (to every replica, logged: CURP's fast path) or "leader" (the leader alone, docs/DECISIONS.md 46)
	LeaseReads         bool          // leaseReads: the leader answers leader reads at once under a lease (docs/DECISIONS.md 55)
	StrongWrites       string        // strongWrites: "witnesses" (to every replica: CURP's fast path) or "leader" (the leader alone, answered once committed, docs/DECISIONS.md 48)
	WitnessSync        time.Duration // witnessSyncMs: stale witness-record flush age
	SnapshotEvery      int           // snapshotEvery: applied entries between two snapshots
	LogRetain          int           // logRetain: log entries kept behind a snapshot for lagging peers
	SessionIdle        time.Duration // sessionIdleMs: the leader ends a session it has not heard from this long
	CheckerMode        bool          // checkerMode (synonym: check): unique values, history recording (PROTOCOL.md 2.6)
	LatencyFile        string        // latencyFile: per-pair latency matrix, relative to the config file
	DataDir            string        // dataDir: durable mode, each replica's files in DataDir/ALIAS; "" = in memory. Config.DataPath is the resolved path

	// The data model's bounds (PROTOCOL.md 1.2): every process must agree,
	// since a replica refuses a command a client thought valid.
	MaxKeyBytes   int // maxKeyBytes: longest key, 1..kvs.MaxKeyLimit
	MaxValueBytes int // maxValueBytes: longest value, 0..kvs.MaxValueLimit

	// Transport: authentication and the bounds on what a connection may hold.
	Metrics           string        // metrics: HOST:PORT or :PORT of the Prometheus endpoint (metrics/); "" = off
	TLS               string        // tls: directory of the certificates (config/certs); "" = plain TCP. Config.TLSDir is the resolved path
	MaxConns          int           // maxConns: incoming connections a replica keeps open at once; 0 = no limit
	HandshakeTimeout  time.Duration // handshakeTimeoutMs: time a new connection has for the TLS handshake and its Hello
	ClientIdleTimeout time.Duration // clientIdleTimeoutMs: a client connection silent both ways this long is closed; 0 = never

	// The Redis-protocol front-end (client/resp), off unless RESPPort is
	// set; its connections share maxConns, handshakeTimeoutMs and
	// clientIdleTimeoutMs with the replica's port.
	RESPPort     int    // respPort: replica i serves RESP on its IP at respPort+i; 0 = off
	RESPLevel    string // respLevel: a RESP connection's level until it says otherwise, "strong" or "weak"
	RESPPassword string // respPassword: the password AUTH must give before any other command; "" = none
}

// Default returns the value of every setting a file leaves out. It is the
// only place defaults live.
func Default() Params {
	return Params{
		MasterPort:         7087,
		MaxDescRoutines:    500,
		Fast:               true,
		Reqs:               1000,
		CommandSize:        100,
		Pendings:           1,
		ReplyTimeout:       10 * time.Second,
		HTWeakAck:          WeakAckCommit,
		Heartbeat:          50 * time.Millisecond,
		ElectionTimeoutMin: 500 * time.Millisecond,
		ElectionTimeoutMax: 1500 * time.Millisecond,
		Retry:              2000 * time.Millisecond,
		ReadWait:           1000 * time.Millisecond,
		StrongReads:        "log",
		StrongWrites:       "witnesses",
		WitnessSync:        2000 * time.Millisecond,
		SnapshotEvery:      10_000,
		LogRetain:          10_000,
		SessionIdle:        5 * time.Minute,
		MaxConns:           4096,
		HandshakeTimeout:   5 * time.Second,
		ClientIdleTimeout:  5 * time.Minute,
		MaxKeyBytes:        kvs.DefaultLimits.MaxKey,
		MaxValueBytes:      kvs.DefaultLimits.MaxValue,
		RESPLevel:          "strong",
	}
}

// Limits are the bounds on keys and values the settings give, which the
// client checks before it sends and a replica before it admits a command.
func (p *Params) Limits() kvs.Limits {
	return kvs.Limits{MaxKey: p.MaxKeyBytes, MaxValue: p.MaxValueBytes}
}

// resolve turns file-level conventions ("0 means ...") into the values the
// rest of the program uses, so no caller re-implements them.
func (p *Params) resolve() {
	if p.ClientThreads == 0 {
		p.ClientThreads = p.Clones + 1
	}
	if p.ReplyTimeout == 0 {
		p.ReplyTimeout = Default().ReplyTimeout
	}
	// Both protocols need the client to broadcast strong proposals to every
	// witness (PROTOCOL.md 7.2), so the legacy switch cannot turn it off.
	p.Fast = true
}

// RunOps is the number of operations a run of processes client processes
// issues when reqs decides its length (each thread's reqs plus its
// warm-up), and whether that count fits in an int64: the clients' and the
// launcher's counts of a run are 64-bit. Under runTime it is 0, true.
func (p *Params) RunOps(processes int) (int64, bool) {
	if p.RunTime > 0 {
		return 0, true
	}
	hi, perProcess := bits.Mul64(uint64(p.Reqs)+1, uint64(max(p.ClientThreads, 0)))
	hi2, total := bits.Mul64(perProcess, uint64(max(processes, 1)))
	if hi != 0 || hi2 != 0 || total > math.MaxInt64 {
		return 0, false
	}
	return int64(total), true
}
