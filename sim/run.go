package sim

import (
	"errors"
	"fmt"
	"time"

	"swiftpaxos/check"
	"swiftpaxos/client"
	"swiftpaxos/kvs"
	"swiftpaxos/replica/applog"
	"swiftpaxos/replica/wire"
)

const (
	faultPartition = iota
	faultHeal
	faultCrash
	faultCrashClient
	faultRestart
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
	deadline := int64(c.o.Deadline)
	// A brand-new cluster bootstraps once every replica has answered
	// (docs/DECISIONS.md 21): crashes and partitions start after that.
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
			s.core.ReplicaDown(wire.ReplicaID(e.peer))
			c.drainSession(e.idx)
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
	case evFault:
		switch {
		case e.idx == faultRestart:
			c.restart(e.peer)
		case !settling || e.idx == faultCrash || e.idx == faultCrashClient:
			c.fault(e.idx)
		}
	}
	return nil
}

func (c *Cluster) fault(kind int) {
	f := c.o.Faults
	switch kind {
	case faultPartition:
		if c.isolated < 0 {
			c.isolated = c.rng.IntN(c.o.N)
			if f.PartitionLeader {
				for i, r := range c.replicas {
					if r.IsLeader() && !c.dead[i] {
						c.isolated = i
					}
				}
			}
			for i := range c.links {
				c.links[c.isolated][i].epoch++
				c.links[i][c.isolated].epoch++
			}
			c.schedule(&event{at: c.now + 1 + c.rng.Int64N(int64(f.PartitionFor)), kind: evFault, idx: faultHeal})
		}
		c.schedule(&event{at: c.now + 1 + c.rng.Int64N(2*int64(f.PartitionEvery)), kind: evFault, idx: faultPartition})
	case faultHeal:
		c.heal()
	case faultCrash:
		victim := c.rng.IntN(c.o.N)
		if c.o.Faults.CrashLeader {
			for i, r := range c.replicas {
				if r.IsLeader() && !c.dead[i] {
					victim = i
				}
			}
		}
		c.crash(victim)
		if d := c.o.Faults.RestartAfter; d > 0 {
			c.schedule(&event{at: c.now + 1 + c.rng.Int64N(int64(d)), kind: evFault, idx: faultRestart, peer: victim})
		}
		if c.o.Faults.CrashClientToo {
			c.sessions[c.rng.IntN(len(c.sessions))].dead = true
		}
	case faultCrashClient:
		var live []*session
		for _, s := range c.sessions {
			if !s.dead {
				live = append(live, s)
			}
		}
		if len(live) > 1 {
			live[c.rng.IntN(len(live))].dead = true
		}
	}
}

func (c *Cluster) heal() { c.isolated = -1 }

// restart brings crashed replica r back, empty (PROTOCOL.md 6.10): its
// connections were broken, its sessions learn it is reachable again.
func (c *Cluster) restart(r int) {
	if !c.dead[r] {
		return
	}
	c.dead[r] = false
	c.lifetime[r]++
	c.Restarts++
	for i := range c.links {
		c.links[r][i].epoch++
		c.links[i][r].epoch++
	}
	if err := c.startReplica(r); err != nil {
		panic(fmt.Sprintf("sim: restarting replica %d: %v", r, err))
	}
	c.schedule(&event{at: c.now + 1, kind: evTickReplica, idx: r})
	if c.deferred[r] {
		c.schedule(&event{at: c.now + 1, kind: evApply, idx: r})
	}
	for i, s := range c.sessions {
		if !s.dead {
			c.schedule(&event{at: c.now + int64(c.o.Faults.MaxDelay), kind: evReplicaUp, idx: i, peer: r})
		}
	}
}

// bootstrapped reports whether every replica is a member.
func (c *Cluster) bootstrapped() bool {
	for _, r := range c.replicas {
		if !r.Member() {
			return false
		}
	}
	return true
}

