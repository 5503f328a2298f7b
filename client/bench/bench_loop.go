package bench

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"swiftpaxos/client"
	"swiftpaxos/kvs"
	"swiftpaxos/metrics"
	"swiftpaxos/wire"
)

// ErrReplyTimeout: a benchmark thread received no completion for
// replyTimeout and stopped (PROTOCOL.md 8.1).
var ErrReplyTimeout = errors.New("no reply within replyTimeout")

// opSession is the part of a Session the benchmark loop drives. The loop
// relies on Session numbering operations 1, 2, ... in Submit order (the
// Seq of their Result), which is how it matches a completion to its send
// instant.
type opSession interface {
	Submit(op client.Op) error
	Completions() <-chan client.Result
}

// opSource draws a thread's operations; *Generator is one.
type opSource interface {
	WarmUp() client.Op
	Next() client.Op
}

// loopOptions configures one benchmark thread.
type loopOptions struct {
	Thread int
	Reqs   int // measured operations, after the warm-up
	// RunFor, when positive, replaces Reqs: the thread issues operations
	// until the run clock (Now) reaches it, then waits for those in flight
	// (config runTime).
	RunFor       time.Duration
	Window       int // most operations in flight
	ReplyTimeout time.Duration
	Ops          opSource
	// Now is the run's clock: nanoseconds since the run started, shared
	// by all threads so that their timelines line up.
	Now       func() int64
	StartUnix int64         // wall-clock second of Now() == 0, for TPUT lines
	Progress  *atomic.Int64 // completed operations of the process; may be nil
	Failed    *atomic.Int64 // failed operations (errors, timeouts) of the process; may be nil
	Log       *zap.Logger
	// Record, when set, receives every operation of the thread, warm-up
	// included, with wall-clock invoke and return instants (check mode).
	// Operations still in flight when the thread stops come with ok false.
	Record func(seq wire.Seq, op client.Op, invokeNS, returnNS int64, r client.Result, ok bool)
	// Invoked, when set, is told of every operation before it is handed
	// to the session, with its wall-clock invoke instant (the journal);
	// an error stops the thread before the operation is sent.
	Invoked func(seq wire.Seq, op client.Op, invokeNS int64) error
	// Wall is the wall clock of the history's instants, in Unix
	// nanoseconds (time.Now when nil).
	Wall func() int64
	// Metrics, when set, counts every measured operation (metrics key);
	// it is this thread's alone.
	Metrics *metrics.ThreadOps
}

// threadStats is what one thread measured. Warm-ups are not in it.
type threadStats struct {
	lat                   ClassHistograms
	ops, errors, timeouts int64
	fast, slow            int64
	timeline              []int64 // successful completions per second of the run
	timelineFast          []int64 // of which strong operations on the fast path
	timelineSlow          []int64 // and on the slow path
	first, last           int64   // run clock: send of operation 1, last completion
	started               bool    // operation 1 was sent
	maxInFlight           int
}

// duration is the thread's measured duration (PROTOCOL.md 8.3).
func (st *threadStats) duration() time.Duration {
	if !st.started || st.last <= st.first {
		return 0
	}
	return time.Duration(st.last - st.first)
}

type sentOp struct {
	op   client.Op
	at   int64 // run clock at Submit
	wall int64 // wall clock at Submit, for the history
}

// loop is one benchmark thread: a closed loop over Reqs+1 operations (or
// one warm-up and as many as fit in RunFor) with at most Window in flight
// (PROTOCOL.md 8.1).
type loop struct {
	o  loopOptions
	s  opSession
	st *threadStats
	// inflight maps each operation in flight to its slot in sent; free
	// lists the slots not in use. A map of sentOp values would allocate
	// on every insert: Go stores a value over 128 bytes out of line.
	inflight map[wire.Seq]int
	sent     []sentOp
	free     []int
	seq      wire.Seq // Seq of the last submitted operation
	timer    *time.Timer
	logged   int // seconds of the timeline already logged as TPUT
}

