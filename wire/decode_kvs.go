package wire

import (
	"fmt"
	"math"
	"unsafe"

	"swiftpaxos/kvs"
)

// The decoders of the store's types: keys, values, commands, results and
// SCAN items (doc.go, "Composite fields").

// value copies a byte string out of the input (or, while d.alias is set,
// returns it in place for detach to copy); empty decodes as nil.
func (d *decoder) value() kvs.Value {
	n := d.length("value", kvs.MaxValueLimit)
	if n == 0 {
		return nil
	}
	var v kvs.Value
	if d.alias {
		v = kvs.Value(d.buf[:n:n])
	} else {
		v = make(kvs.Value, n)
		copy(v, d.buf)
	}
	d.buf = d.buf[n:]
	return v
}

// key reads a key: a copy, or while d.alias is set a string over the input
// for detach to copy.
func (d *decoder) key() kvs.Key {
	n := d.length("key", kvs.MaxKeyLimit)
	if n == 0 {
		return ""
	}
	var k kvs.Key
	if d.alias {
		k = kvs.Key(unsafe.String(&d.buf[0], n))
	} else {
		k = kvs.Key(d.buf[:n])
	}
	d.buf = d.buf[n:]
	return k
}

// ownedKey and ownedValue read a key or value that is always copied, for
// the fields detach does not handle (a SCAN's end, a CAS's expected value).
func (d *decoder) ownedKey() kvs.Key {
	alias := d.alias
	d.alias = false
	defer func() { d.alias = alias }()
	return d.key()
}

func (d *decoder) ownedValue() kvs.Value {
	alias := d.alias
	d.alias = false
	defer func() { d.alias = alias }()
	return d.value()
}

// length reads the length of a byte string of at most limit bytes that
// the input holds.
func (d *decoder) length(what string, limit int) int {
	n := d.uvarint()
	switch {
	case n > uint64(limit):
		d.fail(fmt.Sprintf("%s length %d over %d", what, n, limit))
		return 0
	case n > uint64(len(d.buf)):
		d.fail(fmt.Sprintf("%s length %d exceeds the %d bytes left", what, n, len(d.buf)))
		return 0
	}
	return int(n)
}

// detach copies the n keys and values that field(i) points at, which alias
// the input, into one new array: one allocation for a whole list instead of
// one per element. Each value gets a capacity equal to its length, so
// appending to one cannot overwrite its neighbour; keys become strings
// over the array, which nothing writes to again.
func detach(n int, field func(i int) (*kvs.Key, *kvs.Value)) {
	total := 0
	for i := range n {
		k, v := field(i)
		total += len(*k) + len(*v)
	}
	if total == 0 {
		return
	}
	arena := make([]byte, total)
	off := 0
	for i := range n {
		k, v := field(i)
		if c := copy(arena[off:], *k); c > 0 {
			*k = kvs.Key(unsafe.String(&arena[off], c))
			off += c
		}
		if c := copy(arena[off:], *v); c > 0 {
			*v = arena[off : off+c : off+c]
			off += c
		}
	}
}

// command reads the fields the operation uses (appendCommand).
func (d *decoder) command() kvs.Command {
	c := kvs.Command{Op: kvs.Op(d.u8())}
	switch c.Op {
	case kvs.OpNoop:
	case kvs.OpGet, kvs.OpDelete:
		c.Key = d.key()
	case kvs.OpPut:
		c.Key, c.Value = d.key(), d.value()
	case kvs.OpScan:
		c.Key, c.End, c.Limit = d.key(), d.ownedKey(), d.limit()
	case kvs.OpCAS:
		c.Key, c.Expect = d.key(), kvs.Expect(d.u8())
		switch c.Expect {
		case kvs.ExpectAbsent:
		case kvs.ExpectValue:
			c.ExpectValue = d.ownedValue()
		case kvs.ExpectVersion:
			c.ExpectVersion = d.slot()
		default:
			d.fail(fmt.Sprintf("invalid Expect %d", c.Expect))
		}
		if c.Delete = d.bool(); !c.Delete {
			c.Value = d.value()
		}
	case kvs.OpIncr:
		c.Key, c.Delta = d.key(), d.varint()
	default:
		d.fail(fmt.Sprintf("invalid Op %d", c.Op))
	}
	return c
}

// ownedCommand reads a command outside a list: its key and value are
// copied into one allocation, as a list's are (detach).
func (d *decoder) ownedCommand() kvs.Command {
	d.alias = true
	c := d.command()
	d.alias = false
	if n := len(c.Key) + len(c.Value); n > 0 {
		arena := make([]byte, n)
		k := copy(arena, c.Key)
		copy(arena[k:], c.Value)
		if k > 0 {
			c.Key = kvs.Key(unsafe.String(&arena[0], k))
		}
		if len(c.Value) > 0 {
			c.Value = arena[k:n:n]
		}
	}
	return c
}

// limit reads a SCAN's limit, which must fit in an int64.
func (d *decoder) limit() int64 {
	v := d.uvarint()
	if v > math.MaxInt64 {
		d.fail("SCAN limit exceeds 63 bits")
		return 0
	}
	return int64(v)
}

// result reads a kvs.Result (appendResult).
func (d *decoder) result() kvs.Result {
	f := d.u8()
	if f&^flagsAll != 0 {
		d.fail(fmt.Sprintf("invalid result flags %#x", f))
	}
	r := kvs.Result{Found: f&flagFound != 0, More: f&flagMore != 0, Applied: f&flagApplied != 0,
		Err: kvs.ErrCode(d.u8())}
	if r.Err > kvs.ErrOverflow {
		d.fail(fmt.Sprintf("invalid result error %d", r.Err))
	}
	r.Value, r.Version, r.Items = d.value(), d.slot(), d.items()
	return r
}

func (d *decoder) items() []kvs.Item {
	n := d.count(minItem)
	if n == 0 {
		return nil
	}
	is := make([]kvs.Item, n)
	d.alias = true
	for i := range is {
		is[i] = kvs.Item{Key: d.key(), Value: d.value(), Found: d.bool(), Version: d.slot()}
	}
	d.alias = false
	detach(n, func(i int) (*kvs.Key, *kvs.Value) { return &is[i].Key, &is[i].Value })
	return is
}
