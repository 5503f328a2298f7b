package config

import (
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"time"
)

// Validate checks what no single line can: the replica set, addresses,
// Proxy and "-- Apply to" references, and settings that constrain each
// other, for the global settings and for every process's effective ones.
// It reports every problem it finds as an *Errors.
func (c *Config) Validate() error {
	var errs Errors
	c.validateReplicaSet(&errs)
	c.validateAddresses(&errs)
	c.validateReferences(&errs)
	c.validateParams(&errs)
	return errs.err()
}

func (c *Config) validateReplicaSet(errs *Errors) {
	n := c.N()
	switch {
	case n == 0:
		errs.add(c.file, 0, "no replicas: a -- Replicas -- section must list at least 3")
		return
	case n < 3 || n%2 == 0:
		errs.add(c.file, 0, "need an odd number of replicas, at least 3 (n = 2f+1), have %d", n)
	}
	// Replicas are sorted by index; every index 0..n-1 must be present so
	// that replica i is Replicas[i] in every process.
	next := 0
	for _, h := range c.Replicas {
		i, ok := aliasIndex(h.Alias)
		if !ok {
			errs.add(c.file, h.line, "replica alias %q does not end in its index (replica0, replica1, ...)", h.Alias)
			continue
		}
		switch {
		case i == next+1:
			errs.add(c.file, 0, "no replica with index %d (replica aliases must be numbered 0..n-1 without gaps)", next)
		case i > next:
			errs.add(c.file, 0, "no replicas with indices %d..%d (replica aliases must be numbered 0..n-1 without gaps)", next, i-1)
		}
		next = i + 1
	}
}

func (c *Config) validateAddresses(errs *Errors) {
	hosts := append(append([]Host(nil), c.Replicas...), c.Clients...)
	sort.SliceStable(hosts, func(a, b int) bool { return hosts[a].line < hosts[b].line })
	used := map[string]Host{}
	for _, h := range hosts {
		if _, err := netip.ParseAddr(h.IP); err != nil {
			errs.add(c.file, h.line, "host %q: invalid IP %q", h.Alias, h.IP)
			continue
		}
		if h.Port == 0 {
			continue // a client that does not listen
		}
		if other, dup := used[h.Addr()]; dup {
			errs.add(c.file, h.line, "host %q: address %s already used by %q (line %d)", h.Alias, h.Addr(), other.Alias, other.line)
			continue
		}
		used[h.Addr()] = h
	}
	c.validateRESP(errs, used)
}

// validateRESP checks the RESP addresses (respPort+i on replica i's IP):
// each a port, none another process's address.
func (c *Config) validateRESP(errs *Errors, used map[string]Host) {
	if c.RESPPort == 0 {
		return
	}
	_, lines := build(c.global)
	line := lines["respPort"]
	if last := c.RESPPort + c.N() - 1; last > 65535 {
		errs.add(c.file, line, "respPort: %d: replica %d would serve RESP on port %d, past 65535", c.RESPPort, c.N()-1, last)
		return
	}
	for i, r := range c.Replicas {
		addr, _ := c.RESPAddr(i)
		if other, dup := used[addr]; dup {
			errs.add(c.file, line, "respPort: %d: replica %q would serve RESP on %s, the address of %q (line %d)", c.RESPPort, r.Alias, addr, other.Alias, other.line)
		}
	}
}

func (c *Config) validateReferences(errs *Errors) {
	for _, s := range c.servers {
		if _, ok := c.ReplicaIndex(s.server); !ok {
			errs.add(c.file, s.line, "server_alias: %q is not a replica", s.server)
		}
	}
	clients := make([]string, 0, len(c.proxy))
	for a := range c.proxy {
		clients = append(clients, a)
	}
	sort.Slice(clients, func(i, j int) bool { return c.proxy[clients[i]].line < c.proxy[clients[j]].line })
	for _, a := range clients {
		if !c.isClient(a) {
			errs.add(c.file, c.proxy[a].line, "proxy client %q is not a client", a)
		}
	}
	for _, a := range c.applyAliases() {
		if _, ok := c.Lookup(a); !ok {
			errs.add(c.file, c.applyLine[a], "-- Apply to %s --: no replica or client has that alias", a)
		}
	}
}

