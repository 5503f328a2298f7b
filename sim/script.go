package sim

import (
	"fmt"
	"strings"
	"time"

	"swiftpaxos/check"
	"swiftpaxos/kvs"
	"swiftpaxos/replica"
	"swiftpaxos/wire"
)

// Script drives a cluster through a directed scenario: the test starts
// chosen operations, drops chosen messages and crashes chosen processes at
// chosen moments, on the same cores, codec and virtual time as a random
// run. Endpoints are numbered as in a run: replicas 0..n-1, then sessions;
// session i is bound to (its nearest replica is) replica i mod n.
type Script struct {
	c *Cluster
}

// NewScript builds a scripted cluster; o.Workload is ignored (no operation
// starts by itself) and o.Faults should hold delays only.
func NewScript(o Options) (*Script, error) {
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("sim options: %w", err)
	}
	c, err := newCluster(o)
	if err != nil {
		return nil, err
	}
	tick := int64(c.o.Tick)
	for i := range c.replicas {
		c.schedule(&event{at: c.rng.Int64N(tick) + 1, kind: evTickReplica, idx: i})
	}
	for i := range c.sessions {
		c.schedule(&event{at: c.rng.Int64N(tick) + 1, kind: evTickClient, idx: i})
	}
	return &Script{c: c}, nil
}

// Endpoint is the endpoint number of session i, for filters.
func (s *Script) Endpoint(session int) int { return s.c.o.N + session }

// Drop makes every send for which drop returns true break its connection
// (the message and those in flight on it are lost); nil stops dropping.
func (s *Script) Drop(drop func(from, to int, m wire.Message) bool) { s.c.filter = drop }

// Inject sends m from endpoint from to endpoint to, as if that process had
// sent it (through the codec, on their connection): a test plays a buggy or
// hostile peer this way.
func (s *Script) Inject(from, to int, m wire.Message) { s.c.send(from, to, m) }

// Put starts a write of key number key (KeyOf) by session; its value is
// unique in the run.
func (s *Script) Put(session int, level wire.Level, key int) {
	s.c.start(s.c.sessions[session], level, kvs.Command{Op: kvs.OpPut, Key: KeyOf(key)})
}

// Get starts a read of key number key by session.
func (s *Script) Get(session int, level wire.Level, key int) {
	s.c.start(s.c.sessions[session], level, kvs.Command{Op: kvs.OpGet, Key: KeyOf(key)})
}

// Delete starts a DELETE of key number key by session.
func (s *Script) Delete(session int, level wire.Level, key int) {
	s.c.start(s.c.sessions[session], level, kvs.Command{Op: kvs.OpDelete, Key: KeyOf(key)})
}

// Scan starts a SCAN of key numbers key..key+count by session.
func (s *Script) Scan(session int, level wire.Level, key int, count int64) {
	s.c.start(s.c.sessions[session], level, scanOf(key, int(count)+1))
}

// Do starts cmd by session (a CAS's or a PUT's value is made unique).
func (s *Script) Do(session int, level wire.Level, cmd kvs.Command) {
	s.c.start(s.c.sessions[session], level, cmd)
}

// Run processes events for d of virtual time.
func (s *Script) Run(d time.Duration) error {
	until := s.c.now + int64(d)
	for s.c.q.Len() > 0 && s.c.q[0].at <= until {
		e := s.c.q.pop()
		s.c.now = e.at
		if err := s.c.handle(e, false); err != nil {
			return err
		}
	}
	s.c.now = until
	return nil
}

// Crash stops replica r for good.
func (s *Script) Crash(r int) { s.c.crash(r, false) }

// CrashHost stops replica r as a host crash does: neither its sessions nor
// the other replicas are told, and the sessions' connections to it are
// dead until they notice (Faults.HostCrashes; NoticeHost).
func (s *Script) CrashHost(r int) { s.c.crash(r, true) }

// NoticeHost makes every live session hear, a network delay from now,
// that its connection to replica r broke, and reconnect.
func (s *Script) NoticeHost(r int) {
	for i, ss := range s.c.sessions {
		if !ss.dead {
			s.c.notice(i, r, s.c.now+int64(s.c.o.Faults.MaxDelay))
		}
	}
}

// Restart brings crashed replica r back in a new lifetime: empty, or, a
// durable one, with what its disk holds; it starts a replica held back
// (HoldBack) for the first time.
func (s *Script) Restart(r int) { s.c.restart(r) }

