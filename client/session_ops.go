package client

import (
	"context"
	"fmt"

	"swiftpaxos/kvs"
)

// Submit starts op asynchronously; its Result arrives on Completions.
// The caller keeps at most Window operations in flight and reads every
// result: the session stops while a result waits for room in
// Completions. An invalid op is refused at once (kvs.ErrInvalidCommand).
func (s *Session) Submit(op Op) error {
	if err := op.Validate(); err != nil {
		return err
	}
	select {
	case s.invoke <- invocation{op: op}:
		return nil
	case <-s.ctx.Done():
		return ErrClosed
	}
}

// Completions delivers the results of submitted operations.
func (s *Session) Completions() <-chan Result { return s.done }

// Do runs op and waits for its result or for ctx to end. When ctx ends
// first the error is a *TimeoutError (errors.Is(err, ErrTimeout)) that
// says where the session was waiting; the operation may still execute
// later, once (PROTOCOL.md 6.7). No result is ever made up. An invalid op
// is refused at once (kvs.ErrInvalidCommand).
func (s *Session) Do(ctx context.Context, op Op) (Result, error) {
	if err := op.Validate(); err != nil {
		return Result{}, err
	}
	ch := make(chan Result, 1)
	select {
	case s.invoke <- invocation{op: op, reply: ch}:
	case <-ctx.Done():
		return Result{}, s.timeout(op, nil, ctx.Err())
	case <-s.ctx.Done():
		return Result{}, ErrClosed
	}
	select {
	case r := <-ch:
		return r, r.Err
	case <-ctx.Done():
		return Result{}, s.timeout(op, ch, ctx.Err())
	case <-s.ctx.Done():
		return Result{}, ErrClosed
	}
}

// Put writes value under key at the given level. An empty value makes the
// key absent (NIL).
func (s *Session) Put(ctx context.Context, key kvs.Key, value kvs.Value, level Level) error {
	_, err := s.Do(ctx, Op{Level: level, Command: kvs.Command{Op: kvs.OpPut, Key: key, Value: value}})
	return err
}

// Get reads key at the given level. A key that is absent (never written,
// or last written with the empty value) reads as an empty value and no
// error.
func (s *Session) Get(ctx context.Context, key kvs.Key, level Level) (kvs.Value, error) {
	r, err := s.Do(ctx, Op{Level: level, Command: kvs.Command{Op: kvs.OpGet, Key: key}})
	return r.Value, err
}

// Scan reads the count keys from, from+1, ..., from+count-1 as one
// operation at the given level and returns those that hold a value, in key
// order (a key not listed is absent). count is between 1 and
// kvs.MaxScanCount+1; a range that would run past the largest key stops
// there.
func (s *Session) Scan(ctx context.Context, from kvs.Key, count int, level Level) ([]kvs.Item, error) {
	if count < 1 || count > kvs.MaxScanCount+1 {
		return nil, fmt.Errorf("%w: scan of %d keys: between 1 and %d", kvs.ErrInvalidCommand, count, kvs.MaxScanCount+1)
	}
	r, err := s.Do(ctx, Op{Level: level, Command: kvs.Command{Op: kvs.OpScan, Key: from, Count: int64(count - 1)}})
	return present(r.Items), err
}

// present drops the items of a SCAN whose value is empty: keys that were
// written, but last with the empty value, are absent like keys never
// written.
// The items may be the reply message's own, so they are copied, not
// filtered in place.
func present(items []kvs.Item) []kvs.Item {
	var out []kvs.Item
	for _, it := range items {
		if len(it.Value) > 0 {
			out = append(out, it)
		}
	}
	return out
}
