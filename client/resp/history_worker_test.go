package resp_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/redis/go-redis/v9"

	"swiftpaxos/check"
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// worker is one client: a go-redis connection (PoolSize 1, no retries)
// at a time, each a session. A connection lost with its front-end ends
// the session; the worker goes on with a new one on the next live
// replica.
type worker struct {
	r       *run
	id      int
	replica int
	weak    bool
	rng     *rand.Rand
	last    map[string]string // the last value seen per key, for CAS
	lastKey string            // the key of the last value seen
	ops     []histOp

	rc       *redis.Client
	session  int64
	seq      wire.Seq
	n        int64 // values written in the session
	redialed atomic.Bool
}

func (w *worker) work(ctx context.Context) {
	for range histOps {
		if ctx.Err() != nil {
			return
		}
		if w.rc == nil {
			w.open()
			w.exec(ctx, opSet) // names the session in the applied logs
		} else {
			w.exec(ctx, w.pick())
		}
		if w.r.done.Add(1) == w.r.killAt {
			w.r.killOnce.Do(func() { close(w.r.kill) })
		}
	}
}

// open starts a session on the first live replica from the worker's.
func (w *worker) open() {
	for w.r.dead[w.replica].Load() {
		w.replica = (w.replica + 1) % 3
	}
	w.session, w.seq, w.n = w.r.sessions.Add(1), 0, 0
	var connected atomic.Bool
	level := "strong"
	if w.weak {
		level = "weak"
	}
	w.redialed.Store(false)
	w.rc = redis.NewClient(&redis.Options{Addr: w.r.c.resp[w.replica], Protocol: 2, DisableIdentity: true,
		PoolSize: 1, MaxRetries: -1, ReadTimeout: goRedisReadTimeout,
		OnConnect: func(ctx context.Context, cn *redis.Conn) error {
			// A second connection would be a new session under the
			// old one's name: refuse it, so the command fails unsent.
			if connected.Swap(true) {
				w.redialed.Store(true)
				return errors.New("the session's connection was lost")
			}
			return cn.Do(ctx, "LEVEL", level).Err()
		}})
}

// drop ends the session.
func (w *worker) drop() {
	if w.rc != nil {
		w.rc.Close()
		w.rc = nil
	}
}

type opKind int

const (
	opGet opKind = iota
	opSet
	opDel
	opIncr
	opCAS   // CAS key expected new
	opIfEq  // SET key new IFEQ expected GET
	opKinds // how many
)

// weights of the kinds, by opKind, in percent.
var opWeights = [opKinds]int{35, 30, 12, 17, 3, 3}

func (w *worker) pick() opKind {
	n := w.rng.IntN(100)
	for k, wt := range opWeights {
		if n < wt {
			return opKind(k)
		}
		n -= wt
	}
	return opGet
}

// value is the session's next written value: unique in the run, an
// integer so that INCR applies to every key, a multiple of 10^6 so that
// no INCR result equals one, and naming its session (value / 10^12),
// which is how the applied logs tell the session's id.
func (w *worker) value() string {
	w.n++
	return strconv.FormatInt(w.session*1e12+w.n*1e6, 10)
}

// exec runs one command and records it.
func (w *worker) exec(ctx context.Context, kind opKind) {
	key := "k" + strconv.Itoa(w.rng.IntN(histKeys))
	if (kind == opCAS || kind == opIfEq) && w.lastKey != "" {
		// A read-modify-write of the value just seen, which applies
		// more often than a guess (see opWeights).
		key = w.lastKey
	}
	level := check.Strong
	if w.weak {
		level = check.Weak
	}
	w.seq++
	o := histOp{session: w.session, seq: w.seq, level: level}
	o.cmd.Key = kvs.Key(key)
	var err error
	o.inv = w.r.now()
	switch kind {
	case opGet:
		o.cmd.Op = kvs.OpGet
		var v string
		v, err = w.rc.Get(ctx, key).Result()
		switch {
		case err == nil:
			o.res = kvs.Result{Found: true, Value: []byte(v)}
			w.last[key], w.lastKey = v, key
		case errors.Is(err, redis.Nil):
			err = nil
		}
	case opSet:
		o.cmd.Op, o.cmd.Value = kvs.OpPut, []byte(w.value())
		if err = w.rc.Set(ctx, key, string(o.cmd.Value), 0).Err(); err == nil {
			w.last[key] = string(o.cmd.Value)
		}
	case opDel:
		o.cmd.Op = kvs.OpDelete
		var n int64
		if n, err = w.rc.Del(ctx, key).Result(); err == nil {
			// A weak DEL counts a key whose existence it does not know
			// (cmd_keys.go): 1 is "existed, or not known".
			o.res.Found = n == 1
			o.unknown = w.weak && n == 1
		}
	case opIncr:
		// The front-end runs INCR strong at either level.
		o.level, o.cmd.Op, o.cmd.Delta = check.Strong, kvs.OpIncr, 1
		var n int64
		if n, err = w.rc.Incr(ctx, key).Result(); err == nil {
			o.res = kvs.Result{Found: true, Value: []byte(strconv.FormatInt(n, 10))}
			w.last[key], w.lastKey = string(o.res.Value), key
		}
	case opCAS, opIfEq:
		// Strong at either level, like INCR.
		expect, ok := w.last[key]
		if !ok {
			expect = "1"
		}
		o.level = check.Strong
		o.cmd = kvs.Command{Op: kvs.OpCAS, Key: o.cmd.Key, Expect: kvs.ExpectValue, ExpectValue: []byte(expect), Value: []byte(w.value())}
		var applied, seen bool
		if kind == opCAS {
			var n int
			n, err = w.rc.Do(ctx, "CAS", key, expect, string(o.cmd.Value)).Int()
			applied = n == 1
			// 0 says only that the key did not hold the value expected.
			seen, o.unknown = err == nil && !applied, err == nil && !applied
		} else {
			// With GET the reply is the value the CAS found (one
			// operation still), so one that did not apply is a read of it.
			var old string
			old, err = w.rc.Do(ctx, "SET", key, string(o.cmd.Value), "IFEQ", expect, "GET").Text()
			found := err == nil
			if errors.Is(err, redis.Nil) {
				err = nil
			}
			applied, seen = found && old == expect, err == nil
			if seen && !applied {
				o.res = kvs.Result{Found: found}
				if found {
					o.res.Value = []byte(old)
					w.last[key] = old
				}
			}
		}
		if err == nil && applied {
			o.res = kvs.Result{Applied: true, Found: true, Value: o.cmd.Value}
			w.last[key] = string(o.cmd.Value)
		}
	}
	o.ret = w.r.now()
	o.ok = err == nil
	switch {
	case err == nil:
	case strings.HasPrefix(err.Error(), "TIMEOUT ") && !w.redialed.Load():
		// The session is as it was: the command was submitted and may
		// still take effect.
		o.outcome = "timeout"
	default:
		// The connection lost, the session refused: the session ends.
		o.outcome = "lost"
		w.drop()
	}
	w.ops = append(w.ops, o)
}