// HoldBack keeps replica r from starting until Restart: its first start,
// -cluster new, comes after the others founded the cluster without it (a
// slow start, no failure). The sessions learn it is unreachable, as of a
// late replica in a random run. Only before the first Run.
func (s *Script) HoldBack(r int) error {
	c := s.c
	if c.now > 0 {
		return fmt.Errorf("sim: holding back replica %d after the run began", r)
	}
	c.late[r], c.dead[r], c.started[r] = true, true, false
	for i := range c.sessions {
		c.schedule(&event{at: 1, kind: evReplicaDown, idx: i, peer: r})
	}
	return nil
}

// RestartWiped brings crashed replica r back, empty, in a new lifetime;
// a durable replica's disk is lost with what it held (its data directory
// was emptied).
func (s *Script) RestartWiped(r int) {
	s.c.wipe[r] = s.c.o.Durable && s.c.dead[r]
	s.c.restart(r)
}

// RestartClaimingNew brings crashed replica r back, empty, started with
// -cluster new although it was a member: an operator's mistake, which
// docs/DECISIONS.md 37 warns against.
func (s *Script) RestartClaimingNew(r int) {
	s.c.claimNew[r], s.c.misused = true, true
	s.c.restart(r)
}

// CrashSession stops session i for good (its client crashed).
func (s *Script) CrashSession(i int) { s.c.sessions[i].dead = true }

// RunUntil processes events until cond holds (checked after every event)
// or max of virtual time has passed; it reports whether cond held.
func (s *Script) RunUntil(cond func() bool, max time.Duration) (bool, error) {
	until := s.c.now + int64(max)
	for !cond() {
		if s.c.q.Len() == 0 || s.c.q[0].at > until {
			s.c.now = until
			return false, nil
		}
		e := s.c.q.pop()
		s.c.now = e.at
		if err := s.c.handle(e, false); err != nil {
			return false, err
		}
	}
	return true, nil
}

// Describe summarises every replica and unfinished session, for failure
// messages.
func (s *Script) Describe() string { return s.c.progress() }

// ClientID is session i's client id.
func (s *Script) ClientID(session int) wire.ClientID { return s.c.sessions[session].core.ID() }

// Replica gives read access to replica r's core, for assertions on its
// state; a test must not step it.
func (s *Script) Replica(r int) *replica.Core { return s.c.replicas[r] }

// Leader is the live replica that believes it leads the highest ballot,
// or -1.
func (s *Script) Leader() int {
	l := -1
	for i, r := range s.c.replicas {
		if !s.c.dead[i] && r.IsLeader() && (l < 0 || r.Ballot() > s.c.replicas[l].Ballot()) {
			l = i
		}
	}
	return l
}

// Path is how session i's operation seq completed: "fast", "slow", or ""
// for weak or unfinished operations.
func (s *Script) Path(session int, seq wire.Seq) string {
	for _, h := range s.c.history {
		if h.Session == s.c.sessions[session].name && h.Seq == seq {
			return h.Path
		}
	}
	return ""
}

// AppliedSlot is the slot at which replica r executed session i's
// operation seq, if it did.
func (s *Script) AppliedSlot(r, session int, seq wire.Seq) (kvs.Slot, bool) {
	prefix := fmt.Sprintf("replica%d", r)
	for _, g := range s.c.segments {
		if g.name != prefix && !strings.HasPrefix(g.name, prefix+".") {
			continue
		}
		for _, e := range g.entries {
			if e.Session == s.c.sessions[session].name && e.Seq == seq {
				return e.Slot, true
			}
		}
	}
	return 0, false
}

// Done reports whether session i's operation seq completed, and its value.
func (s *Script) Done(session int, seq wire.Seq) (bool, string) {
	for _, h := range s.c.history {
		if h.Session == s.c.sessions[session].name && h.Seq == seq {
			if h.Kind == check.Put {
				return h.OK, h.Value
			}
			return h.OK, h.Ret
		}
	}
	return false, ""
}

// Check runs the checker over the history and the applied logs so far.
func (s *Script) Check() check.Report {
	logs := s.c.logs()
	crashed := make(map[check.SessionID]bool)
	for _, x := range s.c.sessions {
		if x.dead || x.lost {
			crashed[x.name] = true
		}
	}
	return check.Check(s.c.history, logs, check.Options{Crashed: crashed})
}
