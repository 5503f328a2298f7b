package sim

import (
	"fmt"
	"time"

	"swiftpaxos/wire"
)

func (c *Cluster) run() error {
	tick := int64(c.o.Tick)
	for i := range c.replicas {
		c.schedule(&event{at: c.rng.Int64N(tick) + 1, kind: evTickReplica, idx: i})
		if c.deferred[i] {
			c.schedule(&event{at: c.rng.Int64N(int64(c.o.Faults.ApplyLag)) + 1, kind: evApply, idx: i})
		}
	}
	for i, s := range c.sessions {
		c.schedule(&event{at: c.rng.Int64N(tick) + 1, kind: evTickClient, idx: i})
		for range min(c.o.Workload.Pendings, c.o.Workload.Ops) {
			c.schedule(&event{at: c.rng.Int64N(tick), kind: evInvoke, idx: i})
			s.invokes++
		}
	}
	for r, late := range c.late {
		if !late {
			continue
		}
		for i := range c.sessions {
			c.schedule(&event{at: 1, kind: evReplicaDown, idx: i, peer: r})
		}
		c.schedule(&event{at: 1 + c.rng.Int64N(int64(c.o.Faults.LateWithin)), kind: evFault, idx: faultRestart, peer: r})
	}
	deadline := int64(c.o.Deadline)
	// A brand-new cluster bootstraps once every replica has answered, or
	// a majority started with -cluster new (docs/DECISIONS.md 21 and 37):
	// crashes and partitions start after that.
	for !c.bootstrapped() {
		if c.q.Len() == 0 || c.q[0].at > deadline {
			return fmt.Errorf("the cluster did not bootstrap: %s", c.progress())
		}
		e := c.q.pop()
		c.now = e.at
		if err := c.handle(e, false); err != nil {
			return err
		}
	}
	start := c.now
	for range c.o.Faults.Crashes {
		c.schedule(&event{at: start + 1 + c.rng.Int64N(int64(c.o.Faults.CrashWithin)), kind: evFault, idx: faultCrash})
	}
	within := c.o.Faults.CrashWithin
	if within <= 0 {
		within = time.Second
	}
	for range c.o.Faults.CrashAlls {
		c.schedule(&event{at: start + 1 + c.rng.Int64N(int64(c.o.Faults.CrashWithin)), kind: evFault, idx: faultCrashAll})
	}
	for range c.o.Faults.ClientCrashes {
		c.schedule(&event{at: start + 1 + c.rng.Int64N(int64(within)), kind: evFault, idx: faultCrashClient})
	}
	if c.o.Faults.PartitionEvery > 0 {
		c.schedule(&event{at: start + c.rng.Int64N(int64(c.o.Faults.PartitionEvery)), kind: evFault, idx: faultPartition})
	}
	settling := false
	for c.q.Len() > 0 {
		e := c.q.pop()
		c.now = e.at
		if c.now > deadline {
			return fmt.Errorf("no progress by %v of virtual time: %s", c.o.Deadline, c.progress())
		}
		if err := c.handle(e, settling); err != nil {
			return err
		}
		if !settling && c.clientsDone() {
			settling = true
			c.heal()
		}
		if settling && c.settled() {
			for i, r := range c.replicas {
				if err := r.CheckWitness(); err != nil && !c.dead[i] {
					return fmt.Errorf("replica %d settled with a broken witness: %w", i, err)
				}
			}
			return nil
		}
	}
	return fmt.Errorf("event queue ran dry: %s", c.progress())
}

