package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"swiftpaxos/client"
	"swiftpaxos/wire"
)

// fakeSession completes submitted operations from its own goroutine, in a
// random (seeded) order, over unbuffered channels: an operation counts as
// delivered exactly when the loop has received it, so the fake sees the
// loop's true number of operations in flight.
type fakeSession struct {
	in  chan client.Op
	out chan client.Result
	ctx context.Context

	window    int
	limit     int           // deliver at most this many completions, then stall
	stall     chan struct{} // closed when the fake stalls
	result    func(seq int, op client.Op) client.Result
	seqOffset wire.Seq // added to every delivered Seq
	rng       *rand.Rand
	// clock is the loop's clock: it advances 1 ms before each delivery.
	clock     atomic.Int64
	delivered int
	pause     time.Duration // real time between deliveries

	// Written by the fake's goroutine; read after the loop returned and
	// the fake stopped.
	ops         []client.Op
	maxInFlight int
	violations  []string
	stopped     chan struct{}
}

func newFake(ctx context.Context, window, limit int, seed uint64) *fakeSession {
	f := &fakeSession{in: make(chan client.Op), out: make(chan client.Result), ctx: ctx, window: window, limit: limit,
		stall: make(chan struct{}), stopped: make(chan struct{})}
	f.result = func(seq int, op client.Op) client.Result {
		r := client.Result{Path: client.PathWeak}
		if op.Level == wire.Strong {
			r.Path = client.PathFast
			if seq%3 == 0 {
				r.Path = client.PathSlow
			}
		}
		return r
	}
	f.rng = rand.New(rand.NewPCG(seed, 0))
	return f
}

func (f *fakeSession) Submit(op client.Op) error {
	select {
	case f.in <- op:
		return nil
	case <-f.ctx.Done():
		return client.ErrClosed
	}
}

// advance sets the clock to (deliveries+1) ms when a delivery is offered.
// select evaluates it on every round, so the value must not depend on how
// often it is called.
func (f *fakeSession) advance(r client.Result) client.Result {
	if r.Seq != 0 {
		f.clock.Store(int64(f.delivered+1) * int64(time.Millisecond))
	}
	return r
}

func (f *fakeSession) Completions() <-chan client.Result { return f.out }

func (f *fakeSession) run() {
	rng := f.rng
	defer close(f.stopped)
	var pending []client.Result
	stalled, ripe := false, f.pause == 0
	var wait <-chan time.Time
	for {
		var out chan client.Result
		var next client.Result
		i := 0
		if len(pending) > 0 && !ripe && wait == nil {
			wait = time.After(f.pause)
		}
		if len(pending) > 0 && f.delivered < f.limit && ripe {
			i = rng.IntN(len(pending))
			out, next = f.out, pending[i]
			next.Seq += f.seqOffset
		}
		if f.delivered >= f.limit && !stalled {
			stalled = true
			close(f.stall)
		}
		select {
		case op := <-f.in:
			f.ops = append(f.ops, op)
			seq := len(f.ops)
			r := f.result(seq, op)
			r.Seq, r.Op = wire.Seq(seq), op
			pending = append(pending, r)
			inFlight := seq - f.delivered
			f.maxInFlight = max(f.maxInFlight, inFlight)
			if inFlight > f.window {
				f.violations = append(f.violations, fmt.Sprintf("seq %d: %d in flight, window %d", seq, inFlight, f.window))
			}
			if seq == 2 && f.delivered == 0 {
				f.violations = append(f.violations, "operation 1 sent before the warm-up completed")
			}
		case out <- f.advance(next):
			pending = append(pending[:i], pending[i+1:]...)
			f.delivered++
			ripe = f.pause == 0
		case <-wait:
			ripe, wait = true, nil
		case <-f.ctx.Done():
			return
		}
	}
}

type loopRun struct {
	st   *threadStats
	err  error
	fake *fakeSession
	logs *observer.ObservedLogs
}

func runFake(t *testing.T, ctx context.Context, p WorkloadParams, reqs, window, limit int, timeout time.Duration,
	tweak func(*fakeSession)) loopRun {
	t.Helper()
	// The fake session lives until the loop returned; ctx is the loop's.
	life, end := context.WithCancel(context.Background())
	fake := newFake(life, window, limit, 5)
	if tweak != nil {
		tweak(fake)
	}
	go fake.run()
	core, logs := observer.New(zapcore.DebugLevel)
	var progress, failed atomic.Int64
	st, err := runThread(ctx, fake, loopOptions{
		Thread: 0, Reqs: reqs, Window: window, ReplyTimeout: timeout,
		Ops: newGen(t, p, 0, 1), Now: fake.clock.Load,
		Progress: &progress, Failed: &failed, Log: zap.New(core),
	})
	end()
	<-fake.stopped
	assert.Equal(t, st.ops, progress.Load(), "progress counter")
	assert.Equal(t, st.errors+st.timeouts, failed.Load(), "failed counter")
	return loopRun{st: st, err: err, fake: fake, logs: logs}
}

var mixed = WorkloadParams{WeakRatio: 50, WeakWrites: 30, Writes: 20, KeySpace: 100, ScanRatio: 10, ScanCount: 5}
