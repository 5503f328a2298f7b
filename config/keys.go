package config

import (
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"swiftpaxos/kvs"
)

// keySpec describes one key of the file. The table below is the single list
// of accepted keys; anything else is an error (PROTOCOL.md 7.1 Δ).
type keySpec struct {
	name string // canonical spelling, used in every message
	// global keys must agree across all processes (a replica and a client
	// disagreeing on the protocol or the election timing cannot work), so
	// "-- Apply to <alias> --" may not override them.
	global bool
	// keepCase keys keep the value's case: lower-cased, a path would name
	// another file and a password refuse the one clients give. Every
	// other value is lower-cased, so that Weak and TRUE read as weak and
	// true.
	keepCase bool
	// set parses the value into p. Its error text follows "key: " and must
	// quote the offending value.
	set func(p *Params, v string) error
	// warn, when set, returns a warning about an accepted but ignored value.
	warn func(p *Params) string
}

var keyTable = map[string]*keySpec{}

func init() {
	specs := []*keySpec{
		{name: "protocol", global: true, set: setProtocol},
		{name: "masterPort", global: true, set: intIn(1, 65535, func(p *Params) *int { return &p.MasterPort })},
		{name: "maxDescRoutines", set: intIn(0, math.MaxInt, func(p *Params) *int { return &p.MaxDescRoutines })},
		{name: "batchDelayUs", set: durationIn(time.Microsecond, func(p *Params) *time.Duration { return &p.BatchDelay })},
		{name: "noop", global: true, set: boolean(func(p *Params) *bool { return &p.Noop })},
		{name: "thrifty", set: boolean(func(p *Params) *bool { return &p.Thrifty }), warn: ignoredIfTrue("thrifty", func(p *Params) bool { return p.Thrifty })},
		{name: "fast", set: boolean(func(p *Params) *bool { return &p.Fast }), warn: warnFast},
		{name: "optread", set: boolean(func(p *Params) *bool { return &p.OptRead }), warn: ignoredIfTrue("optread", func(p *Params) bool { return p.OptRead })},
		{name: "leaderless", set: boolean(func(p *Params) *bool { return &p.Leaderless }), warn: ignoredIfTrue("leaderless", func(p *Params) bool { return p.Leaderless })},
		{name: "waitClosest", set: boolean(func(p *Params) *bool { return &p.WaitClosest }), warn: ignoredIfTrue("waitClosest", func(p *Params) bool { return p.WaitClosest })},
		{name: "reqs", set: intIn(0, math.MaxInt, func(p *Params) *int { return &p.Reqs })},
		{name: "runTime", set: setRunTime},
		{name: "writes", set: percent(func(p *Params) *int { return &p.Writes })},
		{name: "weakRatio", set: percent(func(p *Params) *int { return &p.WeakRatio })},
		{name: "weakWrites", set: percent(func(p *Params) *int { return &p.WeakWrites })},
		{name: "conflicts", set: percent(func(p *Params) *int { return &p.Conflicts })},
		{name: "key", set: setKey},
		// At most maxValueBytes: checked with it (validate.go).
		{name: "commandSize", set: intIn(1, kvs.MaxValueLimit, func(p *Params) *int { return &p.CommandSize })},
		{name: "deletes", set: percent(func(p *Params) *int { return &p.Deletes })},
		{name: "rmw", set: percent(func(p *Params) *int { return &p.RMW })},
		{name: "clientThreads", set: intIn(0, math.MaxInt, func(p *Params) *int { return &p.ClientThreads })},
		{name: "clones", set: intIn(0, math.MaxInt, func(p *Params) *int { return &p.Clones })},
		{name: "pipeline", set: boolean(func(p *Params) *bool { return &p.Pipeline })},
		{name: "pendings", set: intIn(0, math.MaxInt, func(p *Params) *int { return &p.Pendings })},
		{name: "syncs", set: intIn(0, math.MaxInt, func(p *Params) *int { return &p.Syncs })},
		{name: "keySpace", set: setKeySpace},
		{name: "zipfSkew", set: setZipfSkew},
		{name: "scanRatio", set: percent(func(p *Params) *int { return &p.ScanRatio })},
		{name: "strongScanRatio", set: percent(func(p *Params) *int { return &p.StrongScanRatio })},
		{name: "scanCount", set: intIn(0, kvs.MaxScanLimit, func(p *Params) *int { return &p.ScanCount })},
		{name: "replyTimeout", set: durationIn(time.Second, func(p *Params) *time.Duration { return &p.ReplyTimeout })},
		{name: "networkDelay", global: true, set: durationIn(time.Millisecond, func(p *Params) *time.Duration { return &p.NetworkDelay })},
		{name: "htWeakAck", global: true, set: setWeakAck},
		{name: "heartbeatMs", global: true, set: positiveMs(func(p *Params) *time.Duration { return &p.Heartbeat })},
		{name: "electionTimeoutMs", global: true, set: setElectionTimeout},
		{name: "retryMs", set: positiveMs(func(p *Params) *time.Duration { return &p.Retry })},
		{name: "strongReads", set: oneOf("log", "leader", func(p *Params) *string { return &p.StrongReads })},
		{name: "leaseReads", global: true, set: boolean(func(p *Params) *bool { return &p.LeaseReads })},
		{name: "strongWrites", set: oneOf("witnesses", "leader", func(p *Params) *string { return &p.StrongWrites })},
		{name: "readWaitMs", set: positiveMs(func(p *Params) *time.Duration { return &p.ReadWait })},
		{name: "witnessSyncMs", global: true, set: positiveMs(func(p *Params) *time.Duration { return &p.WitnessSync })},
		{name: "snapshotEvery", set: intIn(1, math.MaxInt32, func(p *Params) *int { return &p.SnapshotEvery })},
		{name: "logRetain", set: intIn(1, math.MaxInt32, func(p *Params) *int { return &p.LogRetain })},
		// Any replica may become the leader that expires sessions.
		{name: "sessionIdleMs", global: true, set: positiveMs(func(p *Params) *time.Duration { return &p.SessionIdle })},
		{name: "checkerMode", global: true, set: boolean(func(p *Params) *bool { return &p.CheckerMode })},
		{name: "latencyFile", global: true, keepCase: true, set: func(p *Params, v string) error { p.LatencyFile = v; return nil }},
		// Durable or not is the cluster's choice: a replica in memory
		// next to durable ones would make a whole-cluster crash lose
		// what the others kept.
		{name: "dataDir", global: true, keepCase: true, set: func(p *Params, v string) error { p.DataDir = v; return nil }},
		// A client and a replica that disagreed on a bound would see
		// commands the client let through refused at the replica.
		{name: "maxKeyBytes", global: true, set: intIn(1, kvs.MaxKeyLimit, func(p *Params) *int { return &p.MaxKeyBytes })},
		{name: "maxValueBytes", global: true, set: intIn(0, kvs.MaxValueLimit, func(p *Params) *int { return &p.MaxValueBytes })},
		// Every process must agree on TLS: a plain and a TLS end cannot talk.
		{name: "metrics", set: setMetrics},
		{name: "tls", global: true, keepCase: true, set: func(p *Params, v string) error { p.TLS = v; return nil }},
		{name: "maxConns", set: intIn(0, math.MaxInt32, func(p *Params) *int { return &p.MaxConns })},
		{name: "handshakeTimeoutMs", set: positiveMs(func(p *Params) *time.Duration { return &p.HandshakeTimeout })},
		// The client closes its idle connections before the replica does
		// (client/session.go), so both must use the same value.
		{name: "clientIdleTimeoutMs", global: true, set: durationIn(time.Millisecond, func(p *Params) *time.Duration { return &p.ClientIdleTimeout })},
		// Every process derives each replica's RESP address from it
		// (swiftpaxos -run hosts lists them), so it is the cluster's.
		{name: "respPort", global: true, set: intIn(1, 65535, func(p *Params) *int { return &p.RESPPort })},
		{name: "respLevel", set: oneOf("strong", "weak", func(p *Params) *string { return &p.RESPLevel })},
		{name: "respPassword", keepCase: true, set: func(p *Params, v string) error { p.RESPPassword = v; return nil }},
	}
	for _, s := range specs {
		keyTable[strings.ToLower(s.name)] = s
	}
	// "check" is the reference's spelling; it is the same setting, so giving
	// both is a duplicate.
	keyTable["check"] = keyTable["checkermode"]
}