// crash stops replica r for good. Its sessions' connections break, as a
// dead process's TCP connections do: each live session learns it after a
// network delay (PROTOCOL.md 6.6: a broken connection tells a client).
func (c *Cluster) crash(r int) {
	if c.dead[r] {
		return
	}
	c.dead[r] = true
	for i, s := range c.sessions {
		if !s.dead {
			c.schedule(&event{at: c.now + int64(c.o.Faults.MaxDelay), kind: evReplicaDown, idx: i, peer: r})
		}
	}
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
		if int64(r.AppliedIndex()) != last || int64(r.LastSlot()) != last || r.HeldRecords() > 0 {
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
		if c.dead[i] {
			s += "(dead) "
		}
		s += fmt.Sprintf("\n  r%d: %s", i, r.Describe())
		if h := r.Held(); len(h) > 0 {
			s += fmt.Sprintf(" (first held: %v %v %s b%d accepted=%v)", h[0].Cmd, h[0].Level, h[0].Command, h[0].Ballot, h[0].Accepted)
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

// invoke starts the session's next operation (PROTOCOL.md 8.2 mix).
func (c *Cluster) invoke(s *session) {
	s.invokes--
	if s.issued >= c.o.Workload.Ops || s.dead {
		return
	}
	w := c.o.Workload
	key := kvs.Key(c.rng.IntN(w.Keys))
	level := wire.Strong
	var write bool
	if c.rng.IntN(100) < w.WeakRatio {
		level = wire.Weak
		write = c.rng.IntN(100) < w.WeakWrites
	} else {
		write = c.rng.IntN(100) < w.Writes
	}
	cmd := kvs.Command{Op: kvs.OpGet, Key: key}
	switch {
	case write:
		cmd.Op = kvs.OpPut
	case w.ScanCount > 0 && c.rng.IntN(100) < w.ScanRatio:
		cmd.Op, cmd.Count = kvs.OpScan, int64(c.rng.IntN(w.ScanCount)+1)
	}
	c.start(s, level, cmd)
}

// start invokes one operation of session s and records it in the history:
// a write writes a value unique in the run, a SCAN is one read per key of
// its range (PROTOCOL.md 2.6 item 8).
func (c *Cluster) start(s *session, level wire.Level, cmd kvs.Command) {
	seq := wire.Seq(s.issued + 1)
	h := check.Op{Session: s.name, Seq: seq, Level: check.Strong, Kind: check.Get, Key: cmd.Key, InvokeNS: c.now}
	if level == wire.Weak {
		h.Level = check.Weak
	}
	if cmd.Op == kvs.OpPut {
		v := fmt.Sprintf("%s.%d", s.name, seq)
		cmd.Value = kvs.Value(v)
		h.Kind, h.Value = check.Put, v
	}
	recs := []check.Op{h}
	if cmd.Op == kvs.OpScan {
		recs = check.ScanRecords(h, cmd, nil)
	}
	s.hist[seq] = len(c.history)
	c.history = append(c.history, recs...)
	s.issued++
	if got := s.core.Invoke(client.Op{Level: level, Command: cmd}); got != seq {
		panic(fmt.Sprintf("sim: session %s issued seq %d, expected %d", s.name, got, seq))
	}
	c.drainSession(s.idx)
}

func (c *Cluster) complete(s *session, r client.Result) {
	i, ok := s.hist[r.Seq]
	if !ok {
		return
	}
	delete(s.hist, r.Seq)
	if errors.Is(r.Err, client.ErrExpired) && !s.expired {
		s.expired = true
		c.IdleExpired++
	}
	h := c.history[i]
	h.ReturnNS = c.now
	h.OK = r.Err == nil
	if h.Kind == check.Get && h.OK {
		h.Value = string(r.Value)
	}
	switch r.Path {
	case client.PathFast:
		h.Path = "fast"
		c.Fast++
	case client.PathSlow:
		h.Path = "slow"
		c.Slow++
	}
	if r.Op.Command.Op == kvs.OpScan {
		copy(c.history[i:], check.ScanRecords(h, r.Op.Command, r.Items))
	} else {
		c.history[i] = h
	}
	s.done++
	if s.issued < c.o.Workload.Ops {
		at := c.now
		if think := int64(c.o.Workload.Think); think > 0 {
			at += c.rng.Int64N(think)
		}
		c.schedule(&event{at: at, kind: evInvoke, idx: s.idx})
		s.invokes++
	}
}

func (c *Cluster) recordExecuted(r int, e *wire.Entry, res kvs.Result) {
	session := check.SessionID(fmt.Sprintf("%x", uint64(e.Cmd.Client)))
	if ep, ok := c.byClient[e.Cmd.Client]; ok {
		session = c.sessions[ep-c.o.N].name
	}
	seg := &c.segments[c.current[r]]
	seg.entries = append(seg.entries, applog.EntriesOf(e.Slot, session, e.Cmd.Seq, e.Command, res)...)
}
