package kvs

import (
	"fmt"
	"testing"
)

const benchKeys = 1 << 14

// benchKey is the benchmark's key i over its default million keys (as
// bench.Keys makes them: 7 digits).
func benchKey(i int) Key { return Key(fmt.Sprintf("%07d", i)) }

func filled() (*Store, []Key, Slot) {
	s := NewStore()
	keys := make([]Key, benchKeys)
	v := make(Value, 100)
	for i := range keys {
		keys[i] = benchKey(i)
		s.Apply(Slot(i+1), Command{Op: OpPut, Key: keys[i], Value: v})
	}
	return s, keys, Slot(benchKeys)
}

func BenchmarkApplyPut(b *testing.B) {
	s, keys, slot := filled()
	v := make(Value, 100)
	b.ReportAllocs()
	for b.Loop() {
		slot++
		s.Apply(slot, Command{Op: OpPut, Key: keys[slot%benchKeys], Value: v})
	}
}

func BenchmarkApplyGet(b *testing.B) {
	s, keys, slot := filled()
	b.ReportAllocs()
	for b.Loop() {
		slot++
		if r := s.Apply(slot, Command{Op: OpGet, Key: keys[slot%benchKeys]}); len(r.Value) != 100 {
			b.Fatalf("GET returned %d bytes, want 100", len(r.Value))
		}
	}
}

func BenchmarkApplyScan(b *testing.B) {
	s, keys, slot := filled()
	b.ReportAllocs()
	for b.Loop() {
		slot++
		s.Apply(slot, Command{Op: OpScan, Key: keys[slot%benchKeys], Limit: 10})
	}
}

func BenchmarkApplyIncr(b *testing.B) {
	s, keys, slot := filled()
	b.ReportAllocs()
	for b.Loop() {
		slot++
		s.Apply(slot, Command{Op: OpIncr, Key: keys[slot%benchKeys] + "n", Delta: 1})
	}
}

// BenchmarkReadGet is a weak read's evaluation (Store.Read).
func BenchmarkReadGet(b *testing.B) {
	s, keys, _ := filled()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if r := s.Read(Command{Op: OpGet, Key: keys[i%benchKeys]}); len(r.Value) != 100 {
			b.Fatalf("GET returned %d bytes, want 100", len(r.Value))
		}
	}
}