func lookupKey(k string) (*keySpec, bool) {
	s, ok := keyTable[strings.ToLower(k)]
	return s, ok
}

// parseInt accepts decimal integers only: hex or octal in a benchmark file
// is far more likely a typo than intent.
func parseInt(v string) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not an integer", v)
	}
	return n, nil
}

func intIn(lo, hi int, field func(*Params) *int) func(*Params, string) error {
	return func(p *Params, v string) error {
		n, err := parseInt(v)
		if err != nil {
			return err
		}
		if n < 0 && lo == 0 {
			return fmt.Errorf("%d is negative", n)
		}
		if n < int64(lo) || n > int64(hi) {
			return fmt.Errorf("%d is out of range %d..%d", n, lo, hi)
		}
		*field(p) = int(n)
		return nil
	}
}

func percent(field func(*Params) *int) func(*Params, string) error {
	return func(p *Params, v string) error {
		n, err := parseInt(v)
		if err != nil {
			return err
		}
		if n < 0 || n > 100 {
			return fmt.Errorf("%d is out of range 0..100", n)
		}
		*field(p) = int(n)
		return nil
	}
}

// durationIn parses a non-negative integer count of unit.
func durationIn(unit time.Duration, field func(*Params) *time.Duration) func(*Params, string) error {
	return func(p *Params, v string) error {
		n, err := parseInt(v)
		if err != nil {
			return err
		}
		if n < 0 {
			return fmt.Errorf("%d is negative", n)
		}
		if n > int64(math.MaxInt64/unit) {
			return fmt.Errorf("%d is too large", n)
		}
		*field(p) = time.Duration(n) * unit
		return nil
	}
}

