package resp

import (
	"context"
	"errors"
	"io"
	"net"
	"slices"
	"time"

	"go.uber.org/zap"

	"swiftpaxos/client"
	"swiftpaxos/wire"
)

// A connection is served by two goroutines: a reader that parses commands
// and hands them over in order, and the connection's loop, which alone
// owns its state (the session, the jobs, the output). The loop submits
// the commands' operations to the session in command order, collects the
// completions (in any order), and writes the replies in command order,
// several at once when the client pipelines.

// window is the most operations a connection keeps in flight: enough for
// redis-benchmark -P 16 and for an MGET of many keys in a few rounds.
const window = 64

// maxHeld bounds the bytes a connection holds in results and replies not
// yet written: a command whose results grow past it is answered with an
// error, and no new command is read while the connection holds more (a
// client that pipelines GETs of large values without reading the
// replies, or an MGET of one large key many times over).
const maxHeld = 64 << 20

// maxJobs is the most commands a connection holds between reading them
// and writing their replies; beyond it the reader waits, and so does a
// client that sends without reading.
const maxJobs = 1024

// parsed is what the reader hands the loop: a command, or why reading
// ended. more says the reader already holds the start of the next one.
type parsed struct {
	args [][]byte
	more bool
	err  error
}

// opRef names an operation of a job.
type opRef struct {
	j *job
	i int
}

type conn struct {
	srv   *Server
	ctx   context.Context // ends when the connection's loop does
	nc    net.Conn
	id    int64
	log   *zap.Logger
	sess  *client.Session
	level client.Level
	// authed: AUTH succeeded, or no password is set.
	authed bool
	name   string // CLIENT SETNAME

	cmds  chan parsed
	async chan *job // jobs whose reply a goroutine made

	jobs     []*job  // in command order; the first is the next reply
	queue    []opRef // operations waiting for room in the window
	inflight map[wire.Seq]opRef
	seq      wire.Seq // the session numbers operations 1, 2, ... in Submit order
	out      []byte
	held     int  // bytes of results and replies held (maxHeld)
	more     bool // the reader holds the start of another command
	// heldSince is when the oldest reply not yet written was ready.
	heldSince time.Time
	eof       bool // the client sent its last command
	closing   bool // a reply asked to close once written
	timer     *time.Timer
}

// serve runs the connection until the client leaves, a reply closes it,
// or ctx ends.
func (c *conn) serve(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c.ctx = ctx
	go c.read(ctx)
	c.timer = time.NewTimer(time.Hour)
	c.timer.Stop()
	defer c.timer.Stop()
	for !c.closing && !(c.eof && len(c.jobs) == 0) {
		c.pump()
		c.emit()
		if c.closing || c.eof && len(c.jobs) == 0 {
			break
		}
		var cmds chan parsed
		if !c.eof && len(c.jobs) < maxJobs && c.held < maxHeld && !c.blocked() {
			cmds = c.cmds
		}
		if len(c.out) > 0 && (cmds == nil || len(c.cmds) == 0 && !c.hold()) {
			if !c.flush() {
				return
			}
		}
		c.arm()
		select {
		case p := <-cmds:
			c.more = p.more
			if p.err != nil {
				c.readEnded(p.err)
				continue
			}
			c.dispatch(p.args)
		case r := <-c.sess.Completions():
			c.complete(r)
		case j := <-c.async:
			j.done = true
			c.settle(j)
		case <-c.timer.C:
			c.expire(time.Now())
		case <-ctx.Done():
			return
		}
	}
	c.flush()
}

