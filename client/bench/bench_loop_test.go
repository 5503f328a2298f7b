package bench

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/client"
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

func TestLoopWindowAndWarmUp(t *testing.T) {
	for _, window := range []int{1, 3, 15} {
		t.Run(fmt.Sprint("window ", window), func(t *testing.T) {
			const reqs = 2000
			r := runFake(t, t.Context(), mixed, reqs, window, 1<<30, time.Minute, nil)
			require.NoError(t, r.err)
			assert.Empty(t, r.fake.violations)
			assert.Equal(t, window, r.fake.maxInFlight, "the window is filled")
			assert.Equal(t, window, r.st.maxInFlight)

			require.Len(t, r.fake.ops, reqs+1, "reqs operations plus one warm-up")
			assert.Equal(t, client.Op{Level: wire.Strong, Command: kvs.Command{Op: kvs.OpGet, Key: NewKeys(mixed.KeySpace, mixed.HotKey).Of(0)}}, r.fake.ops[0])

			// The warm-up is in no statistic: reqs samples, and its
			// (fast) path is not counted.
			assert.Equal(t, int64(reqs), r.st.ops)
			var samples int64
			for c := range numClasses {
				samples += r.st.lat.Of(c).Count()
			}
			assert.Equal(t, int64(reqs), samples)
			var strong, strongSlow int64
			for i, op := range r.fake.ops[1:] {
				if op.Level == wire.Strong {
					strong++
					if (i+2)%3 == 0 {
						strongSlow++
					}
				}
			}
			assert.Equal(t, strong, r.st.fast+r.st.slow)
			assert.Equal(t, strongSlow, r.st.slow)
			assert.Equal(t, r.st.lat.StrongRead.Count()+r.st.lat.StrongWrite.Count(), strong)

			var tl, tlFast, tlSlow int64
			for _, n := range r.st.timeline {
				tl += n
			}
			for _, n := range r.st.timelineFast {
				tlFast += n
			}
			for _, n := range r.st.timelineSlow {
				tlSlow += n
			}
			assert.Equal(t, int64(reqs), tl)
			assert.Equal(t, r.st.fast, tlFast, "the fast path per second")
			assert.Equal(t, r.st.slow, tlSlow, "the slow path per second")
			// Operation 1 is sent when the warm-up completes (1 ms); the
			// last completion is delivery reqs+1.
			assert.True(t, r.st.started)
			assert.Equal(t, int64(time.Millisecond), r.st.first)
			assert.Equal(t, time.Duration(reqs)*time.Millisecond, r.st.duration())
			// With the fake's clock every latency is a whole number of
			// deliveries, at least one.
			assert.GreaterOrEqual(t, r.st.lat.StrongRead.Stats().P50Ms, 1.0)
		})
	}
}

func TestLoopCountsErrors(t *testing.T) {
	boom := errors.New("boom")
	r := runFake(t, t.Context(), mixed, 300, 4, 1<<30, time.Minute, func(f *fakeSession) {
		f.result = func(seq int, op client.Op) client.Result {
			switch {
			case seq > 1 && seq%10 == 0:
				return client.Result{Err: boom}
			case seq > 1 && seq%15 == 0:
				return client.Result{Err: fmt.Errorf("%s: %w", op, client.ErrTimeout)}
			}
			return client.Result{Path: client.PathSlow}
		}
	})
	require.NoError(t, r.err)
	// Seqs 2..301: multiples of 10 fail, other multiples of 15 time out.
	assert.Equal(t, int64(30), r.st.errors)
	assert.Equal(t, int64(10), r.st.timeouts)
	assert.Equal(t, int64(260), r.st.ops)
	var samples int64
	for c := range numClasses {
		samples += r.st.lat.Of(c).Count()
	}
	assert.Equal(t, int64(260), samples, "failed operations have no latency")
}