func positiveMs(field func(*Params) *time.Duration) func(*Params, string) error {
	set := durationIn(time.Millisecond, field)
	return func(p *Params, v string) error {
		if err := set(p, v); err != nil {
			return err
		}
		if *field(p) == 0 {
			return fmt.Errorf("%s must be positive", v)
		}
		return nil
	}
}

func boolean(field func(*Params) *bool) func(*Params, string) error {
	return func(p *Params, v string) error {
		switch v {
		case "true":
			*field(p) = true
		case "false":
			*field(p) = false
		default:
			return fmt.Errorf("%q is not a boolean (true or false)", v)
		}
		return nil
	}
}

func setProtocol(p *Params, v string) error {
	for _, pr := range Protocols() {
		if Protocol(v) == pr {
			p.Protocol = pr
			return nil
		}
	}
	return fmt.Errorf("%q is not supported (supported: %s)", v, protocolList())
}

func protocolList() string {
	names := make([]string, 0, 2)
	for _, pr := range Protocols() {
		names = append(names, string(pr))
	}
	return strings.Join(names, ", ")
}

func setRunTime(p *Params, v string) error {
	if v == "none" {
		p.RunTime = 0
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("%q is not a duration (Go syntax such as 30s, or none)", v)
	}
	if d < 0 {
		return fmt.Errorf("%s is negative", v)
	}
	// A run of no time would end before its first operation; the
	// absence of a limit has its own spelling.
	if d == 0 {
		return fmt.Errorf("%s: omit the key or write none for no time limit", v)
	}
	p.RunTime = d
	return nil
}

// setKey takes the hot key's number, which bench.Keys turns into a
// decimal key: numbers are not negative.
func setKey(p *Params, v string) error {
	n, err := parseInt(v)
	if err != nil {
		return err
	}
	if n < 0 {
		return fmt.Errorf("%d is negative (a key number, 0 or more)", n)
	}
	if n == math.MaxInt64 {
		// The benchmark's key range ends at the number after the hot key.
		return fmt.Errorf("%d is the largest int64: a key number is less", n)
	}
	p.Key = n
	return nil
}

func setKeySpace(p *Params, v string) error {
	n, err := parseInt(v)
	if err != nil {
		return err
	}
	if n < 0 {
		return fmt.Errorf("%d is negative", n)
	}
	p.KeySpace = n
	return nil
}

func setZipfSkew(p *Params, v string) error {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("%q is not a number", v)
	}
	if f < 0 {
		return fmt.Errorf("%s is negative", v)
	}
	p.ZipfSkew = f
	return nil
}

// setWeakAck accepts only commit: the early-acknowledgement variant of
// PROTOCOL.md 4.8 is not implemented, and running commit under the name
// early would be a silent default.
func setWeakAck(p *Params, v string) error {
	switch WeakAck(v) {
	case WeakAckCommit:
		p.HTWeakAck = WeakAck(v)
		return nil
	case WeakAckEarly:
		return fmt.Errorf("%q is not implemented (PROTOCOL.md 4.8); use commit", v)
	}
	return fmt.Errorf("%q is not one of commit, early", v)
}

func setElectionTimeout(p *Params, v string) error {
	lo, hi, ok := strings.Cut(v, "-")
	if !ok {
		return fmt.Errorf("%q is not a range min-max (for example 500-1500)", v)
	}
	a, errA := strconv.ParseInt(lo, 10, 32)
	b, errB := strconv.ParseInt(hi, 10, 32)
	if errA != nil || errB != nil {
		return fmt.Errorf("%q is not a range min-max (for example 500-1500)", v)
	}
	if a <= 0 || b <= 0 {
		return fmt.Errorf("%q: both ends must be positive", v)
	}
	if a >= b {
		return fmt.Errorf("%q: min must be less than max", v)
	}
	p.ElectionTimeoutMin = time.Duration(a) * time.Millisecond
	p.ElectionTimeoutMax = time.Duration(b) * time.Millisecond
	return nil
}

func warnFast(p *Params) string {
	if p.Fast {
		return ""
	}
	return "fast: false is ignored: CURP-HT and CURP-HO always send strong proposals to every replica"
}

func ignoredIfTrue(name string, get func(*Params) bool) func(*Params) string {
	return func(p *Params) string {
		if !get(p) {
			return ""
		}
		return name + ": true is ignored: it applies only to other protocols"
	}
}

// oneOf takes one of two words, in any case, into a string field.
func oneOf(a, b string, field func(*Params) *string) func(*Params, string) error {
	return func(p *Params, v string) error {
		switch l := lower(v); l {
		case a, b:
			*field(p) = l
			return nil
		}
		return fmt.Errorf("want %s or %s, not %q", a, b, v)
	}
}

// setMetrics takes HOST:PORT or :PORT (loopback, metrics.Listen); the
// check is only of the form, the port is taken when the process starts.
func setMetrics(p *Params, v string) error {
	if _, _, err := net.SplitHostPort(v); err != nil {
		return fmt.Errorf("want HOST:PORT or :PORT, not %q", v)
	}
	p.Metrics = v
	return nil
}
