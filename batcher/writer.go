package batcher

import (
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"
)

// writer is the state of the single writer goroutine. Nothing here is shared:
// only the goroutine running run touches it.
type writer[M any] struct {
	b     *Batcher[M]
	timer *time.Timer // reused for every wait; stopped when idle

	// buf holds the batch being built: its first batchLen bytes encode batchN
	// messages. If carry is set, buf[batchLen:] encodes one more message that did
	// not fit under MaxBatchBytes; it opens the next batch.
	buf      []byte
	batchLen int
	batchN   int
	carry    bool

	// held is a message taken from the queue whose release time is later than
	// the current batch may wait; it opens the next batch.
	held    item[M]
	hasHeld bool

	prevN int // messages in the previous batch: >1 enables the batch delay
}

func newWriter[M any](b *Batcher[M]) *writer[M] {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &writer[M]{
		b:     b,
		timer: t,
		buf:   make([]byte, 0, b.opts.MaxBatchBytes),
	}
}

// run is the writer goroutine: collect a batch, write it, repeat, until the
// batcher is stopped or a write fails.
func (w *writer[M]) run() {
	defer w.exit()
	for w.collect() {
		if err := w.flush(); err != nil {
			w.b.stop(err)
			return
		}
	}
}

// collect fills the batch (PROTOCOL.md section 9.1). It returns false when the
// batcher is stopping.
//
// The first message is awaited without limit. After it, the batch keeps growing
// while messages are queued. When the queue is momentarily empty the batch is
// flushed, unless the previous batch held more than one message and BatchDelay
// is set: then the writer waits for more until BatchDelay after the first
// message. MaxBatchMsgs and MaxBatchBytes end a batch early. A message is never
// added before its release time (Options.Delay).
func (w *writer[M]) collect() bool {
	o := &w.b.opts
	if w.carry {
		w.takeCarry()
	} else {
		it, ok := w.first()
		if !ok {
			return false
		}
		if !w.sleepUntil(it.release) {
			w.hold(it)
			return false
		}
		w.add(it)
	}
	wait := o.BatchDelay > 0 && w.prevN > 1
	var flushAt int64
	if wait {
		flushAt = w.b.now() + int64(o.BatchDelay)
	}
	for !w.full() {
		it, ok := w.poll()
		if !ok {
			if !wait {
				break
			}
			var stopping bool
			it, ok, stopping = w.recvUntil(flushAt)
			if stopping {
				return false
			}
			if !ok {
				break // BatchDelay elapsed
			}
		}
		if it.release != 0 && it.release > w.b.now() {
			if !wait || it.release > flushAt {
				w.hold(it) // keep FIFO: it opens the next batch
				break
			}
			if !w.sleepUntil(it.release) {
				w.hold(it)
				return false
			}
		}
		w.add(it)
	}
	return true
}

// first returns the held message or blocks for the next queued one.
func (w *writer[M]) first() (item[M], bool) {
	if w.hasHeld {
		w.hasHeld = false
		return w.held, true
	}
	select {
	case it := <-w.b.queue:
		return it, true
	case <-w.b.quit:
		return item[M]{}, false
	}
}

// poll returns the held message or a queued one without blocking.
func (w *writer[M]) poll() (item[M], bool) {
	if w.hasHeld {
		w.hasHeld = false
		return w.held, true
	}
	select {
	case it := <-w.b.queue:
		return it, true
	default:
		return item[M]{}, false
	}
}

// recvUntil waits for a queued message until the batcher time deadline.
func (w *writer[M]) recvUntil(deadline int64) (it item[M], ok, stopping bool) {
	d := time.Duration(deadline - w.b.now())
	if d <= 0 {
		return it, false, false
	}
	w.timer.Reset(d)
	defer w.timer.Stop()
	select {
	case it = <-w.b.queue:
		return it, true, false
	case <-w.timer.C:
		return it, false, false
	case <-w.b.quit:
		return it, false, true
	}
}

