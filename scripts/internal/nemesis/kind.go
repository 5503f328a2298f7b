package nemesis

import (
	"fmt"
	"slices"
	"strings"
)

// Kind is a kind of fault.
type Kind string

// The kinds of fault. Restart is not a fault of its own: given with Kill,
// it brings each killed replica back after a drawn delay; without it a
// killed replica stays down for the rest of the run.
const (
	Kill      Kind = "kill"      // kill -9 a replica
	Restart   Kind = "restart"   // start a killed replica again
	Wipe      Kind = "wipe"      // kill -9 a replica, empty its data directory, start it again (durable only)
	Pause     Kind = "pause"     // SIGSTOP a replica, SIGCONT it later
	Partition Kind = "partition" // cut links through the netem proxies, heal them later
	CrashAll  Kind = "crash-all" // kill -9 every replica, start them all again (durable only)
	Client    Kind = "client"    // kill -9 a client process
)

// kinds are the known kinds, in the order a plan's header lists them.
var kinds = []Kind{Kill, Restart, Wipe, Pause, Partition, CrashAll, Client}

// FaultKinds are the kinds that are faults of their own (all but
// Restart), in the order a plan's header lists them.
func FaultKinds() []Kind {
	return slices.DeleteFunc(slices.Clone(kinds), func(k Kind) bool { return k == Restart })
}

// impairsReplica reports whether a fault of kind k takes one replica out
// (counted against f).
func (k Kind) impairsReplica() bool { return k == Kill || k == Wipe || k == Pause || k == Partition }

// Kinds is the set of kinds a nemesis draws from.
type Kinds []Kind

// ParseKinds reads a comma-separated list of kinds ("kill,pause,restart").
func ParseKinds(s string) (Kinds, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("no fault kind given (known: %s)", knownKinds())
	}
	var ks Kinds
	for _, w := range strings.Split(s, ",") {
		k := Kind(strings.TrimSpace(w))
		if !slices.Contains(kinds, k) {
			return nil, fmt.Errorf("unknown fault kind %q (known: %s)", w, knownKinds())
		}
		if slices.Contains(ks, k) {
			return nil, fmt.Errorf("fault kind %q is given twice", k)
		}
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b Kind) int { return slices.Index(kinds, a) - slices.Index(kinds, b) })
	return ks, nil
}

func knownKinds() string {
	s := make([]string, len(kinds))
	for i, k := range kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// Has reports whether k is among the kinds.
func (ks Kinds) Has(k Kind) bool { return slices.Contains(ks, k) }

func (ks Kinds) String() string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ",")
}

// faults are the kinds a draw picks from: every kind given but Restart,
// which only modifies Kill.
func (ks Kinds) faults() []Kind {
	var out []Kind
	for _, k := range ks {
		if k != Restart {
			out = append(out, k)
		}
	}
	return out
}

// Role is whom a replica fault takes, decided when the fault starts.
type Role string

// The roles.
const (
	Leader   Role = "leader"   // the replica that leads then
	Follower Role = "follower" // one of the others, by the fault's Pick
)

// Shape is the shape of a partition.
type Shape string

// The partition shapes.
const (
	// Isolate cuts one replica off from every other process, replicas
	// and clients.
	Isolate Shape = "isolate"
	// LeaderCut cuts the leader off from the other replicas only: the
	// clients still reach it.
	LeaderCut Shape = "leader-cut"
	// OneWay holds the bytes one replica sends another; the other
	// direction flows.
	OneWay Shape = "one-way"
	// Deaf holds what every other replica sends the leader; what it
	// sends, and its clients' traffic both ways, flow: it goes on
	// sending heartbeats nobody's answer reaches (check-quorum,
	// docs/DECISIONS.md 56).
	Deaf Shape = "deaf"
)

// Mode is how a cut link behaves (scripts/netem cut -mode).
type Mode string

// The modes.
const (
	// Hold: the connections stay up and go silent, and deliver what they
	// held at the heal, as TCP does across a partition.
	Hold Mode = "hold"
	// Close: the connections are closed and new ones refused until the
	// heal.
	Close Mode = "close"
)
