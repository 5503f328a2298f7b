package batcher

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sync/semaphore"
)

// background is the context of encoder-slot waits: the writer never
// abandons a message it has taken from the queue.
var background = context.Background()

// Default values used by Options for every field left at zero (BatchDelay and
// Delay have no default: zero means "no batching delay" and "no injected latency").
const (
	DefaultMaxBatchBytes  = 64 << 10
	DefaultMaxBatchMsgs   = 128
	DefaultQueueLen       = 4096
	DefaultWriteTimeout   = time.Second
	DefaultEnqueueTimeout = time.Second
)

// Options configures one Batcher. The zero value is usable: every field left at
// zero gets its documented default (see withDefaults, the only place defaults
// are filled in). Negative values are rejected by Validate.
type Options struct {
	// BatchDelay is the configuration key batchDelayUs (PROTOCOL.md section 9.1):
	// how long the writer may keep a batch open, measured from its first message,
	// waiting for more messages. It is only used when the previous batch held
	// more than one message, so an idle link pays no delay. Zero (the default)
	// flushes as soon as the queue is momentarily empty.
	BatchDelay time.Duration

	// MaxBatchBytes caps the encoded size of one batch (one conn.Write). A single
	// message larger than the cap is written on its own. Default 64 KiB.
	MaxBatchBytes int

	// MaxBatchMsgs caps the number of messages in one batch. Default 128.
	MaxBatchMsgs int

	// QueueLen is the capacity of the outbound FIFO queue. Default 4096.
	QueueLen int

	// WriteTimeout is the write deadline set before each batch is written; when it
	// expires the peer is treated as dead and the batcher stops (PROTOCOL.md
	// section 9.1: "write deadlines (about 1 s) protect against dead peers").
	// Default 1 s.
	WriteTimeout time.Duration

	// EnqueueTimeout is the longest Send may block on a full queue. When it
	// expires the peer is treated as dead or too slow: the batcher stops and Send
	// returns ErrQueueFull. Default 1 s.
	EnqueueTimeout time.Duration

	// Delay is an injected one-way latency for WAN emulation (PROTOCOL.md
	// section 7.3): no message is written before Send time + Delay. Zero (the
	// default) injects nothing.
	Delay time.Duration

	// Encoders, when set, is shared by several batchers and bounds how
	// many of their writers encode at the same time (each holds one unit
	// while it encodes a message). A replica sizes it with maxDescRoutines
	// (PROTOCOL.md 9.2); nil means no bound.
	Encoders *semaphore.Weighted

	// Stopped, when set, is called exactly once when the batcher has
	// stopped, with its final counters, before Done is closed: an owner
	// that closes its batchers and then reads what they sent (a process's
	// cost report) misses none. It runs on the writer goroutine (or in New
	// when the options are invalid) and must not call the Batcher.
	Stopped func(Stats)
}

// Validate reports every negative field; the message names the field and value.
func (o Options) Validate() error {
	var errs []error
	checkDur := func(name string, d time.Duration) {
		if d < 0 {
			errs = append(errs, fmt.Errorf("batcher: %s must not be negative, got %v", name, d))
		}
	}
	checkInt := func(name string, v int) {
		if v < 0 {
			errs = append(errs, fmt.Errorf("batcher: %s must not be negative, got %d", name, v))
		}
	}
	checkDur("BatchDelay", o.BatchDelay)
	checkInt("MaxBatchBytes", o.MaxBatchBytes)
	checkInt("MaxBatchMsgs", o.MaxBatchMsgs)
	checkInt("QueueLen", o.QueueLen)
	checkDur("WriteTimeout", o.WriteTimeout)
	checkDur("EnqueueTimeout", o.EnqueueTimeout)
	checkDur("Delay", o.Delay)
	return errors.Join(errs...)
}

// withDefaults returns o with every zero field that has a default filled in.
// This is the single place defaults are applied.
func (o Options) withDefaults() Options {
	if o.MaxBatchBytes == 0 {
		o.MaxBatchBytes = DefaultMaxBatchBytes
	}
	if o.MaxBatchMsgs == 0 {
		o.MaxBatchMsgs = DefaultMaxBatchMsgs
	}
	if o.QueueLen == 0 {
		o.QueueLen = DefaultQueueLen
	}
	if o.WriteTimeout == 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.EnqueueTimeout == 0 {
		o.EnqueueTimeout = DefaultEnqueueTimeout
	}
	return o
}
