package bench

import (
	"fmt"

	"swiftpaxos/kvs"
)

// The benchmark's keys. The workload draws key numbers (keySpace,
// zipfSkew, key, private sequential numbers); KeyOf turns a number into
// the byte key the store sees. One function does it, so that the
// benchmark, its tests and anyone reading a run's history agree.

// KeyBytes is the length of a benchmark key.
const KeyBytes = 20

// CounterKeyBytes is the length of a benchmark counter key (CounterKeyOf).
const CounterKeyBytes = KeyBytes + 1

// KeyOf is the key of number i: i in decimal, zero-padded to 20 bytes
// (fmt.Sprintf("%020d", i)), so that keys sort bytewise as their numbers
// do and a range of numbers [i, j) is the key range [KeyOf(i), KeyOf(j)).
// Every int64 of 0 and more has 19 digits at most; a negative number
// (which the configuration refuses) keeps fmt's form, a '-' first.
func KeyOf(i int64) kvs.Key {
	if i < 0 {
		return kvs.Key(fmt.Sprintf("%020d", i))
	}
	var b [KeyBytes]byte
	for j := KeyBytes - 1; j >= 0; j-- {
		b[j] = '0' + byte(i%10)
		i /= 10
	}
	return kvs.Key(b[:])
}

// CounterKeyOf is the key the benchmark's INCRs of number i use: "c" and
// KeyOf(i). INCR needs a key that holds a decimal integer, and PUT, CAS
// and DELETE write other values, so counters have keys of their own; 'c'
// sorts after every digit, so no SCAN of key numbers covers them.
func CounterKeyOf(i int64) kvs.Key { return "c" + KeyOf(i) }
