package batcher

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// Sentinel errors. Errors returned by this package wrap them; test with errors.Is.
var (
	// ErrClosed: the batcher has stopped (Close, a failed write, or a full queue).
	ErrClosed = errors.New("batcher: closed")
	// ErrQueueFull: the queue stayed full for Options.EnqueueTimeout; the peer is
	// treated as dead or too slow and the batcher stops.
	ErrQueueFull = errors.New("batcher: queue full")
)

// EncodeFunc appends one complete frame of m to dst and returns the extended
// slice. It runs on the writer goroutine only, so it needs no locking, but it must
// not call methods of the Batcher that runs it.
type EncodeFunc[M any] func(dst []byte, m M) []byte

// Stats is a snapshot of a Batcher's counters.
type Stats struct {
	Batches  uint64 // successful conn.Write calls (one per batch)
	Messages uint64 // messages written
	Bytes    uint64 // bytes written
	Dropped  uint64 // messages accepted by Send but not written when the batcher stopped
}

// AvgBatch is the mean number of messages per written batch (0 before the first).
func (s Stats) AvgBatch() float64 {
	if s.Batches == 0 {
		return 0
	}
	return float64(s.Messages) / float64(s.Batches)
}

// item is one queued message and its release time (nanoseconds since the
// batcher's epoch, on the monotonic clock; 0 when Options.Delay is 0).
type item[M any] struct {
	m       M
	release int64
}

// Batcher owns one connection's outbound direction: a bounded FIFO queue and the
// single writer goroutine that drains it in batches. See the package doc.
type Batcher[M any] struct {
	conn   net.Conn
	sock   *sockWriter // writes to conn's descriptor; nil: through conn.Write
	encode EncodeFunc[M]
	opts   Options
	log    *zap.Logger
	remote string
	epoch  time.Time // base of item.release

	queue chan item[M]

	// mu orders Send against shutdown: Send holds it shared while it may enqueue;
	// the writer takes it exclusively once, after quit is closed, so that every
	// message that ever entered the queue is either written or counted as dropped.
	mu sync.RWMutex

	stopOnce sync.Once
	quit     chan struct{} // closed by stop: Sends fail, the writer exits
	done     chan struct{} // closed by the writer goroutine when it has exited
	reason   atomic.Pointer[error]

	batches, messages, bytes, dropped atomic.Uint64
}

