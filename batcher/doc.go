// Package batcher owns the outbound direction of one connection: a bounded FIFO
// queue and one writer goroutine that drains it in batches, each batch encoded
// into one reused buffer and written with one conn.Write (PROTOCOL.md section 9.1,
// ARCHITECTURE.md rules 6 and 7). It is generic over the message type M and knows
// nothing of the wire format: the caller supplies an EncodeFunc that appends one
// complete frame.
//
// # Ownership
//
// New takes ownership of the net.Conn: from then on only the batcher writes to
// it, and the batcher closes it when it stops. The caller keeps the read side
// (one reader goroutine per connection; closing the conn also ends that reader).
// One Batcher per connection, so a dead or slow peer delays nobody else.
//
// # Batching rule (adaptive, PROTOCOL.md section 9.1)
//
// The writer takes the first queued message, then keeps adding messages while
// more are queued. When the queue is momentarily empty it flushes, except that if
// the previous batch held more than one message (the link is busy) and
// BatchDelay (batchDelayUs) is non-zero, it waits for more messages until
// BatchDelay after the batch's first message. A single message on an idle link
// therefore pays no delay. A batch also ends at MaxBatchMsgs messages or
// MaxBatchBytes bytes (a message that would cross the byte cap opens the next
// batch; a message larger than the cap is written alone). Waiting uses one timer
// and a select: no polling, no unconditional sleep.
//
// # Delay injection (PROTOCOL.md sections 1.1 and 7.3)
//
// With Options.Delay > 0 each message gets a release time of its Send instant
// plus Delay, and the writer never writes a message before its release time.
// Delay is constant per connection, so the FIFO queue is already (up to the
// skew between concurrent senders) ordered by release time: the writer waits for
// the head of the queue, never reorders, and needs no goroutine per message.
//
// # Back-pressure and failure
//
// The queue holds Options.QueueLen messages. Send never drops a message and
// never blocks for ever:
//
//   - If the queue has room, Send enqueues and returns nil at once.
//   - If the queue is full, Send blocks for at most EnqueueTimeout. If the queue
//     is still full then, the peer is treated as dead or too slow: the batcher
//     stops, closes the connection, and Send returns an error wrapping
//     ErrQueueFull. (Holding the sender longer would let one slow peer stall the
//     replica's event loop; dropping silently would break the protocol's reliable
//     FIFO channel assumption. A closed connection is what PROTOCOL.md section 1.1
//     already treats as a possible crash of the peer.)
//   - Each batch is written under a WriteTimeout deadline. A failed or timed-out
//     write stops the batcher and closes the connection.
//   - Once stopped (by Close or by a failure), Send returns an error wrapping
//     ErrClosed; Err tells why it stopped and Done is closed.
//
// A nil error from Send means "accepted into the queue", not "delivered", as with
// a TCP write. Messages accepted but not written when the batcher stops are
// discarded and counted in Stats.Dropped (and logged), never lost silently.
//
// # Thread safety
//
// Send, Close, Stats, Done and Err are safe to call from any goroutine. The
// messages of one sending goroutine are written in the order it sent them;
// messages from concurrent senders are written in queue order. A message must not
// be mutated after Send, because it is encoded later, on the writer goroutine.
// The EncodeFunc runs only on the writer goroutine and must not call the Batcher.
package batcher