func (c *Config) isClient(alias string) bool {
	for _, h := range c.Clients {
		if h.Alias == alias {
			return true
		}
	}
	return false
}

// applyAliases lists the aliases of "-- Apply to" blocks in file order.
func (c *Config) applyAliases() []string {
	as := make([]string, 0, len(c.applyLine))
	for a := range c.applyLine {
		as = append(as, a)
	}
	sort.Slice(as, func(i, j int) bool { return c.applyLine[as[i]] < c.applyLine[as[j]] })
	return as
}

func (c *Config) validateParams(errs *Errors) {
	// A protocol line with a bad value was reported where it stands.
	if c.Protocol == "" && !c.protocolLine {
		errs.add(c.file, 0, "protocol: not set (supported: %s)", protocolList())
	}
	_, lines := build(c.global)
	c.Warnings = append(c.Warnings, c.runLengthWarnings(c.Params, lines, "")...)
	globalLines := lines
	global := c.crossCheck(c.Params, lines)
	for _, is := range global {
		errs.push(is)
	}
	seen := global
	for _, a := range c.applyAliases() {
		p, lines := build(c.global, c.perAlias[a])
		if lines["reqs"] != globalLines["reqs"] || lines["runTime"] != globalLines["runTime"] {
			c.Warnings = append(c.Warnings, c.runLengthWarnings(p, lines, a)...)
		}
		for _, is := range c.crossCheck(p, lines) {
			if slices.Contains(seen, is) {
				continue
			}
			seen = append(seen, is)
			is.Msg += fmt.Sprintf(" (in the settings of %s)", a)
			errs.push(is)
		}
	}
}