func (c *Cluster) handle(e *event, settling bool) error {
	switch e.kind {
	case evDeliver:
		return c.deliver(e)
	case evTickReplica:
		if c.dead[e.idx] {
			return nil
		}
		c.replicas[e.idx].Tick()
		c.drain(e.idx)
		c.schedule(&event{at: c.now + int64(c.o.Tick), kind: evTickReplica, idx: e.idx})
	case evTickClient:
		s := c.sessions[e.idx]
		if s.dead {
			return nil
		}
		if ops := c.o.Workload.Ops; ops > 0 && s.done >= ops && !s.ending {
			// Done (a scripted run has no count): close cleanly, so that
			// the replicas release the session's state (PROTOCOL.md 6.10).
			s.ending = true
			s.core.End()
		}
		s.core.Tick()
		c.drainSession(e.idx)
		c.schedule(&event{at: c.now + int64(c.o.Tick), kind: evTickClient, idx: e.idx})
	case evInvoke:
		c.invoke(c.sessions[e.idx])
	case evReplicaDown:
		if s := c.sessions[e.idx]; !s.dead {
			s.severed[e.peer] = false
			s.core.ReplicaDown(wire.ReplicaID(e.peer))
			c.drainSession(e.idx)
		}
	case evPeerDown:
		if !c.dead[e.idx] {
			c.replicas[e.idx].PeerDown(wire.ReplicaID(e.peer))
		}
	case evReplicaUp:
		if s := c.sessions[e.idx]; !s.dead && !c.dead[e.peer] {
			s.core.ReplicaUp(wire.ReplicaID(e.peer))
			c.drainSession(e.idx)
		}
	case evApply:
		if c.dead[e.idx] {
			return nil
		}
		c.replicas[e.idx].Apply(1 + c.rng.IntN(4))
		c.drain(e.idx)
		c.schedule(&event{at: c.now + 1 + c.rng.Int64N(int64(c.o.Faults.ApplyLag)), kind: evApply, idx: e.idx})
	case evSync:
		c.synced(e.idx, e.peer, e.batch)
	case evFault:
		switch {
		case e.idx == faultRestart:
			c.restart(e.peer)
		case !settling || e.idx == faultCrash || e.idx == faultCrashClient || e.idx == faultCrashAll:
			c.fault(e.idx)
		}
	}
	return nil
}

// bootstrapped reports whether every replica that started is a member.
func (c *Cluster) bootstrapped() bool {
	for i, r := range c.replicas {
		if !c.dead[i] && !r.Member() {
			return false
		}
	}
	return true
}

func (c *Cluster) clientsDone() bool {
	for _, s := range c.sessions {
		if !s.dead && s.done < c.o.Workload.Ops {
			return false
		}
	}
	return true
}

// settled reports whether every replica has applied the whole log the
// leader holds, all of it committed: the group is quiescent.
func (c *Cluster) settled() bool {
	var last, leaderCommit int64 = -1, -1
	for i, r := range c.replicas {
		if r.IsLeader() && !c.dead[i] && i != c.isolated {
			last = int64(r.LastSlot())
			leaderCommit = int64(r.CommitIndex())
		}
	}
	if last < 0 || leaderCommit != last {
		return false
	}
	for i, r := range c.replicas {
		if c.dead[i] {
			continue
		}
		if int64(r.AppliedIndex()) != last || int64(r.LastSlot()) != last || r.RecordCount() > 0 {
			return false
		}
	}
	// A live session's acknowledged CURP-HO weak write becomes durable
	// eventually, through the session's re-sends (PROTOCOL.md 6.8): the
	// run is over only when no live session still has one to confirm.
	for _, s := range c.sessions {
		if !s.dead && !s.core.Settled() {
			return false
		}
	}
	return true
}

func (c *Cluster) progress() string {
	s := ""
	for i, r := range c.replicas {
		dead := ""
		if c.dead[i] {
			dead = "(dead) "
		}
		s += fmt.Sprintf("\n  r%d: %s%s", i, dead, r.Describe())
		if h := r.Records(); len(h) > 0 {
			s += fmt.Sprintf(" (first record: %v %v %s b%d accepted=%v)", h[0].Cmd, h[0].Level, h[0].Command, h[0].Ballot, h[0].Accepted)
		}
	}
	done := 0
	for _, x := range c.sessions {
		done += x.done
		if !x.dead && (x.done < c.o.Workload.Ops || !x.core.Settled()) {
			s += fmt.Sprintf("\n  %s: %s", x.name, x.core.Describe())
		}
	}
	return s + fmt.Sprintf("ops done %d of %d", done, c.o.Workload.Ops*len(c.sessions))
}

func roleOf(leader bool) string {
	if leader {
		return "L"
	}
	return "F"
}
