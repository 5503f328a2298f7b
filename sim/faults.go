package sim

import "fmt"

// Faults drawn from the seed: partitions that isolate a replica and heal,
// crashes of replicas (the leader, when asked) and of client sessions, and
// restarts of crashed replicas.

const (
	faultPartition = iota
	faultHeal
	faultCrash
	faultCrashClient
	faultRestart
	faultCrashAll
)

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
				// One way, only what the other replicas send the
				// isolated one is lost: its own sends and its sessions'
				// traffic flow.
				if !f.PartitionOneWay {
					c.links[c.isolated][i].epoch++
				}
				if !f.PartitionOneWay || i < c.o.N {
					c.links[i][c.isolated].epoch++
				}
			}
			for r := range c.replicas {
				if r != c.isolated && !f.PartitionOneWay {
					c.reportCut(r, c.isolated)
					c.reportCut(c.isolated, r)
				}
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
		c.crash(victim, f.HostCrashes)
		if d := c.o.Faults.RestartAfter; d > 0 {
			c.wipe[victim] = f.WipeProb > 0 && c.rng.Float64() < f.WipeProb
			c.schedule(&event{at: c.now + 1 + c.rng.Int64N(int64(d)), kind: evFault, idx: faultRestart, peer: victim})
		}
		if c.o.Faults.CrashClientToo {
			c.sessions[c.rng.IntN(len(c.sessions))].dead = true
		}
	case faultCrashAll:
		// Every replica at once (a power cut): only durable replicas come
		// back with what they acknowledged.
		c.CrashAlls++
		for r := range c.replicas {
			c.crash(r, f.HostCrashes)
		}
		back := c.now + 1 + c.rng.Int64N(int64(f.RestartAfter))
		for r := range c.replicas {
			c.schedule(&event{at: back, kind: evFault, idx: faultRestart, peer: r})
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

// restart brings crashed replica r back, empty (PROTOCOL.md 6.10), or in
// durable mode with what its disk holds, or starts a late replica for the
// first time: its connections were broken, its sessions learn it is
// reachable again.
func (c *Cluster) restart(r int) {
	if !c.dead[r] {
		return
	}
	c.dead[r] = false
	c.lifetime[r]++
	if c.wipe[r] {
		c.wipe[r] = false
		c.disks[r] = newDisk()
		c.Wipes++
	}
	if c.late[r] {
		c.late[r] = false
		c.LateStarted++
	} else {
		c.Restarts++
	}
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
	up := c.now + int64(c.o.Faults.MaxDelay)
	for i, s := range c.sessions {
		if s.dead {
			continue
		}
		if s.severed[r] && c.o.Faults.HostCrashes {
			// Its next send to the host, up and with no such
			// connection, is reset.
			c.notice(i, r, up+c.rng.Int64N(int64(c.o.Faults.RestartAfter)+1))
			continue
		}
		c.schedule(&event{at: up, kind: evReplicaUp, idx: i, peer: r})
	}
}

// notice makes session i hear at instant at that its connection to
// replica r broke, and reconnect a network delay later.
func (c *Cluster) notice(i, r int, at int64) {
	c.schedule(&event{at: at, kind: evReplicaDown, idx: i, peer: r})
	c.schedule(&event{at: at + int64(c.o.Faults.MaxDelay), kind: evReplicaUp, idx: i, peer: r})
}

// crash stops replica r for good. Its sessions' connections break, as a
// dead process's TCP connections do: each live session learns it after a
// network delay (PROTOCOL.md 6.6: a broken connection tells a client).
// When its host crashes, nothing tells them, nor the other replicas
// (Faults.HostCrashes).
func (c *Cluster) crash(r int, host bool) {
	if c.dead[r] {
		return
	}
	c.countRejoin(r)
	c.QuietFalls += c.replicas[r].QuietFalls()
	c.dead[r] = true
	if c.o.Durable {
		c.crashDisk(r)
	}
	for i, s := range c.sessions {
		s.severed[r] = host
		if !s.dead && !host {
			c.schedule(&event{at: c.now + int64(c.o.Faults.MaxDelay), kind: evReplicaDown, idx: i, peer: r})
		}
	}
	for i := range c.replicas {
		if i != r && !host {
			c.reportCut(i, r)
		}
	}
}

// reportCut tells replica r, a network delay from now, that its
// connection to replica peer broke (Faults.ReportCuts).
func (c *Cluster) reportCut(r, peer int) {
	if c.o.Faults.ReportCuts && !c.dead[r] {
		c.schedule(&event{at: c.now + int64(c.o.Faults.MaxDelay), kind: evPeerDown, idx: r, peer: peer})
	}
}

// countRejoin counts replica r's life in Rejoins if it was restarted with
// nothing and is a member again.
func (c *Cluster) countRejoin(r int) {
	if c.emptyLife[r] && !c.dead[r] && c.replicas[r].Member() {
		c.emptyLife[r] = false
		c.Rejoins++
	}
}

// cut reports whether a partition or a crash separates two endpoints.
func (c *Cluster) cut(a, b int) bool {
	if a < c.o.N && c.dead[a] || b < c.o.N && c.dead[b] {
		return true
	}
	if a >= c.o.N && c.sessions[a-c.o.N].dead || b >= c.o.N && c.sessions[b-c.o.N].dead {
		return true
	}
	if r, s := min(a, b), max(a, b); r < c.o.N && s >= c.o.N && c.sessions[s-c.o.N].severed[r] {
		return true // a connection that died with its host, until the session notices
	}
	if c.isolated < 0 {
		return false
	}
	n := c.o.N
	if c.o.Faults.PartitionOneWay {
		return b == c.isolated && a < n
	}
	if c.o.Faults.PartitionSplitsSessions && (a >= n) != (b >= n) {
		r, s := min(a, b), max(a, b)
		return (r == c.isolated) != ((s-n)%2 == 0)
	}
	return (a == c.isolated) != (b == c.isolated)
}