// New starts the writer goroutine for conn and returns the batcher, which owns
// conn from now on: it closes conn when it stops. log may be nil.
//
// If opts does not validate, the returned batcher is already stopped: Err reports
// why and Send fails. Callers that take options from a configuration file should
// call Options.Validate when loading it.
func New[M any](conn net.Conn, encode EncodeFunc[M], opts Options, log *zap.Logger) *Batcher[M] {
	if conn == nil || encode == nil {
		panic("batcher: New needs a non-nil conn and encode func")
	}
	if log == nil {
		log = zap.NewNop()
	}
	remote := "unknown"
	if a := conn.RemoteAddr(); a != nil {
		remote = a.String()
	}
	b := &Batcher[M]{
		conn:   conn,
		sock:   newSockWriter(conn),
		encode: encode,
		opts:   opts.withDefaults(),
		log:    log.With(zap.String("remote", remote)),
		remote: remote,
		epoch:  time.Now(),
		quit:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	if err := opts.Validate(); err != nil {
		b.log.Error("batcher: invalid options, not starting", zap.Error(err))
		b.stop(err)
		if b.opts.Stopped != nil {
			b.opts.Stopped(Stats{})
		}
		close(b.done)
		return b
	}
	b.queue = make(chan item[M], b.opts.QueueLen)
	w := newWriter(b)
	go w.run()
	return b
}

// Send enqueues m for the writer. It is safe to call from many goroutines; the
// messages of one goroutine are written in the order it sent them. m must not
// be mutated after Send: it is encoded later, on the writer goroutine.
//
// A nil error means m was accepted into the queue. If the queue is full, Send
// blocks for at most Options.EnqueueTimeout; if it is still full the batcher
// stops and Send returns an error wrapping ErrQueueFull. Once the batcher has
// stopped, Send returns an error wrapping ErrClosed.
func (b *Batcher[M]) Send(m M) error { return b.enqueue(m, b.opts.EnqueueTimeout) }

// TrySend is Send without the wait, for an event loop that must never
// block on one slow peer: if the queue is full the batcher stops at once
// and TrySend returns an error wrapping ErrQueueFull.
func (b *Batcher[M]) TrySend(m M) error { return b.enqueue(m, 0) }

// enqueue queues m, waiting at most wait for room.
func (b *Batcher[M]) enqueue(m M, wait time.Duration) error {
	it := item[M]{m: m}
	if b.opts.Delay > 0 {
		it.release = b.now() + int64(b.opts.Delay)
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	select {
	case <-b.quit:
		return b.closedErr()
	default:
	}
	select {
	case b.queue <- it:
		return nil
	default:
	}
	if wait > 0 {
		// Queue full: block, but not for ever (PROTOCOL.md section 10
		// item 10).
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case b.queue <- it:
			return nil
		case <-b.quit:
			return b.closedErr()
		case <-t.C:
		}
	}
	err := fmt.Errorf("batcher: send to %s: queue of %d messages full (waited %v): %w",
		b.remote, b.opts.QueueLen, wait, ErrQueueFull)
	b.stop(err)
	return err
}

// Close stops the writer, closes the connection and waits for the writer to
// exit. Messages still queued are discarded and counted in Stats.Dropped, as if
// the connection had broken. It is safe to call more than once and concurrently;
// only the call that actually closed the connection reports its error.
func (b *Batcher[M]) Close() error {
	first, err := b.stop(ErrClosed)
	<-b.done
	if !first || err == nil {
		return nil
	}
	return fmt.Errorf("batcher: close connection to %s: %w", b.remote, err)
}

// Stats returns a snapshot of the counters. Safe to call at any time.
func (b *Batcher[M]) Stats() Stats {
	return Stats{
		Batches:  b.batches.Load(),
		Messages: b.messages.Load(),
		Bytes:    b.bytes.Load(),
		Dropped:  b.dropped.Load(),
	}
}

// Queued is how many messages wait in the queue now (a metric's queue
// depth). Safe to call at any time.
func (b *Batcher[M]) Queued() int { return len(b.queue) }

// Done is closed when the writer goroutine has stopped, after a failure or Close.
// By then the counters are final.
func (b *Batcher[M]) Done() <-chan struct{} { return b.done }

// Err returns why the batcher stopped: ErrClosed after Close, an error wrapping
// ErrQueueFull or the write error otherwise, or nil while it is running.
func (b *Batcher[M]) Err() error {
	if p := b.reason.Load(); p != nil {
		return *p
	}
	return nil
}

// stop records reason, wakes the writer and every blocked Send, and closes the
// connection (which also unblocks a Write in progress). Only the first call has
// an effect; it reports whether this call was the first and the conn.Close error.
// stop never waits for the writer, so the writer and Send may call it.
func (b *Batcher[M]) stop(reason error) (first bool, closeErr error) {
	b.stopOnce.Do(func() {
		first = true
		b.reason.Store(&reason)
		close(b.quit)
		closeErr = b.conn.Close()
	})
	return first, closeErr
}

// closedErr is what Send returns once the batcher has stopped.
func (b *Batcher[M]) closedErr() error {
	reason := b.Err()
	if reason == nil || errors.Is(reason, ErrClosed) {
		return ErrClosed
	}
	return fmt.Errorf("%w (stopped: %v)", ErrClosed, reason)
}

// now is the monotonic time since the batcher's epoch, in nanoseconds.
func (b *Batcher[M]) now() int64 { return int64(time.Since(b.epoch)) }