// crossCheck reports settings that are each valid but not together. lines
// locates the keys involved; a key left at its default has no line.
func (c *Config) crossCheck(p Params, lines map[string]int) []Issue {
	var out []Issue
	at := func(keys ...string) int {
		for _, k := range keys {
			if l := lines[k]; l > 0 {
				return l
			}
		}
		return 0
	}
	add := func(line int, format string, args ...any) {
		out = append(out, Issue{File: c.file, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	if p.Pipeline && p.Pendings < 1 {
		add(at("pendings", "pipeline"), "pendings: %d must be at least 1 when pipeline is true", p.Pendings)
	}
	if p.Heartbeat >= p.ElectionTimeoutMin {
		add(at("heartbeatMs", "electionTimeoutMs"), "heartbeatMs: %d must be less than the electionTimeoutMs minimum %d",
			p.Heartbeat.Milliseconds(), p.ElectionTimeoutMin.Milliseconds())
	} else if p.LeaseReads && 4*p.Heartbeat >= 3*p.ElectionTimeoutMin {
		// The heartbeats renew the lease, which lasts three quarters of
		// the minimum (docs/DECISIONS.md 55).
		add(at("heartbeatMs", "leaseReads"), "heartbeatMs: %d must be less than three quarters of the electionTimeoutMs minimum %d with leaseReads: true (the heartbeats renew the lease)",
			p.Heartbeat.Milliseconds(), p.ElectionTimeoutMin.Milliseconds())
	}
	// How long a client thread runs: runTime when set, else reqs
	// operations (runLengthWarnings). With neither it would run none.
	if p.RunTime == 0 && p.Reqs == 0 {
		add(at("reqs", "runTime"), "reqs: 0 with runTime: none: a client thread would run no operation (set reqs above 0, or runTime to a duration such as 30s)")
	}
	if _, ok := p.RunOps(len(c.Clients)); !ok {
		add(at("reqs", "clientThreads", "clones"), "reqs: %d with clientThreads: %d and %d client processes is more operations than a run can count (2^63-1)",
			p.Reqs, p.ClientThreads, max(len(c.Clients), 1))
	}
	if p.StrongScanRatio > 0 && p.ScanCount < 1 {
		add(at("scanCount", "strongScanRatio"), "strongScanRatio: %d needs scanCount of at least 1, got %d", p.StrongScanRatio, p.ScanCount)
	}
	if p.ScanRatio > 0 && p.ScanCount < 1 {
		add(at("scanCount", "scanRatio"), "scanRatio: %d needs scanCount of at least 1, got %d", p.ScanRatio, p.ScanCount)
	}
	// A written value is at most maxValueBytes. (A SCAN's answer needs no
	// check: a replica bounds it in bytes and says that more exist.)
	if p.CommandSize > p.MaxValueBytes {
		add(at("commandSize", "maxValueBytes"), "commandSize: %d is more than maxValueBytes: %d, the longest value a replica accepts",
			p.CommandSize, p.MaxValueBytes)
	}
	// A Hello leaves after the emulated one-way delay to its replica; a
	// handshake timeout shorter than that would refuse every connection.
	if d := c.maxDelayToReplica(); p.HandshakeTimeout <= 2*d {
		add(at("handshakeTimeoutMs", "networkDelay", "latencyFile"), "handshakeTimeoutMs: %d must be more than twice the largest injected one-way delay to a replica (%d ms): a Hello is delayed by it",
			p.HandshakeTimeout.Milliseconds(), d.Milliseconds())
	}
	// A client closes a connection it has not used for half the idle time
	// (client/session.go); a reply it still waits for without re-sending
	// (a parked weak read, a retry period) must fit in that half.
	if wait := max(p.Retry, p.ReadWait); p.ClientIdleTimeout > 0 && p.ClientIdleTimeout < 2*wait {
		add(at("clientIdleTimeoutMs", "retryMs", "readWaitMs"), "clientIdleTimeoutMs: %d must be 0 (never) or at least twice the larger of retryMs and readWaitMs (%d)",
			p.ClientIdleTimeout.Milliseconds(), 2*wait.Milliseconds())
	}
	// A live session that waits for something re-sends it every retry
	// period, which the leader hears; only a longer silence is idleness.
	if p.SessionIdle < 2*p.Retry {
		add(at("sessionIdleMs", "retryMs"), "sessionIdleMs: %d must be at least twice retryMs (%d): a waiting session is heard from once a retry period",
			p.SessionIdle.Milliseconds(), 2*p.Retry.Milliseconds())
	}
	return out
}

// runLengthWarnings says that a reqs line is ignored when runTime is set:
// runTime takes precedence, so that a configuration can be made to run
// for a given time by adding one line. alias names the "-- Apply to"
// settings p comes from ("" for the global ones).
func (c *Config) runLengthWarnings(p Params, lines map[string]int, alias string) []Issue {
	line := lines["reqs"]
	if p.RunTime == 0 || line == 0 {
		return nil
	}
	msg := fmt.Sprintf("reqs: %d is ignored: runTime: %v sets how long each client thread runs", p.Reqs, p.RunTime)
	if alias != "" {
		msg += fmt.Sprintf(" (in the settings of %s)", alias)
	}
	return []Issue{{File: c.file, Line: line, Msg: msg}}
}

// maxDelayToReplica is the largest emulated one-way delay from any process
// to a replica (networkDelay, latencyFile).
func (c *Config) maxDelayToReplica() time.Duration {
	var d time.Duration
	for _, r := range c.Replicas {
		for _, hs := range [][]Host{c.Replicas, c.Clients} {
			for _, h := range hs {
				d = max(d, c.OneWayDelay(h.Alias, r.Alias))
			}
		}
	}
	return d
}
