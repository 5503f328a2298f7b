package bench

import (
	"fmt"
	"math"

	"swiftpaxos/kvs"
)

// The benchmark's keys. The workload draws key numbers (keySpace,
// zipfSkew, key, private sequential numbers); a Keys turns a number into
// the byte key the store sees. One type does it, so that the benchmark,
// its tests and anyone reading a run's history agree.

// Keys is a run's key format: key number i is i in decimal, zero-padded
// to a width fixed for the run, the digits of the largest number the run
// can name (Bound). Keys of one width sort bytewise as their numbers do,
// so a range of numbers [i, j) is the key range [Of(i), Of(j)). The width
// is the shortest that holds every number of the run: a key's bytes cost
// on the wire, in every map and in the store (docs/DECISIONS.md,
// "Benchmark keys").
type Keys struct {
	width int
	bound int64
}

// MaxKeyWidth is the width of keys when numbers are unbounded: the digits
// of the largest int64.
const MaxKeyWidth = 19

// NewKeys is the format of a run whose keys are drawn from [0, keySpace)
// besides the hot key hotKey; keySpace 0 means private sequential keys,
// which may be any number. Negative arguments count as 0.
func NewKeys(keySpace, hotKey int64) Keys {
	bound := int64(math.MaxInt64)
	if keySpace > 0 {
		bound = max(keySpace, min(max(hotKey, 0), math.MaxInt64-1)+1)
	}
	return Keys{width: len(fmt.Sprint(bound)), bound: bound}
}

// Width is the length of a key, in bytes.
func (k Keys) Width() int { return k.width }

// CounterWidth is the length of a counter key (Counter), in bytes.
func (k Keys) CounterWidth() int { return k.width + 1 }

// Bound is one past the largest key number of the run, and a number
// whose key (Of) is the end of every range of the run's keys; with
// private keys it is the largest int64.
func (k Keys) Bound() int64 { return k.bound }

// Of is the key of number i, for i in [0, Bound]. Other numbers, which
// no run draws, keep fmt's %0*d form (a '-' first, or more digits when
// they need them), so that they are never mistaken for another number's
// key. The zero Keys is no format: NewKeys makes one.
func (k Keys) Of(i int64) kvs.Key {
	if i < 0 || i > k.bound {
		return kvs.Key(fmt.Sprintf("%0*d", k.width, i))
	}
	var a [MaxKeyWidth]byte
	b := a[:k.width]
	for j := k.width - 1; j >= 0; j-- {
		b[j] = '0' + byte(i%10)
		i /= 10
	}
	return kvs.Key(b)
}

// Counter is the key the benchmark's INCRs of number i use: "c" and
// Of(i). INCR needs a key that holds a decimal integer, and PUT, CAS and
// DELETE write other values, so counters have keys of their own; 'c'
// sorts after every digit, so no SCAN of key numbers covers them.
func (k Keys) Counter(i int64) kvs.Key { return "c" + k.Of(i) }

// ScanEnd is the end of the SCAN from number i over n numbers: Of(i+n),
// or Of(Bound) when i+n passes it, which covers the same keys.
func (k Keys) ScanEnd(i, n int64) kvs.Key {
	if i > k.bound-n {
		return k.Of(k.bound)
	}
	return k.Of(i + n)
}
