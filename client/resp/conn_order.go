package resp

import (
	"swiftpaxos/client"
	"swiftpaxos/kvs"
)

// Which operations of a connection may be in flight together: those that
// do not conflict.

// pump submits queued operations while the window has room. An
// operation that conflicts with one in flight (kvs.Command.Conflicts: a
// common key, and one of them writes) waits until that one completes,
// and the operations after it wait with it. The session orders only
// operations that completed before the next was issued: operations in
// flight together are concurrent (a CURP-HT weak GET, answered by the
// nearest replica, does not see a weak PUT still on its way through the
// leader; two writes of a key in flight may take effect in either order
// across a failover), while a pipeline's commands must take effect in
// their order, as Redis runs them. Pipelines of distinct keys, or of
// reads only, keep their window.
func (c *conn) pump() {
	for len(c.queue) > 0 && len(c.inflight) < window {
		ref := c.queue[0]
		j := ref.j
		if j.done { // timed out before it was sent
			c.queue = c.queue[1:]
			continue
		}
		cmd := j.ops[ref.i].Command
		if c.conflicts(cmd) {
			return
		}
		c.queue = c.queue[1:]
		j.sent++
		if err := c.sess.Submit(j.ops[ref.i]); err != nil {
			j.res[ref.i] = client.Result{Err: err}
			c.stepped(j)
			continue
		}
		c.use(cmd, 1)
		ref.cmd = &j.ops[ref.i].Command
		c.seq++
		c.inflight[c.seq] = ref
		j.left++
	}
}

// keyUse counts the operations in flight that read and that write a key.
type keyUse struct{ reads, writes int }

// use adds n (1 or -1) operations like cmd to those in flight.
func (c *conn) use(cmd kvs.Command, n int) {
	if cmd.Op == kvs.OpScan {
		c.scans += n
		return
	}
	u := c.keys[cmd.Key]
	if cmd.IsWrite() {
		u.writes += n
	} else {
		u.reads += n
	}
	if u == (keyUse{}) {
		delete(c.keys, cmd.Key)
	} else {
		c.keys[cmd.Key] = u
	}
}

// conflicts says cmd conflicts with an operation in flight. The window
// bounds the keys in flight, so a SCAN's look through them is short; a
// write's look through the SCANs in flight is needed only when one is.
func (c *conn) conflicts(cmd kvs.Command) bool {
	switch {
	case cmd.Op == kvs.OpScan:
		for k, u := range c.keys {
			if u.writes > 0 && cmd.Covers(k) {
				return true
			}
		}
		return false
	case cmd.IsWrite():
		u := c.keys[cmd.Key]
		if u.reads > 0 || u.writes > 0 {
			return true
		}
		if c.scans > 0 {
			for _, ref := range c.inflight {
				if sc := ref.cmd; sc.Op == kvs.OpScan && sc.Covers(cmd.Key) {
					return true
				}
			}
		}
		return false
	default:
		return c.keys[cmd.Key].writes > 0
	}
}
