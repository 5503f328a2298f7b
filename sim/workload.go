package sim

import (
	"errors"
	"fmt"

	"swiftpaxos/check"
	"swiftpaxos/client"
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
	"swiftpaxos/wire/applog"
)

// The workload and what it leaves for the checker: the operations each
// session invokes, their history records, and the replicas' applied logs.

// KeyOf is the simulator's key number i: fixed width, so that keys sort
// as their numbers do and a SCAN of numbers is a range of keys.
func KeyOf(i int) kvs.Key { return kvs.Key(fmt.Sprintf("k%03d", i)) }

// counterOf is counter number i: INCRs have keys of their own, which no
// SCAN of KeyOf keys covers.
func counterOf(i int) kvs.Key { return kvs.Key(fmt.Sprintf("n%03d", i)) }

// scanOf is a SCAN of the n keys from number i.
func scanOf(i, n int) kvs.Command {
	return kvs.Command{Op: kvs.OpScan, Key: KeyOf(i), End: KeyOf(i + n), Limit: int64(n)}
}

// invoke starts the session's next operation (PROTOCOL.md 8.2 mix).
func (c *Cluster) invoke(s *session) {
	s.invokes--
	if s.issued >= c.o.Workload.Ops || s.dead {
		return
	}
	w := c.o.Workload
	i := c.rng.IntN(w.Keys)
	key := KeyOf(i)
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
	case level == wire.Strong && w.RMW > 0 && c.rng.IntN(100) < w.RMW,
		level == wire.Weak && w.WeakRMW > 0 && c.rng.IntN(100) < w.WeakRMW: // a hostile client's
		if c.rng.IntN(2) == 0 {
			cmd = kvs.Command{Op: kvs.OpIncr, Key: counterOf(i), Delta: int64(1 + c.rng.IntN(3))}
		} else {
			cmd = s.casOn(key)
		}
	case write && w.Deletes > 0 && c.rng.IntN(100) < w.Deletes:
		cmd.Op = kvs.OpDelete
	case write:
		cmd.Op = kvs.OpPut
	case w.ScanCount > 0 && c.rng.IntN(100) < w.ScanRatio:
		n := c.rng.IntN(w.ScanCount) + 1
		cmd = scanOf(i, n)
		if c.rng.IntN(4) == 0 {
			cmd.Limit = int64(1 + c.rng.IntN(n)) // sometimes fewer than the range holds
		}
	}
	c.start(s, level, cmd)
}

// casOn is a CAS of key that expects what the session last saw of it
// (absent when it saw nothing), so that some apply and some do not.
func (s *session) casOn(key kvs.Key) kvs.Command {
	cmd := kvs.Command{Op: kvs.OpCAS, Key: key, Expect: kvs.ExpectAbsent}
	if v, ok := s.seen[key]; ok && v.found {
		cmd.Expect, cmd.ExpectValue = kvs.ExpectValue, kvs.Value(v.value)
	}
	return cmd
}

// start invokes one operation of session s and records it in the history,
// pending until it completes. A PUT's and a CAS's value is unique in the
// run (PROTOCOL.md 2.6).
func (c *Cluster) start(s *session, level wire.Level, cmd kvs.Command) {
	seq := wire.Seq(s.issued + 1)
	if cmd.Op == kvs.OpPut || cmd.Op == kvs.OpCAS && !cmd.Delete {
		cmd.Value = kvs.Value(fmt.Sprintf("%s.%d", s.name, seq))
	}
	ordered := c.o.Workload.Ordered > 0 && c.rng.IntN(100) < c.o.Workload.Ordered
	h := check.Op{Session: s.name, Seq: seq, Level: check.Strong, InvokeNS: c.now, Ordered: ordered}
	if level == wire.Weak {
		h.Level = check.Weak
	}
	s.hist[seq] = len(c.history)
	c.history = append(c.history, check.Record(h, cmd, kvs.Result{}))
	s.issued++
	if got := s.core.Invoke(client.Op{Level: level, Command: cmd, Ordered: ordered}); got != seq {
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
	switch r.Path {
	case client.PathFast:
		h.Path = "fast"
		c.Fast++
	case client.PathSlow:
		h.Path = "slow"
		c.Slow++
		if r.Slot == 0 {
			c.LeaderReads++ // no entry has slot 0: a leader read's answer
		}
	}
	cmd := r.Op.Command
	res := kvs.Result{Value: r.Value, Found: r.Found, Version: r.Version, Items: r.Items, More: r.More,
		Applied: r.Applied, Err: r.Code}
	h = check.Record(h, cmd, res)
	if h.OK && r.More {
		h.Through = r.Through
	}
	if h.OK && !r.Known && cmd.Op == kvs.OpDelete {
		h.Found, h.FoundUnknown = false, true
	}
	c.history[i] = h
	if h.OK {
		s.saw(cmd, r)
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

// seenValue is what a session last saw of a key.
type seenValue struct {
	value string
	found bool
}

// saw notes what a completed operation told the session of its key.
func (s *session) saw(cmd kvs.Command, r client.Result) {
	if s.seen == nil {
		s.seen = make(map[kvs.Key]seenValue)
	}
	switch cmd.Op {
	case kvs.OpGet, kvs.OpCAS:
		s.seen[cmd.Key] = seenValue{value: string(r.Value), found: r.Found}
	case kvs.OpPut:
		s.seen[cmd.Key] = seenValue{value: string(cmd.Value), found: true}
	case kvs.OpDelete:
		s.seen[cmd.Key] = seenValue{}
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
// (wire/applog's format).
func (c *Cluster) recordSnapshot(i int, slot kvs.Slot) {
	seg := &c.segments[c.current[i]]
	seg.entries = append(seg.entries, check.LogEntry{Slot: slot, Kind: check.Snapshot})
}
