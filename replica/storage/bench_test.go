package storage

import (
	"fmt"
	"os"
	"testing"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
)

// BenchmarkSyncedBatch measures one Write: one pebble batch committed with
// one fsync, holding n log entries of a 100-byte PUT and n witness records
// kept and n removed (what a follower persists for n strong writes), on
// the local disk (the test's temporary directory) and on tmpfs
// (/dev/shm, when present). ns/op is the cost of one group commit.
func BenchmarkSyncedBatch(b *testing.B) {
	dirs := map[string]string{"disk": b.TempDir()}
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		shm, err := os.MkdirTemp("/dev/shm", "swiftpaxos-bench-")
		if err == nil {
			defer os.RemoveAll(shm)
			dirs["tmpfs"] = shm
		}
	}
	for _, where := range []string{"disk", "tmpfs"} {
		dir, ok := dirs[where]
		if !ok {
			continue
		}
		for _, n := range []int{1, 16, 128} {
			b.Run(fmt.Sprintf("%s/n=%d", where, n), func(b *testing.B) {
				s, _, err := Open(fmt.Sprintf("%s/n%d", dir, n), nil)
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				value := make([]byte, 100)
				slot := kvs.Slot(0)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					bt := &Batch{}
					for j := 0; j < n; j++ {
						slot++
						id := wire.CmdID{Client: 1, Seq: wire.Seq(slot)}
						cmd := kvs.Command{Op: kvs.OpPut, Key: kvs.Key(slot % 1000), Value: value}
						bt.Entries = append(bt.Entries, wire.Entry{Slot: slot, Ballot: 1, Cmd: id, Command: cmd, Level: wire.Strong})
						bt.Records = append(bt.Records, RecordOp{Record: wire.Record{Cmd: id, Command: cmd, Level: wire.Strong, Accepted: true, Ballot: 1}})
						if slot > 1 {
							bt.Records = append(bt.Records, RecordOp{Remove: true, Record: wire.Record{Cmd: wire.CmdID{Client: 1, Seq: wire.Seq(slot - 1)}}})
						}
					}
					if err := s.Write([]*Batch{bt}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
