package client

import (
	"context"

	"swiftpaxos/kvs"
)

// Submit starts op asynchronously; its Result arrives on Completions.
// The caller keeps at most Window operations in flight and reads every
// result: the session stops while a result waits for room in
// Completions. An invalid op is refused at once (kvs.ErrInvalidCommand).
func (s *Session) Submit(op Op) error {
	if err := op.Validate(s.limits); err != nil {
		return err
	}
	select {
	case s.invoke <- invocation{op: op}:
		return nil
	case <-s.ctx.Done():
		return ErrClosed
	}
}

// Limits are the bounds on keys and values the session checks operations
// against before it sends them (the configuration's maxKeyBytes and
// maxValueBytes).
func (s *Session) Limits() kvs.Limits { return s.limits }

// Completions delivers the results of submitted operations.
func (s *Session) Completions() <-chan Result { return s.done }

// Do runs op and waits for its result or for ctx to end. When ctx ends
// first the error is a *TimeoutError (errors.Is(err, ErrTimeout)) that
// says where the session was waiting; the operation may still execute
// later, once (PROTOCOL.md 6.7). No result is ever made up. An invalid op
// is refused at once (kvs.ErrInvalidCommand). The session keeps op's
// values (in its cache), and a Result's values may be the session's or
// the reply's: neither may be modified.
func (s *Session) Do(ctx context.Context, op Op) (Result, error) {
	if err := op.Validate(s.limits); err != nil {
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