func TestLoopReplyTimeout(t *testing.T) {
	// 6 completions (the warm-up and 5 measured), then silence.
	r := runFake(t, t.Context(), mixed, 100, 4, 6, 50*time.Millisecond, nil)
	require.ErrorIs(t, r.err, ErrReplyTimeout)
	assert.Equal(t, int64(5), r.st.ops)
	assert.Equal(t, int64(4), r.st.timeouts, "the operations in flight")
	lines := r.logs.FilterMessage("reply timeout: thread stops").All()
	require.Len(t, lines, 1)
	assert.Equal(t, int64(5), lines[0].ContextMap()["completed"])
}

// TestLoopReplyTimeoutIsPerReply: a run longer than replyTimeout whose
// replies are never that far apart completes.
func TestLoopReplyTimeoutIsPerReply(t *testing.T) {
	start := time.Now()
	r := runFake(t, t.Context(), mixed, 40, 2, 1<<30, 250*time.Millisecond, func(f *fakeSession) { f.pause = 10 * time.Millisecond })
	require.NoError(t, r.err)
	assert.Equal(t, int64(40), r.st.ops)
	require.Greater(t, time.Since(start), 250*time.Millisecond, "the run must outlast replyTimeout to test anything")
}

func TestLoopWarmUpTimeout(t *testing.T) {
	r := runFake(t, t.Context(), mixed, 100, 4, 0, 20*time.Millisecond, nil)
	require.ErrorIs(t, r.err, ErrReplyTimeout)
	assert.ErrorContains(t, r.err, "warm-up")
	assert.False(t, r.st.started)
	assert.Zero(t, r.st.ops)
}

func TestLoopStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan loopRun)
	var fake *fakeSession
	ready := make(chan struct{})
	go func() {
		done <- runFake(t, ctx, mixed, 1000, 4, 20, time.Minute, func(f *fakeSession) {
			fake = f
			close(ready)
		})
	}()
	<-ready
	<-fake.stall
	cancel()
	r := <-done
	require.ErrorIs(t, r.err, context.Canceled)
	assert.Equal(t, int64(19), r.st.ops)
}

func TestLoopRejectsUnknownCompletion(t *testing.T) {
	r := runFake(t, t.Context(), mixed, 10, 2, 1<<30, time.Minute, func(f *fakeSession) { f.seqOffset = 100 })
	require.Error(t, r.err)
	assert.Contains(t, r.err.Error(), "seq 101, which is not in flight")
}

func TestProcessResultsAggregates(t *testing.T) {
	a := &threadStats{ops: 100, fast: 10, slow: 5, started: true, first: 1e9, last: 3e9, timeline: []int64{0, 40, 60},
		timelineFast: []int64{0, 4, 6}, timelineSlow: []int64{0, 5}}
	b := &threadStats{ops: 300, errors: 2, timeouts: 1, started: true, first: 1e9, last: 2e9, timeline: []int64{0, 300},
		timelineFast: []int64{1}}
	a.lat.StrongRead.Record(time.Millisecond)
	b.lat.StrongRead.Record(3 * time.Millisecond)
	r, err := processResults([]*threadStats{a, b}, []uint64{1, 2}, nil)
	require.NoError(t, err)
	assert.Equal(t, int64(400), r.Ops)
	assert.Equal(t, int64(2), r.Errors)
	assert.Equal(t, int64(1), r.Timeouts)
	assert.Equal(t, int64(10), r.FastPath)
	assert.Equal(t, int64(5), r.SlowPath)
	assert.InDelta(t, 2.0, r.DurationS, 1e-9, "the longest thread")
	assert.InDelta(t, 200.0, r.ThroughputOps, 1e-9, "total over the longest duration")
	assert.Equal(t, []int64{0, 340, 60}, r.Timeline)
	assert.Equal(t, []int64{1, 4, 6}, r.TimelineFast)
	assert.Equal(t, []int64{0, 5}, r.TimelineSlow)
	assert.Equal(t, int64(2), r.Latency.StrongRead.Count())
	assert.True(t, r.Complete)

	r, err = processResults([]*threadStats{a}, nil, ErrReplyTimeout)
	require.NoError(t, err)
	assert.False(t, r.Complete)
	assert.Equal(t, ErrReplyTimeout.Error(), r.Error)
}

