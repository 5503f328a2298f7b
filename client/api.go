package client

import (
	"bytes"
	"context"
	"fmt"
	"strconv"

	"swiftpaxos/kvs"
)

// The typed operations of a Session: one method per operation, keys and
// values as []byte. Each converts its arguments once into a kvs.Command,
// runs it with Do and turns the Result into what the operation promises.
// Values passed in are copied (the session keeps written values in its
// cache, so a caller's reused buffer must not reach it) and values
// returned are the caller's own.

// GetResult is what a GET found: the key's value and whether it holds
// one (absent and empty differ), and the slot of the key's last write
// (a DELETE's when absent; 0: never written).
type GetResult struct {
	Value   []byte
	Found   bool
	Version kvs.Slot
}

// PutResult is what a PUT tells: its slot, the key's new version. It is 0
// when the write was acknowledged before it was ordered (a CURP-HO weak
// PUT, answered by the bound replica): the slot is not known then.
type PutResult struct {
	Version kvs.Slot
}

// DeleteResult is what a DELETE tells. Existed says whether the key held
// a value before it, and means something only when Known: a weak DELETE
// is acknowledged before it executes (CURP-HT at commit, CURP-HO by the
// bound replica before it is ordered), so whether the key existed is not
// known then and Known is false. Version is the DELETE's slot, the key's
// new version; 0 when not known (CURP-HO weak).
type DeleteResult struct {
	Existed bool
	Known   bool
	Version kvs.Slot
}

// KV is one key of a SCAN's result with its value and the slot of its
// last write.
type KV struct {
	Key     []byte
	Value   []byte
	Version kvs.Slot
}

// ScanResult is a SCAN's answer: the keys of its range that hold a value,
// in key order, at most its limit; More says that keys after the answer
// may hold values too (the limit, or the replica's bound on a reply's
// bytes, kvs.MaxScanBytes, stopped it), and Resume is where to scan again
// from to go on. A weak SCAN's answer, merged with the session's own
// writes, may then hold fewer items than its limit, even none.
type ScanResult struct {
	Items  []KV
	More   bool
	Resume []byte
}

// Expect is what a CompareAndSwap compares the key's current state with:
// ExpectAbsent, ExpectValue or ExpectVersion.
type Expect struct {
	kind    kvs.Expect
	value   []byte
	version kvs.Slot
}

// ExpectAbsent expects the key to hold no value.
func ExpectAbsent() Expect { return Expect{kind: kvs.ExpectAbsent} }

// ExpectValue expects the key to hold exactly v.
func ExpectValue(v []byte) Expect { return Expect{kind: kvs.ExpectValue, value: bytes.Clone(v)} }

// ExpectVersion expects the key's last write to be at slot n (a Version
// of an earlier result; 0: never written).
func ExpectVersion(n kvs.Slot) Expect { return Expect{kind: kvs.ExpectVersion, version: n} }

// Update is what a CompareAndSwap does when its expectation holds: write
// a value (SetValue) or delete the key (DeleteKey). The zero Update
// writes the empty value, which is a value.
type Update struct {
	value  []byte
	delete bool
}

// SetValue writes v.
func SetValue(v []byte) Update { return Update{value: bytes.Clone(v)} }

// DeleteKey deletes the key.
func DeleteKey() Update { return Update{delete: true} }

// CASResult is what a CompareAndSwap tells: whether it applied, and the
// key's state after it either way (its new state and the CAS's slot when
// it applied, the current one when not).
type CASResult struct {
	Applied bool
	Value   []byte
	Found   bool
	Version kvs.Slot
}

// Get reads key at the given level.
func (s *Session) Get(ctx context.Context, key []byte, level Level) (GetResult, error) {
	r, err := s.Do(ctx, Op{Level: level, Command: kvs.Command{Op: kvs.OpGet, Key: kvs.Key(key)}})
	if err != nil {
		return GetResult{}, err
	}
	return GetResult{Value: owned(r.Value, r.Found), Found: r.Found, Version: r.Version}, nil
}

// Put writes value under key at the given level. An empty value is a
// value: the key then holds it, and Get finds it.
func (s *Session) Put(ctx context.Context, key, value []byte, level Level) (PutResult, error) {
	r, err := s.Do(ctx, Op{Level: level, Command: kvs.Command{Op: kvs.OpPut, Key: kvs.Key(key), Value: owned(value, true)}})
	if err != nil {
		return PutResult{}, err
	}
	return PutResult{Version: r.Version}, nil
}