// sleepUntil waits until the batcher time release (0: no wait). It returns false
// if the batcher is stopping.
func (w *writer[M]) sleepUntil(release int64) bool {
	if release == 0 {
		return true
	}
	d := time.Duration(release - w.b.now())
	if d <= 0 {
		return true
	}
	w.timer.Reset(d)
	defer w.timer.Stop()
	select {
	case <-w.timer.C:
		return true
	case <-w.b.quit:
		return false
	}
}

func (w *writer[M]) hold(it item[M]) {
	w.held, w.hasHeld = it, true
}

// add encodes it into the batch. If the batch already has a message and it
// would exceed MaxBatchBytes, its bytes stay after the batch as the carry.
func (w *writer[M]) add(it item[M]) {
	if e := w.b.opts.Encoders; e != nil {
		_ = e.Acquire(background, 1) // cannot fail: the context never ends
		w.buf = w.b.encode(w.buf, it.m)
		e.Release(1)
	} else {
		w.buf = w.b.encode(w.buf, it.m)
	}
	if w.batchN > 0 && len(w.buf) > w.b.opts.MaxBatchBytes {
		w.carry = true
		return
	}
	w.batchLen = len(w.buf)
	w.batchN++
}

// takeCarry makes the carried message the first of the (empty) batch.
func (w *writer[M]) takeCarry() {
	w.carry = false
	w.batchLen = len(w.buf)
	w.batchN = 1
}

func (w *writer[M]) full() bool {
	return w.carry || w.batchN >= w.b.opts.MaxBatchMsgs || w.batchLen >= w.b.opts.MaxBatchBytes
}

// flush writes the batch: on a socket with sockWriter, which waits at most
// WriteTimeout for room; otherwise with one conn.Write under a fresh write
// deadline.
func (w *writer[M]) flush() error {
	b := w.b
	p := w.buf[:w.batchLen]
	var n int
	var err error
	if b.sock != nil {
		n, err = b.sock.write(p, b.opts.WriteTimeout)
	} else if err = b.conn.SetWriteDeadline(time.Now().Add(b.opts.WriteTimeout)); err == nil {
		n, err = b.conn.Write(p)
	}
	if err != nil {
		return fmt.Errorf("batcher: write batch of %d messages (%d of %d bytes written) to %s: %w",
			w.batchN, n, len(p), b.remote, err)
	}
	b.batches.Add(1)
	b.messages.Add(uint64(w.batchN))
	b.bytes.Add(uint64(len(p)))
	w.prevN = w.batchN

	// Keep the carried message, if any, at the start of the buffer; drop an
	// oversized buffer grown by a huge message.
	rest := len(w.buf) - w.batchLen
	if cap(w.buf) > 4*b.opts.MaxBatchBytes && rest <= b.opts.MaxBatchBytes {
		nb := make([]byte, rest, b.opts.MaxBatchBytes)
		copy(nb, w.buf[w.batchLen:])
		w.buf = nb
	} else {
		w.buf = w.buf[:copy(w.buf, w.buf[w.batchLen:])]
	}
	w.batchLen, w.batchN = 0, 0
	return nil
}

// exit runs when the writer stops (quit is closed by then). It waits until no
// Send can still enqueue, counts everything accepted but unwritten as dropped,
// and closes done.
func (w *writer[M]) exit() {
	b := w.b
	b.mu.Lock() // barrier: every Send that could enqueue has returned
	b.mu.Unlock()
	dropped := uint64(w.batchN)
	if w.carry {
		dropped++
	}
	if w.hasHeld {
		dropped++
	}
	for drained := false; !drained; {
		select {
		case <-b.queue:
			dropped++
		default:
			drained = true
		}
	}
	b.dropped.Add(dropped)
	reason := b.Err()
	if errors.Is(reason, ErrClosed) {
		b.log.Debug("batcher: closed", zap.Uint64("dropped", dropped))
	} else {
		b.log.Warn("batcher: stopped, peer treated as down", zap.Error(reason), zap.Uint64("dropped", dropped))
	}
	if b.opts.Stopped != nil {
		b.opts.Stopped(b.Stats())
	}
	close(b.done)
}
