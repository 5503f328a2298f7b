package resp

import (
	"swiftpaxos/client"
	"swiftpaxos/kvs"
)

// maxAttempts bounds the compare-and-set rounds of one read-modify-write:
// each failed round means another client wrote the key in between, so
// only a key written without pause by others exhausts it.
const maxAttempts = 64

// change decides a read-modify-write from the key's state: the write to
// make (a value, or Delete), whether to make it, and the reply once it is
// made (or at once, when there is nothing to write).
type change func(old client.Result) (update kvs.Command, write bool, reply []byte)

// modify runs a read-modify-write of key as a strong GET and then CASes,
// each expecting the state the one before saw (absent, or the version of
// the key's last write); a CAS that fails returns the key's state, the
// next round's. The CAS that applies is the command's linearization point.
func modify(c *conn, j *job, key []byte, f change) {
	j.multi = true
	j.run(func(c *conn, j *job) {
		if failed(j) {
			return
		}
		decide(j, key, f, j.res[0])
	}, getOp(client.Strong, key))
}

func decide(j *job, key []byte, f change, old client.Result) {
	update, write, reply := f(old)
	if !write {
		j.reply(reply)
		return
	}
	if j.attempts++; j.attempts > maxAttempts {
		j.fail("ERR the key changed under each of 64 compare-and-set attempts; try again")
		return
	}
	if old.Found {
		update.Expect, update.ExpectVersion = kvs.ExpectVersion, old.Version
	} else {
		update.Expect = kvs.ExpectAbsent
	}
	j.run(func(c *conn, j *job) {
		if failed(j) {
			return
		}
		if r := j.res[0]; !r.Applied {
			decide(j, key, f, r)
			return
		}
		j.reply(reply)
	}, casOp(key, update))
}