// Delete makes key absent at the given level.
func (s *Session) Delete(ctx context.Context, key []byte, level Level) (DeleteResult, error) {
	r, err := s.Do(ctx, Op{Level: level, Command: kvs.Command{Op: kvs.OpDelete, Key: kvs.Key(key)}})
	if err != nil {
		return DeleteResult{}, err
	}
	return DeleteResult{Existed: r.Known && r.Found, Known: r.Known, Version: r.Version}, nil
}

// Scan reads, as one operation at the given level, the keys of [start,
// end) that hold a value, at most limit of them (1 to kvs.MaxScanLimit).
// An empty start is the first key, an empty end is past the last.
func (s *Session) Scan(ctx context.Context, start, end []byte, limit int, level Level) (ScanResult, error) {
	if limit < 1 || limit > kvs.MaxScanLimit {
		return ScanResult{}, fmt.Errorf("%w: SCAN: limit %d outside [1, %d]", kvs.ErrInvalidCommand, limit, kvs.MaxScanLimit)
	}
	cmd := kvs.Command{Op: kvs.OpScan, Key: kvs.Key(start), End: kvs.Key(end), Limit: int64(limit)}
	r, err := s.Do(ctx, Op{Level: level, Command: cmd})
	if err != nil {
		return ScanResult{}, err
	}
	out := ScanResult{Items: make([]KV, 0, len(r.Items)), More: r.More}
	for _, it := range r.Items {
		out.Items = append(out.Items, KV{Key: []byte(it.Key), Value: owned(it.Value, true), Version: it.Version})
	}
	if r.More {
		out.Resume = []byte(r.Resume())
	}
	return out, nil
}

// CompareAndSwap applies update to key if its current state meets
// expect, as one strong operation (a CAS is strong only: its result
// depends on the state it meets, which a weak write, acknowledged before
// it executes, cannot tell).
func (s *Session) CompareAndSwap(ctx context.Context, key []byte, expect Expect, update Update) (CASResult, error) {
	if expect.kind == 0 {
		return CASResult{}, fmt.Errorf("%w: CAS: no expectation (ExpectAbsent, ExpectValue or ExpectVersion)", kvs.ErrInvalidCommand)
	}
	cmd := kvs.Command{Op: kvs.OpCAS, Key: kvs.Key(key), Expect: expect.kind, ExpectValue: expect.value,
		ExpectVersion: expect.version, Value: update.value, Delete: update.delete}
	r, err := s.Do(ctx, Op{Level: Strong, Command: cmd})
	if err != nil {
		return CASResult{}, err
	}
	return CASResult{Applied: r.Applied, Value: owned(r.Value, r.Found), Found: r.Found, Version: r.Version}, nil
}

// Incr adds delta to the decimal signed 64-bit integer key holds (absent
// counts as 0) as one strong operation, and returns the new value. A
// value that is not such an integer (kvs.ErrValueNotInteger) or a sum
// that overflows (kvs.ErrIncrOverflow) is an error, and nothing changed.
func (s *Session) Incr(ctx context.Context, key []byte, delta int64) (int64, error) {
	r, err := s.Do(ctx, Op{Level: Strong, Command: kvs.Command{Op: kvs.OpIncr, Key: kvs.Key(key), Delta: delta}})
	if err != nil {
		return 0, err
	}
	if err := r.Code.Error(); err != nil {
		return 0, fmt.Errorf("INCR %q: %w", key, err)
	}
	n, err := strconv.ParseInt(string(r.Value), 10, 64)
	if err != nil {
		// A replica's INCR writes a decimal integer: anything else is a
		// reply this client cannot trust, not a value to make up.
		return 0, fmt.Errorf("INCR %q: the reply's value %q is not an integer", key, r.Value)
	}
	return n, nil
}

// owned is a copy of v for the caller, or nil when the key holds no
// value. A found empty value is an empty, non-nil slice.
func owned(v []byte, found bool) []byte {
	if !found {
		return nil
	}
	return append(make([]byte, 0, len(v)), v...)
}
