package sim

import (
	"errors"
	"fmt"

	"swiftpaxos/check"
	"swiftpaxos/client"
	"swiftpaxos/kvs"
	"swiftpaxos/replica/applog"
	"swiftpaxos/replica/wire"
)

// The workload and what it leaves for the checker: the operations each
// session invokes, their history records, and the replicas' applied logs.

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
	session := applog.SessionOf(e.Cmd.Client)
	if ep, ok := c.byClient[e.Cmd.Client]; ok {
		session = c.sessions[ep-c.o.N].name
	}
	seg := &c.segments[c.current[r]]
	seg.entries = append(seg.entries, applog.EntriesOf(e.Slot, session, e.Cmd.Seq, e.Command, res)...)
}

// recordSnapshot marks, in replica i's applied log, that it installed a
// snapshot ending at slot: the lines that follow are for later slots
// (replica/applog's format).
func (c *Cluster) recordSnapshot(i int, slot kvs.Slot) {
	seg := &c.segments[c.current[i]]
	seg.entries = append(seg.entries, check.LogEntry{Slot: slot, Kind: check.Snapshot})
}
