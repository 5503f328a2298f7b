package config

import (
	"net"
	"strconv"
	"time"

	"swiftpaxos/config/quorum"
)

// BaseReplicaPort is the port replica i listens on, plus i, unless its host
// line gives one (PROTOCOL.md 7.1).
const BaseReplicaPort = 7070

// Host is one process of the deployment.
type Host struct {
	Alias string // lower-case
	IP    string // canonical textual form
	Port  int    // 0 for a client that gave none: clients do not listen
	line  int
}

// Addr returns "ip:port" (with brackets for IPv6).
func (h Host) Addr() string { return net.JoinHostPort(h.IP, strconv.Itoa(h.Port)) }

// setting is one accepted key line, kept so For can rebuild the parameters
// of any process from the same lines in the same order.
type setting struct {
	spec  *keySpec
	value string
	line  int
}

// binding is one client line of the Proxy section.
type binding struct {
	server    string // replica alias, lower-case
	colocated bool
	line      int
}

// Config is a parsed and validated configuration file. Params holds the
// settings that apply to every process; For returns those of one process.
type Config struct {
	Params

	// Replicas are ordered by index: Replicas[i] has the alias ending in i.
	Replicas []Host
	// Clients are in file order.
	Clients []Host
	// Warnings are accepted but ignored settings ("fast: false", ...).
	Warnings []Issue
	// Latency is the model loaded from latencyFile, nil when none is set.
	Latency *Latency
	// TLSDir is the certificate directory of the key tls, relative to the
	// file's directory, or "" for plain TCP. It lives outside Params so that
	// a command-line override (swiftpaxos -tls) survives For.
	TLSDir string
	// DataPath is the directory of the key dataDir, relative to the file's
	// directory, or "" for in-memory replicas; replica ALIAS keeps its
	// files in DataPath/ALIAS. Outside Params for the same reason as
	// TLSDir (swiftpaxos -data).
	DataPath string

	file      string
	global    []setting
	perAlias  map[string][]setting
	applyLine map[string]int     // first "-- Apply to" header per alias
	proxy     map[string]binding // client alias -> its binding
	servers   []binding          // every server_alias line, for Validate
	// protocolLine records that a global protocol line exists, even one
	// with a rejected value, so a missing protocol is not reported twice.
	protocolLine bool
	// overrides are the command line's changes (Override), applied again
	// by For after it rebuilds a process's settings from the file.
	overrides []func(*Params)
}

// Override changes settings of c and of every view For returns: a
// command-line flag (-check, -threads, -protocol) outranks the file,
// "-- Apply to" blocks included. Setting a field of c.Params directly
// would be lost for a process that has such a block.
func (c *Config) Override(f func(*Params)) {
	f(&c.Params)
	c.overrides = append(c.overrides[:len(c.overrides):len(c.overrides)], f)
}

// N is the number of replicas, n = 2f+1.
func (c *Config) N() int { return len(c.Replicas) }

// F is the number of replica crashes tolerated.
func (c *Config) F() int { return quorum.F(c.N()) }

// Majority is M = f+1 (PROTOCOL.md 1.7).
func (c *Config) Majority() int { return quorum.Majority(c.N()) }

// SuperQuorum is the fast-path quorum Q = f + ceil(f/2) + 1, counting the
// leader (PROTOCOL.md 1.7).
func (c *Config) SuperQuorum() int { return quorum.Super(c.N()) }

// RecoveryThreshold is R = ceil(f/2) + 1: a recovering leader replays a
// witnessed request kept by at least R of the M responders (PROTOCOL.md 1.7).
func (c *Config) RecoveryThreshold() int { return quorum.Recovery(c.N()) }

// RESPAddr is the address replica i serves the Redis protocol on
// (respPort+i on its IP), and false when respPort is not set.
func (c *Config) RESPAddr(i int) (string, bool) {
	if c.RESPPort == 0 {
		return "", false
	}
	return net.JoinHostPort(c.Replicas[i].IP, strconv.Itoa(c.RESPPort+i)), true
}

// Replica returns the host of replica i; i must be in [0, N()).
func (c *Config) Replica(i int) Host { return c.Replicas[i] }

// ReplicaIndex returns the index of the replica with the given alias.
func (c *Config) ReplicaIndex(alias string) (int, bool) {
	a := lower(alias)
	for i, h := range c.Replicas {
		if h.Alias == a {
			return i, true
		}
	}
	return 0, false
}

// Lookup returns the replica or client with the given alias.
func (c *Config) Lookup(alias string) (Host, bool) {
	a := lower(alias)
	for _, hs := range [][]Host{c.Replicas, c.Clients} {
		for _, h := range hs {
			if h.Alias == a {
				return h, true
			}
		}
	}
	return Host{}, false
}

// BoundReplica returns the replica the Proxy section binds a client to and
// whether the two are co-located; ok is false for a client the section does
// not mention.
func (c *Config) BoundReplica(clientAlias string) (replica int, colocated bool, ok bool) {
	b, found := c.proxy[lower(clientAlias)]
	if !found {
		return 0, false, false
	}
	i, found := c.ReplicaIndex(b.server)
	if !found {
		return 0, false, false
	}
	return i, b.colocated, true
}

// For returns the configuration as seen by the process with the given
// alias: the global settings followed by those of its "-- Apply to" blocks,
// then the command line's (Override). An alias without such blocks gets a
// copy of c. The result shares c's host
// lists; neither may be modified.
func (c *Config) For(alias string) *Config {
	cp := *c
	if own := c.perAlias[lower(alias)]; len(own) > 0 {
		cp.Params, _ = build(c.global, own)
		for _, f := range c.overrides {
			f(&cp.Params)
		}
	}
	return &cp
}

// colocated reports whether the Proxy section puts a and b on one machine:
// a client with its "(local)" replica, or two clients local to the same one.
func (c *Config) colocated(a, b string) bool {
	ra, okA := c.localReplica(a)
	rb, okB := c.localReplica(b)
	return okA && okB && ra == rb
}

// localReplica is the replica alias sharing a machine with alias: the
// replica itself, or the replica a "(local)" client is bound to.
func (c *Config) localReplica(alias string) (string, bool) {
	if _, ok := c.ReplicaIndex(alias); ok {
		return alias, true
	}
	if b, ok := c.proxy[alias]; ok && b.colocated {
		return b.server, true
	}
	return "", false
}

// OneWayDelay is the synthetic delay to inject on a message from one
// process to another (PROTOCOL.md 7.3): zero for a process and itself and
// for co-located processes, else the latency file's delay for the two IPs
// when it lists them, else networkDelay. Unknown aliases get zero.
func (c *Config) OneWayDelay(fromAlias, toAlias string) time.Duration {
	from, okF := c.Lookup(fromAlias)
	to, okT := c.Lookup(toAlias)
	if !okF || !okT || from.Alias == to.Alias || c.colocated(from.Alias, to.Alias) {
		return 0
	}
	if d, ok := c.Latency.lookup(from.IP, to.IP); ok {
		return d
	}
	return c.NetworkDelay
}

// build applies settings in order onto the defaults. lines maps each
// canonical key name to the line that set it, for cross-key messages.
func build(lists ...[]setting) (Params, map[string]int) {
	p := Default()
	lines := map[string]int{}
	for _, list := range lists {
		for _, s := range list {
			// Every stored setting parsed once already; it cannot fail.
			_ = s.spec.set(&p, s.value)
			lines[s.spec.name] = s.line
		}
	}
	p.resolve()
	return p, lines
}
