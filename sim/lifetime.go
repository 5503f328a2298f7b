package sim

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"swiftpaxos/check"
	"swiftpaxos/kvs"
	"swiftpaxos/replica"
	"swiftpaxos/replica/storage"
	"swiftpaxos/wire"
)

// A replica's lifetimes: each start, at the beginning or after a crash,
// opens a new segment of its applied log, as a real replica opens a new
// applied-log file.

// segment is one stretch of a replica's applied log.
type segment struct {
	name    string
	entries []check.LogEntry
}

// startReplica starts replica i in a new lifetime: empty, or, in durable
// mode, with what its disk holds (its applied log then goes on after the
// snapshot's slot).
func (c *Cluster) startReplica(i int) error {
	o := c.o
	restart := c.started[i]
	c.newSegment(i)
	var restore *storage.State
	if o.Durable {
		st, err := c.diskState(i)
		if err != nil {
			return err
		}
		restore = st
	}
	core, err := replica.New(replica.Options{
		Durable: o.Durable, Restore: restore,
		ClusterNew: !o.StartExisting && !c.started[i] || c.claimNew[i],
		ID:         wire.ReplicaID(i), N: o.N, Policy: o.Protocol.Replica(),
		Now:           c.replicaClock(i),
		LeaseReads:    o.LeaseReads,
		Rand:          rand.New(rand.NewPCG(o.Seed, uint64(i)|uint64(c.lifetime[i])<<32)),
		Incarnation:   c.incarnation(i),
		Mutation:      o.Mutation,
		ReadWait:      o.ReadWait,
		SnapshotEvery: o.SnapshotEvery, LogRetain: o.LogRetain,
		SessionIdle: o.SessionIdle,
		DeferApply:  c.deferred[i],
		Executed:    func(e *wire.Entry, res kvs.Result) { c.recordExecuted(i, e, res) },
		Installed:   func(slot kvs.Slot) { c.Installs++; c.recordSnapshot(i, slot) },
	})
	if err != nil {
		return err
	}
	c.replicas[i] = core
	// A late replica's placeholder, never run, is no start.
	c.started[i] = c.started[i] || !c.dead[i]
	c.claimNew[i] = false
	if s := core.SnapshotSlot(); s > 0 {
		c.recordSnapshot(i, s)
	}
	if restore != nil && !restore.Empty() {
		c.FromDisk++
	}
	c.emptyLife[i] = restart && (restore == nil || restore.Empty())
	return nil
}

// newSegment opens a new applied-log segment for replica i: "replicaI"
// first, then "replicaI.K" for its K-th later one.
func (c *Cluster) newSegment(i int) {
	name := fmt.Sprintf("replica%d", i)
	if k := c.segs[i]; k > 0 {
		name = fmt.Sprintf("replica%d.%d", i, k)
	}
	c.segs[i]++
	c.current[i] = len(c.segments)
	c.segments = append(c.segments, segment{name: name})
}

// logs returns the applied-log segments by name, for the checker.
func (c *Cluster) logs() map[string][]check.LogEntry {
	out := make(map[string][]check.LogEntry, len(c.segments))
	for _, s := range c.segments {
		if len(s.entries) > 0 || !strings.Contains(s.name, ".") {
			out[s.name] = s.entries
		}
	}
	return out
}

// incarnation numbers replica i's current life: lives are 2^32 apart, as
// a wall clock's readings at two starts would be, unless the clock was set
// back (Faults.ClockBack), when a restart draws a number below its
// earlier life's from a stream of its own, which leaves the replica's
// schedule as it would be otherwise.
func (c *Cluster) incarnation(i int) uint64 {
	life := uint64(c.lifetime[i])
	if !c.o.Faults.ClockBack || life == 0 {
		return (life + 1) << 32
	}
	r := rand.New(rand.NewPCG(c.o.Seed^0xc10cbac, uint64(i)|life<<32))
	return 1 + r.Uint64N(life<<32-1)
}
