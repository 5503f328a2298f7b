package wire

import (
	"bytes"
	"fmt"
	"testing"

	"swiftpaxos/kvs"
)

// benchMessages are the hot-path messages: a strong PUT, the leader's and a
// witness's answers, and a batch of 16 log entries with 100-byte values.
func benchMessages() []struct {
	name string
	msg  Message
} {
	value := kvs.Value(bytes.Repeat([]byte{'v'}, 100))
	accept := &Accept{Ballot: 3, Leader: 0, PrevSlot: 1 << 20, PrevBallot: 3, LeaderCommit: 1<<20 - 5}
	for i := range 16 {
		accept.Entries = append(accept.Entries, Entry{Slot: kvs.Slot(1<<20 + 1 + i), Ballot: 3,
			Cmd:     CmdID{Client: 0x9e3779b97f4a7c15, Seq: Seq(1000 + i)},
			Command: kvs.Command{Op: kvs.OpPut, Key: kvs.Key(fmt.Sprintf("%07d", 123456+i)), Value: value}, Level: Strong})
	}
	return []struct {
		name string
		msg  Message
	}{
		{"Propose", &Propose{Cmd: CmdID{Client: 0x9e3779b97f4a7c15, Seq: 1000},
			Command: kvs.Command{Op: kvs.OpPut, Key: "0123456", Value: value}, AckUpTo: 990, WeakDep: 998}},
		{"LeaderReply", &LeaderReply{Replica: 0, Ballot: 3, Cmd: CmdID{Client: 0x9e3779b97f4a7c15, Seq: 1000},
			Ok: true, Result: kvs.Result{Value: value, Found: true, Version: 1<<20 - 7}, Slot: 1<<20 + 1,
			Lives: Lives{1795000000000000001, 1795000000000000002, 1795000000000000003}}},
		{"RecordAck", &RecordAck{Replica: 2, Ballot: 3, Cmd: CmdID{Client: 0x9e3779b97f4a7c15, Seq: 1000},
			Ok: true, DepCommittedSeq: 998, Life: 1795000000000000003}},
		{"Accept16x100B", accept},
	}
}

func BenchmarkEncode(b *testing.B) {
	for _, bm := range benchMessages() {
		b.Run(bm.name, func(b *testing.B) {
			buf := AppendFrame(nil, bm.msg)
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for b.Loop() {
				buf = AppendFrame(buf[:0], bm.msg)
			}
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, bm := range benchMessages() {
		b.Run(bm.name, func(b *testing.B) {
			frame := AppendFrame(nil, bm.msg)
			typ, body := bm.msg.Type(), frame[frameHeader:]
			b.SetBytes(int64(len(frame)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(typ, body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
