package resp

import (
	"swiftpaxos/client"
)

// pump submits queued operations while the window has room, each one
// ordered (client.Op.Ordered): it takes effect after every earlier
// operation of the connection that conflicts with it (a common key, and
// one of them writes), as a pipeline's commands take effect in order in
// Redis. The session keeps a pipeline of strong writes of one key in
// flight together, ordered behind one another by the leader, and holds
// back an operation whose conflicting predecessors it cannot order that
// way (a weak one among them, or two reads) until they complete, and
// every later operation with it; operations in flight together that do
// not conflict are concurrent. Pipelines of distinct keys, or of reads,
// keep their whole window, unless an operation before them is held.
func (c *conn) pump() {
	for len(c.queue) > 0 && len(c.inflight) < window {
		ref := c.queue[0]
		c.queue = c.queue[1:]
		j := ref.j
		if j.done { // timed out before it was sent
			continue
		}
		j.sent++
		op := j.ops[ref.i]
		op.Ordered = true
		if err := c.sess.Submit(op); err != nil {
			j.res[ref.i] = client.Result{Err: err}
			c.stepped(j)
			continue
		}
		c.seq++
		c.inflight[c.seq] = ref
		j.left++
	}
}