// read parses commands off the connection until it fails or ends.
func (c *conn) read(ctx context.Context) {
	p := newParser(c.nc, c.srv.limits)
	idle := c.srv.cfg.ClientIdleTimeout
	for {
		if idle > 0 {
			_ = c.nc.SetReadDeadline(time.Now().Add(idle))
		}
		args, err := p.next()
		select {
		case c.cmds <- parsed{args: args, more: err == nil && p.buffered(), err: err}:
		case <-ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

// readEnded handles the end of the reader: the commands already read are
// still answered, then the connection closes; a request that could not be
// framed is answered with its error first, as Redis does.
func (c *conn) readEnded(err error) {
	c.eof = true
	var pe *ProtocolError
	switch {
	case errors.As(err, &pe):
		c.srv.log.Info("RESP connection closed: protocol error", zap.Int64("conn", c.id), zap.Stringer("remote", c.nc.RemoteAddr()), zap.String("error", pe.Msg))
		j := &job{spec: unknownSpec, start: time.Now()}
		j.fail("ERR " + pe.Error())
		j.quit = true
		c.jobs = append(c.jobs, j)
	case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed):
	default:
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			c.srv.log.Info("RESP connection closed: idle longer than clientIdleTimeoutMs", zap.Int64("conn", c.id), zap.Stringer("remote", c.nc.RemoteAddr()))
			c.closing = true
			return
		}
		c.log.Debug("RESP connection: read failed", zap.Error(err))
	}
}

// blocked says a command of several steps is still running: the commands
// after it wait, so that its later operations come before theirs.
func (c *conn) blocked() bool {
	for i := len(c.jobs) - 1; i >= 0; i-- {
		if j := c.jobs[i]; j.multi && !j.done {
			return true
		}
	}
	return false
}

// dispatch starts a command.
func (c *conn) dispatch(args [][]byte) {
	j := &job{start: time.Now(), level: c.level}
	c.jobs = append(c.jobs, j)
	c.srv.start(c, j, args)
	c.enqueue(j)
	c.settle(j)
}

// enqueue queues the operations of j's current step for submission, or,
// for a step without operations, runs its continuation at once.
func (c *conn) enqueue(j *job) {
	for !j.done && len(j.ops) == 0 && j.then != nil {
		then := j.then
		j.then = nil
		then(c, j)
	}
	for i := range j.ops {
		c.queue = append(c.queue, opRef{j: j, i: i})
	}
}

// complete takes the result of a submitted operation.
func (c *conn) complete(r client.Result) {
	ref, ok := c.inflight[r.Seq]
	if !ok {
		return
	}
	delete(c.inflight, r.Seq)
	j := ref.j
	if j.done { // the job timed out meanwhile
		return
	}
	j.left--
	j.res[ref.i] = r
	size := resultBytes(r)
	j.bytes += size
	c.held += size
	if j.bytes > maxHeld {
		j.fail("ERR the reply would hold more than 64 MiB: ask for fewer keys, or smaller values, at once")
		c.settle(j)
		return
	}
	c.stepped(j)
}

// resultBytes is the memory a result's keys and values take.
func resultBytes(r client.Result) int {
	n := len(r.Value)
	for _, it := range r.Items {
		n += len(it.Key) + len(it.Value)
	}
	return n
}

// settle accounts for a finished job: its reply replaces its results in
// what the connection holds.
func (c *conn) settle(j *job) {
	if !j.done || j.settled {
		return
	}
	j.settled = true
	c.held += len(j.out) - j.bytes
	j.bytes = len(j.out)
}

// stepped runs j's continuation once its step is complete, and queues the
// next step's operations.
func (c *conn) stepped(j *job) {
	if !j.stepDone() {
		return
	}
	then := j.then
	j.then = nil
	j.ops = nil
	then(c, j)
	if !j.done {
		// The next step has results of its own; this step's are dropped.
		c.held -= j.bytes
		j.bytes = 0
	}
	c.enqueue(j)
	c.settle(j)
}

// emit moves the replies of finished jobs, in command order, to the
// output.
func (c *conn) emit() {
	n := 0
	for _, j := range c.jobs {
		if !j.done {
			break
		}
		n++
		c.out = append(c.out, j.out...)
		c.held -= j.bytes
		c.srv.metrics.observe(j)
		if j.quit {
			c.closing = true
			break
		}
	}
	if n > 0 {
		clear(c.jobs[:n])
		c.jobs = c.jobs[n:]
	}
}

// holdReplies bounds how long ready replies wait for the operations
// still in flight on their connection before they are written.
const holdReplies = time.Millisecond

// hold says whether the ready replies should wait for more: a pipeline's
// operations complete close together but one by one, and writing each
// reply as it comes costs a write call per reply (nearly all of a
// pipelining client's cost at the front-end); and the reader may hold
// the start of another command. They wait while operations are in
// flight or a command may be on its way, at most holdReplies from the
// first reply held: a byte read ahead (a blank line, half a command) is
// no promise of a command. A client with one command in flight at a
// time, and nothing sent after it, never waits.
func (c *conn) hold() bool {
	if len(c.inflight) == 0 && !c.more {
		return false
	}
	if c.heldSince.IsZero() {
		c.heldSince = time.Now()
	}
	return time.Since(c.heldSince) < holdReplies
}

// flush writes the output; false: the connection is broken.
func (c *conn) flush() bool {
	c.heldSince = time.Time{}
	if len(c.out) == 0 {
		return true
	}
	if idle := c.srv.cfg.ClientIdleTimeout; idle > 0 {
		_ = c.nc.SetWriteDeadline(time.Now().Add(idle))
	}
	_, err := c.nc.Write(c.out)
	if cap(c.out) > 64<<10 {
		c.out = nil
	} else {
		c.out = c.out[:0]
	}
	if err != nil {
		c.log.Debug("RESP connection: write failed", zap.Error(err))
		return false
	}
	return true
}

// arm sets the timer to the reply deadline of the oldest unfinished job,
// or to the end of the replies' hold when that is sooner.
func (c *conn) arm() {
	c.timer.Stop()
	var at time.Time
	for _, j := range c.jobs {
		if !j.done && !j.async {
			at = j.start.Add(c.srv.cfg.ReplyTimeout)
			break
		}
	}
	if len(c.out) > 0 && !c.heldSince.IsZero() {
		if end := c.heldSince.Add(holdReplies); at.IsZero() || end.Before(at) {
			at = end
		}
	}
	if !at.IsZero() {
		c.timer.Reset(time.Until(at))
	}
}

// expire answers every job older than the reply timeout with an error:
// the cluster did not answer (no majority reachable, or no leader). Its
// operations may still take effect later; their results are dropped.
func (c *conn) expire(now time.Time) {
	for _, j := range c.jobs {
		if j.done || j.async {
			continue
		}
		if now.Sub(j.start) < c.srv.cfg.ReplyTimeout {
			break
		}
		j.fail("TIMEOUT no reply from the cluster within replyTimeout (" + c.srv.cfg.ReplyTimeout.String() + "): no majority reachable or no leader; the command may still take effect")
		c.settle(j)
	}
	// Operations of failed jobs not yet sent leave the queue now: with
	// the window full of operations that do not complete, pump would not
	// reach them, and a client going on would pile them up.
	c.queue = slices.DeleteFunc(c.queue, func(r opRef) bool { return r.j.done })
}