// runThread runs one thread to the end, or until ctx ends, a reply
// timeout, or a session failure. The stats hold everything measured up to
// that point; a non-nil error means the thread stopped early.
func runThread(ctx context.Context, s opSession, o loopOptions) (*threadStats, error) {
	o.Window = max(o.Window, 1)
	if o.Wall == nil {
		o.Wall = func() int64 { return time.Now().UnixNano() }
	}
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
	l := &loop{o: o, s: s, st: &threadStats{}, inflight: make(map[wire.Seq]int, o.Window)}
	err := l.run(ctx)
	if l.o.Record != nil {
		for seq, i := range l.inflight {
			l.o.Record(seq, l.sent[i].op, l.sent[i].wall, 0, client.Result{}, false)
		}
	}
	if err != nil {
		err = fmt.Errorf("thread %d: %w", o.Thread, err)
	}
	return l.st, err
}

func (l *loop) run(ctx context.Context) error {
	l.timer = time.NewTimer(l.o.ReplyTimeout)
	defer l.timer.Stop()
	defer l.logThroughput(true)

	if err := l.submit(l.o.Ops.WarmUp()); err != nil {
		return err
	}
	r, _, _, err := l.await(ctx)
	if err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	if r.Err != nil {
		return fmt.Errorf("warm-up %s: %w", r.Op, r.Err)
	}

	issued := 0
	more := func() bool {
		if l.o.RunFor > 0 {
			return l.o.Now() < int64(l.o.RunFor)
		}
		return issued < l.o.Reqs
	}
	for more() && len(l.inflight) < l.o.Window {
		if err := l.submit(l.o.Ops.Next()); err != nil {
			return err
		}
		issued++
	}
	for len(l.inflight) > 0 {
		r, sent, now, err := l.await(ctx)
		if err != nil {
			return err
		}
		l.record(r, sent, now)
		if more() {
			if err := l.submit(l.o.Ops.Next()); err != nil {
				return err
			}
			issued++
		}
	}
	return nil
}

// submit hands op to the session. Both instants are taken before the
// hand-over: a recorded interval may be wider than the real one, never
// narrower, or the checker could flag a correct run (PROTOCOL.md 2.6).
func (l *loop) submit(op client.Op) error {
	at, wall := l.o.Now(), l.o.Wall()
	if l.o.Invoked != nil {
		if err := l.o.Invoked(l.seq+1, op, wall); err != nil {
			return fmt.Errorf("submit %s: %w", op, err)
		}
	}
	if err := l.s.Submit(op); err != nil {
		return fmt.Errorf("submit %s: %w", op, err)
	}
	l.seq++
	l.track(l.seq, sentOp{op: op, at: at, wall: wall})
	l.st.maxInFlight = max(l.st.maxInFlight, len(l.inflight))
	if l.seq == 2 { // operation 1: the first measured one
		l.st.first, l.st.started = at, true
	}
	return nil
}

// track records op seq as in flight.
func (l *loop) track(seq wire.Seq, op sentOp) {
	i := len(l.sent)
	if n := len(l.free); n > 0 {
		i, l.free = l.free[n-1], l.free[:n-1]
		l.sent[i] = op
	} else {
		l.sent = append(l.sent, op)
	}
	l.inflight[seq] = i
}

// untrack returns the operation seq was in flight with and forgets it.
func (l *loop) untrack(seq wire.Seq) (sentOp, bool) {
	i, ok := l.inflight[seq]
	if !ok {
		return sentOp{}, false
	}
	delete(l.inflight, seq)
	op := l.sent[i]
	l.sent[i] = sentOp{} // holds no key or value of a completed operation
	l.free = append(l.free, i)
	return op, true
}

