package resp

import (
	"errors"
	"strconv"

	"swiftpaxos/client"
	"swiftpaxos/kvs"
)

// The string commands. A plain read or write runs at the connection's
// level; a command whose effect depends on the key's state (SET NX/XX/
// GET/IFEQ, SETNX, GETSET, GETDEL, APPEND, INCR and its kin, CAS,
// DELIFEQ) runs strong at either level: a weak write may be acknowledged
// before it is ordered, so what it found would be made up (docs/
// DECISIONS.md 39).

func stringCommands() []*spec {
	k := argDoc{name: "key", typ: "key"}
	v := argDoc{name: "value", typ: "string"}
	return []*spec{
		{name: "GET", arity: 2, flags: []string{"readonly", "fast"}, first: 1, last: 1, step: 1, group: "string",
			summary: "Returns the value of a key, or nil.", args: []argDoc{k}, run: get},
		{name: "SET", arity: -3, flags: []string{"write"}, first: 1, last: 1, step: 1, group: "string",
			summary: "Sets a key's value; NX/XX/GET/IFEQ run as a compare-and-set. Expiry is not supported.",
			args: []argDoc{k, v, {name: "NX|XX", typ: "string", optional: true}, {name: "GET", typ: "string", optional: true},
				{name: "IFEQ comparison-value", typ: "string", optional: true}, {name: "KEEPTTL", typ: "string", optional: true}}, run: set},
		{name: "SETNX", arity: 3, flags: []string{"write", "fast"}, first: 1, last: 1, step: 1, group: "string",
			summary: "Sets a key's value if it has none; 1 if it did.", args: []argDoc{k, v}, run: setnx},
		{name: "GETSET", arity: 3, flags: []string{"write"}, first: 1, last: 1, step: 1, group: "string",
			summary: "Sets a key's value and returns the one before.", args: []argDoc{k, v}, run: getset},
		{name: "GETDEL", arity: 2, flags: []string{"write"}, first: 1, last: 1, step: 1, group: "string",
			summary: "Deletes a key and returns its value.", args: []argDoc{k}, run: getdel},
		{name: "MGET", arity: -2, flags: []string{"readonly"}, first: 1, last: -1, step: 1, group: "string",
			summary: "Returns the values of keys; not atomic: one GET per key, in order.", args: []argDoc{{name: "key", typ: "key", multiple: true}}, run: mget},
		{name: "STRLEN", arity: 2, flags: []string{"readonly", "fast"}, first: 1, last: 1, step: 1, group: "string",
			summary: "Returns the length of a key's value (0: none).", args: []argDoc{k}, run: strlen},
		{name: "APPEND", arity: 3, flags: []string{"write"}, first: 1, last: 1, step: 1, group: "string",
			summary: "Appends to a key's value (a compare-and-set loop); returns the new length.", args: []argDoc{k, v}, run: appendCmd},
		{name: "INCR", arity: 2, flags: []string{"write", "fast"}, first: 1, last: 1, step: 1, group: "string",
			summary: "Adds 1 to a key's integer value (absent: 0).", args: []argDoc{k}, run: incrBy(1, false)},
		{name: "DECR", arity: 2, flags: []string{"write", "fast"}, first: 1, last: 1, step: 1, group: "string",
			summary: "Subtracts 1 from a key's integer value (absent: 0).", args: []argDoc{k}, run: incrBy(-1, false)},
		{name: "INCRBY", arity: 3, flags: []string{"write", "fast"}, first: 1, last: 1, step: 1, group: "string",
			summary: "Adds an integer to a key's integer value (absent: 0).", args: []argDoc{k, {name: "increment", typ: "integer"}}, run: incrBy(1, true)},
		{name: "DECRBY", arity: 3, flags: []string{"write", "fast"}, first: 1, last: 1, step: 1, group: "string",
			summary: "Subtracts an integer from a key's integer value (absent: 0).", args: []argDoc{k, {name: "decrement", typ: "integer"}}, run: incrBy(-1, true)},
		{name: "CAS", arity: 4, flags: []string{"write", "fast"}, first: 1, last: 1, step: 1, group: "string",
			summary: "Compare-and-set: sets the key to new if its value is expected; 1 if it did, 0 if not.",
			args:    []argDoc{k, {name: "expected", typ: "string"}, {name: "new", typ: "string"}}, run: cas},
		{name: "DELIFEQ", arity: 3, flags: []string{"write", "fast"}, first: 1, last: 1, step: 1, group: "string",
			summary: "Compare-and-delete: deletes the key if its value is expected; 1 if it did, 0 if not.",
			args:    []argDoc{k, {name: "expected", typ: "string"}}, run: delifeq},
	}
}

