package resp

import (
	"strconv"

	"swiftpaxos/client"
	"swiftpaxos/kvs"
)

// The keyspace commands. DEL, UNLINK and EXISTS of several keys run one
// operation per key, in order: they are not atomic. SCAN, KEYS and DBSIZE
// read the keys in key order with the store's range SCAN.

func keyCommands() []*spec {
	keys := argDoc{name: "key", typ: "key", multiple: true}
	return []*spec{
		{name: "DEL", arity: -2, flags: []string{"write"}, first: 1, last: -1, step: 1, group: "generic",
			summary: "Deletes keys, one DELETE each (not atomic); strong: how many existed, weak: how many were deleted-or-absent.",
			args:    []argDoc{keys}, run: del},
		{name: "UNLINK", arity: -2, flags: []string{"write", "fast"}, first: 1, last: -1, step: 1, group: "generic",
			summary: "DEL.", args: []argDoc{keys}, run: del},
		{name: "EXISTS", arity: -2, flags: []string{"readonly", "fast"}, first: 1, last: -1, step: 1, group: "generic",
			summary: "Counts the keys given that hold a value, one GET each (not atomic).", args: []argDoc{keys}, run: exists},
		{name: "TYPE", arity: 2, flags: []string{"readonly", "fast"}, first: 1, last: 1, step: 1, group: "generic",
			summary: "string, or none when the key holds no value.", args: []argDoc{{name: "key", typ: "key"}}, run: typeCmd},
		{name: "SCAN", arity: -2, flags: []string{"readonly"}, group: "generic",
			summary: "Walks the keys in key order: one store SCAN of COUNT keys (default 10) per call, filtered by MATCH.",
			args: []argDoc{{name: "cursor", typ: "integer"}, {name: "MATCH pattern", typ: "string", optional: true},
				{name: "COUNT count", typ: "string", optional: true}, {name: "TYPE type", typ: "string", optional: true}}, run: scan},
		{name: "KEYS", arity: 2, flags: []string{"readonly"}, group: "generic",
			summary: "Returns the keys that match a pattern, in key order (at most 100000).", args: []argDoc{{name: "pattern", typ: "pattern"}}, run: keysCmd},
		{name: "DBSIZE", arity: 1, flags: []string{"readonly"}, group: "server",
			summary: "Counts the keys that hold a value, walking them all.", run: dbsize},
	}
}

func del(c *conn, j *job, args [][]byte) {
	ops := make([]client.Op, len(args))
	for i, k := range args {
		ops[i] = client.Op{Level: j.level, Command: kvs.Command{Op: kvs.OpDelete, Key: kvs.Key(k)}}
	}
	j.runAll(func(c *conn, j *job) {
		if failed(j) {
			return
		}
		n := int64(0)
		for _, r := range j.res {
			// A weak DELETE is acknowledged before it executes, so whether
			// the key existed is not known: it counts as deleted (README).
			if !r.Known || r.Found {
				n++
			}
		}
		j.reply(appendInt(nil, n))
	}, ops)
}

func exists(c *conn, j *job, args [][]byte) {
	j.runAll(func(c *conn, j *job) {
		if failed(j) {
			return
		}
		n := int64(0)
		for _, r := range j.res {
			n += b2i(r.Found)
		}
		j.reply(appendInt(nil, n))
	}, getOps(j.level, args))
}

func typeCmd(c *conn, j *job, args [][]byte) {
	j.run(func(c *conn, j *job) {
		if failed(j) {
			return
		}
		if j.res[0].Found {
			j.reply(appendSimple(nil, "string"))
		} else {
			j.reply(appendSimple(nil, "none"))
		}
	}, getOp(j.level, args[0]))
}

func scanOp(l client.Level, from, end kvs.Key, limit int) client.Op {
	return client.Op{Level: l, Command: kvs.Command{Op: kvs.OpScan, Key: from, End: end, Limit: int64(limit)}}
}