// await waits for the next completion.
func (l *loop) await(ctx context.Context) (client.Result, sentOp, int64, error) {
	select {
	case <-ctx.Done():
		return client.Result{}, sentOp{}, 0, ctx.Err()
	case <-l.timer.C:
		n := len(l.inflight)
		l.st.timeouts += int64(n)
		l.failed(int64(n))
		l.o.Log.Warn("reply timeout: thread stops",
			zap.Int("thread", l.o.Thread), zap.Duration("reply_timeout", l.o.ReplyTimeout),
			zap.Int64("completed", l.st.ops), zap.Int64("errors", l.st.errors),
			zap.Int("in_flight", n), zap.Uint64("submitted", uint64(l.seq)))
		return client.Result{}, sentOp{}, 0, fmt.Errorf("%w (%v) with %d operations in flight, %d completed",
			ErrReplyTimeout, l.o.ReplyTimeout, n, l.st.ops)
	case r, ok := <-l.s.Completions():
		now := l.o.Now()
		if !ok {
			return client.Result{}, sentOp{}, 0, client.ErrClosed
		}
		sent, found := l.untrack(r.Seq)
		if !found {
			return client.Result{}, sentOp{}, 0, fmt.Errorf("completion of seq %d, which is not in flight", r.Seq)
		}
		l.timer.Reset(l.o.ReplyTimeout)
		if l.o.Record != nil {
			l.o.Record(r.Seq, sent.op, sent.wall, l.o.Wall(), r, r.Err == nil)
		}
		return r, sent, now, nil
	}
}

// record accounts for one measured completion.
func (l *loop) record(r client.Result, sent sentOp, now int64) {
	st := l.st
	st.last = now
	if r.Err != nil {
		if errors.Is(r.Err, client.ErrTimeout) {
			st.timeouts++
		} else {
			st.errors++
		}
		l.failed(1)
		l.observe(sent.op, metrics.PathFailed, 0)
		if ce := l.o.Log.Check(zap.DebugLevel, "operation failed"); ce != nil {
			ce.Write(zap.Int("thread", l.o.Thread), zap.Stringer("op", sent.op), zap.Error(r.Err))
		}
		return
	}
	st.ops++
	lat := time.Duration(now - sent.at)
	st.lat.Of(ClassOf(sent.op)).Record(lat)
	sec := int(now / int64(time.Second))
	path := metrics.PathWeak
	if sent.op.Level == wire.Strong {
		switch r.Path {
		case client.PathFast:
			st.fast++
			addAt(&st.timelineFast, sec, 1)
			path = metrics.PathFast
		case client.PathSlow:
			st.slow++
			addAt(&st.timelineSlow, sec, 1)
			path = metrics.PathSlow
		}
	}
	l.observe(sent.op, path, lat)
	addAt(&st.timeline, sec, 1)
	if l.o.Progress != nil {
		l.o.Progress.Add(1)
	}
	if sec > l.logged {
		l.logThroughput(false)
	}
}

// observe hands one measured operation to the process's metrics.
func (l *loop) observe(op client.Op, path int, lat time.Duration) {
	if l.o.Metrics == nil {
		return
	}
	level := metrics.LevelStrong
	if op.Level == wire.Weak {
		level = metrics.LevelWeak
	}
	kind := metrics.KindOf(op.Command.IsWrite(), op.Command.Op == kvs.OpScan)
	l.o.Metrics.Observe(level, kind, path, lat)
}

func (l *loop) failed(n int64) {
	if l.o.Failed != nil {
		l.o.Failed.Add(n)
	}
}

// logThroughput logs a TPUT line for every finished second of the
// timeline (PROTOCOL.md 8.3), and at the end for the last, partial one.
func (l *loop) logThroughput(final bool) {
	upTo := len(l.st.timeline) - 1 // the current second is not finished
	if final {
		upTo = len(l.st.timeline)
	}
	for ; l.logged < upTo; l.logged++ {
		l.o.Log.Info("TPUT", zap.Int("thread", l.o.Thread), zap.Int64("unix", l.o.StartUnix+int64(l.logged)),
			zap.Int("second", l.logged), zap.Int64("ops", l.st.timeline[l.logged]))
	}
}

// addAt adds n to second i of a timeline, growing it as needed.
func addAt(tl *[]int64, i int, n int64) {
	for len(*tl) <= i {
		*tl = append(*tl, 0)
	}
	(*tl)[i] += n
}