func getOp(l client.Level, key []byte) client.Op {
	return client.Op{Level: l, Command: kvs.Command{Op: kvs.OpGet, Key: kvs.Key(key)}}
}

func casOp(key []byte, c kvs.Command) client.Op {
	c.Op, c.Key = kvs.OpCAS, kvs.Key(key)
	return client.Op{Level: client.Strong, Command: c}
}

// errorReply is the reply of an operation that failed.
func errorReply(err error) string {
	var te *client.TimeoutError
	switch {
	case errors.As(err, &te), errors.Is(err, client.ErrTimeout):
		return "TIMEOUT " + err.Error()
	case errors.Is(err, client.ErrClosed):
		return "ERR the session is closed"
	}
	return "ERR " + err.Error()
}

// failed finishes j with the error of its step's first failed operation,
// and says whether there was one.
func failed(j *job) bool {
	if err := j.firstErr(); err != nil {
		j.fail(errorReply(err))
		return true
	}
	return false
}

func get(c *conn, j *job, args [][]byte) {
	j.run(func(c *conn, j *job) {
		if failed(j) {
			return
		}
		j.reply(appendValue(nil, j.res[0]))
	}, getOp(j.level, args[0]))
}

// appendValue appends a GET's value, or nil.
func appendValue(b []byte, r client.Result) []byte {
	if !r.Found {
		return appendNull(b)
	}
	return appendBulk(b, r.Value)
}

// getOps are GETs of keys, in order.
func getOps(l client.Level, keys [][]byte) []client.Op {
	ops := make([]client.Op, len(keys))
	for i, k := range keys {
		ops[i] = getOp(l, k)
	}
	return ops
}

func mget(c *conn, j *job, args [][]byte) {
	j.runAll(func(c *conn, j *job) {
		if failed(j) {
			return
		}
		b := appendArray(nil, len(j.res))
		for _, r := range j.res {
			b = appendValue(b, r)
		}
		j.reply(b)
	}, getOps(j.level, args))
}

func strlen(c *conn, j *job, args [][]byte) {
	j.run(func(c *conn, j *job) {
		if failed(j) {
			return
		}
		j.reply(appendInt(nil, int64(len(j.res[0].Value))))
	}, getOp(j.level, args[0]))
}

// set parses SET's options. Without any it is a PUT at the connection's
// level; with NX, XX, GET or IFEQ it is a compare-and-set.
func set(c *conn, j *job, args [][]byte) {
	key, val := args[0], args[1]
	var nx, xx, get bool
	var ifeq []byte
	for i := 2; i < len(args); i++ {
		a := args[i]
		switch {
		case is(a, "NX") && !xx && ifeq == nil:
			nx = true
		case is(a, "XX") && !nx && ifeq == nil:
			xx = true
		case is(a, "GET"):
			get = true
		case is(a, "KEEPTTL"):
		case is(a, "IFEQ") && i+1 < len(args) && !nx && !xx:
			i++
			ifeq = args[i]
		case is(a, "EX"), is(a, "PX"), is(a, "EXAT"), is(a, "PXAT"):
			j.fail("ERR expiry (" + string(a) + ") is not supported: swiftpaxos keys do not expire")
			return
		default:
			j.fail("ERR syntax error")
			return
		}
	}
	switch {
	case (ifeq != nil || nx) && !get:
		// One CAS: OK if it applied, nil if not.
		cmd := kvs.Command{Expect: kvs.ExpectAbsent, Value: val}
		if ifeq != nil {
			cmd.Expect, cmd.ExpectValue = kvs.ExpectValue, ifeq
		}
		j.run(func(c *conn, j *job) {
			if failed(j) {
				return
			}
			if j.res[0].Applied {
				j.reply(okReply)
			} else {
				j.reply(appendNull(nil))
			}
		}, casOp(key, cmd))
	case ifeq != nil:
		// With GET: still one CAS, whose result is the key's state when
		// it did not apply, and the value expected when it did.
		j.run(func(c *conn, j *job) {
			if failed(j) {
				return
			}
			if r := j.res[0]; r.Applied {
				j.reply(appendBulk(nil, ifeq))
			} else {
				j.reply(appendValue(nil, r))
			}
		}, casOp(key, kvs.Command{Expect: kvs.ExpectValue, ExpectValue: ifeq, Value: val}))
	case nx || xx || get:
		modify(c, j, key, func(old client.Result) (kvs.Command, bool, []byte) {
			write := true
			switch {
			case nx:
				write = !old.Found
			case xx:
				write = old.Found
			case ifeq != nil:
				write = old.Found && string(old.Value) == string(ifeq)
			}
			reply := okReply
			if get {
				reply = appendValue(nil, old)
			} else if !write {
				reply = appendNull(nil)
			}
			return kvs.Command{Value: val}, write, reply
		})
	default:
		j.run(func(c *conn, j *job) {
			if failed(j) {
				return
			}
			j.reply(okReply)
		}, client.Op{Level: j.level, Command: kvs.Command{Op: kvs.OpPut, Key: kvs.Key(key), Value: val}})
	}
}