// scan answers SCAN cursor [MATCH pattern] [COUNT n] [TYPE t]. A cursor is
// a number, as clients expect: 0 starts, and every other one names the key
// to go on from in the front-end's table of cursors (cursors.go).
func scan(c *conn, j *job, args [][]byte) {
	id, err := strconv.ParseUint(string(args[0]), 10, 64)
	if err != nil {
		j.fail("ERR invalid cursor")
		return
	}
	var pattern []byte
	count, typeOK := 10, true
	for i := 1; i < len(args); i += 2 {
		if i+1 >= len(args) {
			j.fail("ERR syntax error")
			return
		}
		switch a, v := args[i], args[i+1]; {
		case is(a, "MATCH"):
			pattern = v
		case is(a, "COUNT"):
			n, err := strconv.Atoi(string(v))
			if err != nil || n < 1 {
				j.fail("ERR value is not an integer or out of range")
				return
			}
			count = min(n, kvs.MaxScanLimit)
		case is(a, "TYPE"):
			typeOK = is(v, "string")
		default:
			j.fail("ERR syntax error")
			return
		}
	}
	start, end := prefixRange(pattern)
	from := start
	if id != 0 {
		k, ok := c.srv.cursors.get(id)
		if !ok {
			j.fail("ERR invalid cursor: unknown to this replica, or too old")
			return
		}
		from = max(k, start)
	}
	if !typeOK {
		// Every value is a string: no key has another type.
		j.reply(appendArray(appendBulkString(appendArray(nil, 2), "0"), 0))
		return
	}
	j.run(func(c *conn, j *job) {
		if failed(j) {
			return
		}
		r := j.res[0]
		next := "0"
		if r.More && (end == "" || r.Resume() < end) {
			next = strconv.FormatUint(c.srv.cursors.put(r.Resume()), 10)
		}
		b := appendBulkString(appendArray(nil, 2), next)
		matched := make([]kvs.Key, 0, len(r.Items))
		for _, it := range r.Items {
			if pattern == nil || match(pattern, []byte(it.Key)) {
				matched = append(matched, it.Key)
			}
		}
		b = appendArray(b, len(matched))
		for _, k := range matched {
			b = appendBulkString(b, string(k))
		}
		j.reply(b)
	}, scanOp(j.level, from, end, count))
}

// walkLimit is the most keys one step of a walk of the key space reads.
const walkLimit = kvs.MaxScanLimit

// maxKeysReply bounds the keys KEYS returns: a larger answer is an
// error that says to use SCAN.
const (
	maxKeysReply = 100_000
	maxKeysBytes = 16 << 20
)

// walkAll reads the keys of [start, end) in key order, one SCAN of
// walkLimit keys per step, giving each step's items to visit; visit
// returns false to stop. done writes the reply.
func walkAll(j *job, start, end kvs.Key, visit func(items []kvs.Item) bool, done func(j *job)) {
	j.multi = true
	var step func(c *conn, j *job)
	step = func(c *conn, j *job) {
		if failed(j) {
			return
		}
		r := j.res[0]
		if !visit(r.Items) {
			return
		}
		if !r.More || end != "" && r.Resume() >= end {
			done(j)
			return
		}
		j.run(step, scanOp(j.level, r.Resume(), end, walkLimit))
	}
	j.run(step, scanOp(j.level, start, end, walkLimit))
}

func dbsize(c *conn, j *job, args [][]byte) {
	walkAll(j, "", "", func(items []kvs.Item) bool {
		j.counted += int64(len(items))
		return true
	}, func(j *job) { j.reply(appendInt(nil, j.counted)) })
}

func keysCmd(c *conn, j *job, args [][]byte) {
	pattern := args[0]
	start, end := prefixRange(pattern)
	var keys []kvs.Key
	size := 0
	walkAll(j, start, end, func(items []kvs.Item) bool {
		for _, it := range items {
			if match(pattern, []byte(it.Key)) {
				keys = append(keys, it.Key)
				size += len(it.Key)
			}
		}
		if len(keys) > maxKeysReply || size > maxKeysBytes {
			j.fail("ERR KEYS: more than 100000 keys, or 16 MiB of keys, match; use SCAN")
			return false
		}
		return true
	}, func(j *job) {
		b := appendArray(nil, len(keys))
		for _, k := range keys {
			b = appendBulkString(b, string(k))
		}
		j.reply(b)
	})
}