// slowHandover is a session whose Submit is slow to return, as when the
// loop's goroutine is descheduled right after handing an operation over:
// the wall clock moves on between the hand-over and Submit's return.
type slowHandover struct {
	wall     atomic.Int64
	handover map[wire.Seq]int64 // wall instant each operation was handed over
	seq      wire.Seq
	out      chan client.Result
}

func (s *slowHandover) Submit(op client.Op) error {
	s.seq++
	s.handover[s.seq] = s.wall.Load()
	s.out <- client.Result{Seq: s.seq, Op: op, Path: client.PathWeak}
	s.wall.Add(int64(time.Millisecond))
	return nil
}

func (s *slowHandover) Completions() <-chan client.Result { return s.out }

// TestHistoryInvocationPrecedesHandover: PROTOCOL.md 2.6. The recorded
// invocation of every operation is at or before the instant it was handed
// to the session; taken after Submit returns, it would follow the
// hand-over (and, on a busy machine, even the operation's ordering), and
// the checker could report a correct run.
func TestHistoryInvocationPrecedesHandover(t *testing.T) {
	s := &slowHandover{handover: map[wire.Seq]int64{}, out: make(chan client.Result, 64)}
	invoked := map[wire.Seq]int64{}
	_, err := runThread(context.Background(), s, loopOptions{
		Reqs: 20, Window: 4, ReplyTimeout: time.Second, Ops: &constOps{},
		Now: func() int64 { return s.wall.Load() }, Wall: func() int64 { return s.wall.Load() },
		Record: func(seq wire.Seq, op client.Op, inv, ret int64, r client.Result, ok bool) {
			require.True(t, ok)
			require.LessOrEqual(t, inv, ret)
			invoked[seq] = inv
		},
	})
	require.NoError(t, err)
	require.Len(t, invoked, 21)
	for seq, at := range s.handover {
		require.LessOrEqual(t, invoked[seq], at, "operation %d recorded as invoked after it was handed over", seq)
	}
}

type constOps struct{}

func (constOps) WarmUp() client.Op {
	return client.Op{Level: wire.Strong, Command: kvs.Command{Op: kvs.OpGet, Key: "k1"}}
}
func (constOps) Next() client.Op {
	return client.Op{Level: wire.Weak, Command: kvs.Command{Op: kvs.OpGet, Key: "k2"}}
}

// TestLoopRunFor: with RunFor the thread issues operations until its clock
// reaches RunFor (Reqs is ignored), then drains the ones in flight. The
// fake's clock is 1 ms per delivery: delivery 1 is the warm-up, deliveries
// 2..499 each let one more operation go, delivery 500 reaches 500 ms. The
// fake sets its clock when it offers a delivery, so with several
// operations in flight it may already offer delivery 500 when the loop
// looks at the clock after delivery 499: one operation fewer.
func TestLoopRunFor(t *testing.T) {
	for _, window := range []int{1, 4} {
		t.Run(fmt.Sprintf("window %d", window), func(t *testing.T) {
			life, end := context.WithCancel(context.Background())
			fake := newFake(life, window, 1<<30, 5)
			go fake.run()
			st, err := runThread(t.Context(), fake, loopOptions{
				Thread: 0, Reqs: 10, RunFor: 500 * time.Millisecond, Window: window, ReplyTimeout: time.Minute,
				Ops: newGen(t, mixed, 0, 1), Now: fake.clock.Load,
			})
			end()
			<-fake.stopped
			require.NoError(t, err)
			want := window + 498
			if window > 1 && st.ops == int64(want-1) {
				want--
			}
			assert.Equal(t, int64(want), st.ops)
			assert.Len(t, fake.ops, want+1, "the warm-up and the measured operations")
			assert.Equal(t, int64(want+1)*int64(time.Millisecond), st.last, "the thread drained what was in flight")
			assert.Empty(t, fake.violations)
		})
	}
}
