package resp

import (
	"time"

	"swiftpaxos/client"
)

// job is one command of a connection, from the moment it is read to the
// moment its reply is written. A command runs as steps: each step submits
// operations to the connection's session and, once they have all
// completed, its continuation (then) either writes the reply or sets the
// operations of the next step. Most commands take one step; those that
// take more (a read-modify-write loop, a DBSIZE walk) hold back the
// commands after them until they finish, so that the session sees every
// command's operations in the order of the commands.
type job struct {
	spec  *spec
	level client.Level
	start time.Time

	ops []client.Op
	res []client.Result
	// one holds the operation and result of a one-operation step, the
	// most common, so that it takes no allocations of its own.
	oneOp  [1]client.Op
	oneRes [1]client.Result
	sent   int // ops of this step submitted
	left   int // ops submitted and not completed
	then   func(c *conn, j *job)

	// multi says the command may take more than one step.
	multi bool
	// async says the reply comes from a goroutine of its own (INFO asks
	// the replica); the job is done when it arrives.
	async bool
	// attempts counts the compare-and-set rounds of a read-modify-write.
	attempts int
	// counted is what a walk of the keys counted so far (DBSIZE).
	counted int64

	out  []byte
	done bool
	// bytes is what the job holds in its connection's memory: its
	// results' keys and values until it finishes, its reply after
	// (conn.held adds them up).
	bytes   int
	settled bool
	// quit closes the connection once the reply is written (QUIT, a
	// protocol error).
	quit bool
	// failed: the reply is an error (metrics).
	failed bool
}

// reply finishes j with the reply out.
func (j *job) reply(out []byte) {
	j.out, j.done = out, true
	j.ops, j.res, j.then = nil, nil, nil
}

// fail finishes j with an error reply.
func (j *job) fail(msg string) {
	j.reply(appendError(nil, msg))
	j.failed = true
}

// run sets the operation of j's next step and what to do once it
// completes.
func (j *job) run(then func(c *conn, j *job), op client.Op) {
	j.oneOp[0], j.oneRes[0] = op, client.Result{}
	j.ops, j.res, j.sent, j.left, j.then = j.oneOp[:], j.oneRes[:], 0, 0, then
}

// runAll sets the operations of j's next step and what to do once they
// all complete.
func (j *job) runAll(then func(c *conn, j *job), ops []client.Op) {
	j.ops, j.res, j.sent, j.left, j.then = ops, make([]client.Result, len(ops)), 0, 0, then
}

// stepDone says every operation of the current step has completed.
func (j *job) stepDone() bool { return !j.done && j.sent == len(j.ops) && j.left == 0 }

// firstErr is the error of the first failed operation of the step, or nil.
func (j *job) firstErr() error {
	for _, r := range j.res {
		if r.Err != nil {
			return r.Err
		}
	}
	return nil
}
