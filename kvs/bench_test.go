package kvs

import "testing"

const benchKeys = 1 << 14

func BenchmarkApplyPut(b *testing.B) {
	s := NewStore()
	v := make(Value, 100)
	var slot Slot
	b.ReportAllocs()
	for b.Loop() {
		slot++
		s.Apply(slot, Command{Op: OpPut, Key: Key(slot % benchKeys), Value: v})
	}
}

func BenchmarkApplyGet(b *testing.B) {
	s := NewStore()
	v := make(Value, 100)
	var slot Slot
	for k := range Key(benchKeys) {
		slot++
		s.Apply(slot, Command{Op: OpPut, Key: k, Value: v})
	}
	b.ReportAllocs()
	for b.Loop() {
		slot++
		if r := s.Apply(slot, Command{Op: OpGet, Key: Key(slot % benchKeys)}); len(r.Value) != len(v) {
			b.Fatalf("GET returned %d bytes, want %d", len(r.Value), len(v))
		}
	}
}

func BenchmarkApplyScan(b *testing.B) {
	s := NewStore()
	v := make(Value, 100)
	var slot Slot
	for k := range Key(benchKeys) {
		slot++
		s.Apply(slot, Command{Op: OpPut, Key: k, Value: v})
	}
	b.ReportAllocs()
	for b.Loop() {
		slot++
		s.Apply(slot, Command{Op: OpScan, Key: Key(slot % benchKeys), Count: 10})
	}
}