func setnx(c *conn, j *job, args [][]byte) {
	j.run(func(c *conn, j *job) {
		if failed(j) {
			return
		}
		j.reply(appendInt(nil, b2i(j.res[0].Applied)))
	}, casOp(args[0], kvs.Command{Expect: kvs.ExpectAbsent, Value: args[1]}))
}

func getset(c *conn, j *job, args [][]byte) {
	val := args[1]
	modify(c, j, args[0], func(old client.Result) (kvs.Command, bool, []byte) {
		return kvs.Command{Value: val}, true, appendValue(nil, old)
	})
}

func getdel(c *conn, j *job, args [][]byte) {
	modify(c, j, args[0], func(old client.Result) (kvs.Command, bool, []byte) {
		return kvs.Command{Delete: true}, old.Found, appendValue(nil, old)
	})
}

func appendCmd(c *conn, j *job, args [][]byte) {
	suffix := args[1]
	modify(c, j, args[0], func(old client.Result) (kvs.Command, bool, []byte) {
		v := make([]byte, 0, len(old.Value)+len(suffix))
		v = append(append(v, old.Value...), suffix...)
		return kvs.Command{Value: v}, true, appendInt(nil, int64(len(v)))
	})
}

// incrBy runs INCR, DECR (by sign) and INCRBY, DECRBY (sign times the
// argument).
func incrBy(sign int64, arg bool) func(c *conn, j *job, args [][]byte) {
	return func(c *conn, j *job, args [][]byte) {
		delta := sign
		if arg {
			n, err := strconv.ParseInt(string(args[1]), 10, 64)
			if err != nil || sign < 0 && n == -1<<63 {
				j.fail("ERR value is not an integer or out of range")
				return
			}
			delta = sign * n
		}
		j.run(func(c *conn, j *job) {
			if failed(j) {
				return
			}
			r := j.res[0]
			switch r.Code {
			case kvs.ErrNone:
			case kvs.ErrNotInteger:
				j.fail("ERR value is not an integer or out of range")
				return
			case kvs.ErrOverflow:
				j.fail("ERR increment or decrement would overflow")
				return
			default:
				j.fail("ERR " + r.Code.Error().Error())
				return
			}
			n, err := strconv.ParseInt(string(r.Value), 10, 64)
			if err != nil {
				j.fail("ERR the counter's new value is not an integer: " + strconv.Quote(string(r.Value)))
				return
			}
			j.reply(appendInt(nil, n))
		}, client.Op{Level: client.Strong, Command: kvs.Command{Op: kvs.OpIncr, Key: kvs.Key(args[0]), Delta: delta}})
	}
}

func cas(c *conn, j *job, args [][]byte) {
	j.run(func(c *conn, j *job) {
		if failed(j) {
			return
		}
		j.reply(appendInt(nil, b2i(j.res[0].Applied)))
	}, casOp(args[0], kvs.Command{Expect: kvs.ExpectValue, ExpectValue: args[1], Value: args[2]}))
}

func delifeq(c *conn, j *job, args [][]byte) {
	j.run(func(c *conn, j *job) {
		if failed(j) {
			return
		}
		j.reply(appendInt(nil, b2i(j.res[0].Applied)))
	}, casOp(args[0], kvs.Command{Expect: kvs.ExpectValue, ExpectValue: args[1], Delete: true}))
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
