package disk

import (
	"fmt"
	"os"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/storage"
	"swiftpaxos/wire"
)

// BenchmarkSyncedBatch measures one Write: one pebble batch committed with
// one fsync, holding n log entries of a 100-byte PUT and n witness records
// kept and n removed (what a follower persists for n strong writes), on
// the local disk (the test's temporary directory) and on tmpfs
// (/dev/shm, when present). ns/op is the latency of one group commit;
// cpu-us/op the CPU the process spent on it, user and kernel, pebble's
// goroutines included: on a virtual machine an fsync costs CPU time as
// well as latency (docs/TUNING.md, "What bounds durable mode here").
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
				s, _, err := Open(fmt.Sprintf("%s/n%d", dir, n), testCluster, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				value := make([]byte, 100)
				keys := make([]kvs.Key, 1000)
				for i := range keys {
					keys[i] = testKey(i)
				}
				slot := kvs.Slot(0)
				b.ReportAllocs()
				cpu0 := cpuTime(b)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					bt := &storage.Batch{}
					for j := 0; j < n; j++ {
						slot++
						id := wire.CmdID{Client: 1, Seq: wire.Seq(slot)}
						cmd := kvs.Command{Op: kvs.OpPut, Key: keys[slot%1000], Value: value}
						bt.Entries = append(bt.Entries, wire.Entry{Slot: slot, Ballot: 1, Cmd: id, Command: cmd, Level: wire.Strong})
						bt.Records = append(bt.Records, storage.RecordOp{Record: wire.Record{Cmd: id, Command: cmd, Level: wire.Strong, Accepted: true, Ballot: 1}})
						if slot > 1 {
							bt.Records = append(bt.Records, storage.RecordOp{Remove: true, Record: wire.Record{Cmd: wire.CmdID{Client: 1, Seq: wire.Seq(slot - 1)}}})
						}
					}
					if err := s.Write([]*storage.Batch{bt}); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(cpuTime(b)-cpu0)/1e3/float64(b.N), "cpu-us/op")
			})
		}
	}
}

// cpuTime is the CPU the process has used so far, user and kernel.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSyncedBatchBesideSnapshot measures what BenchmarkSyncedBatch
// does (n=16, on the local disk) while another goroutine writes 16-MB
// snapshot files one after the other, as a durable replica does beside its
// log: paced (written back a range at a time, pacedWriter) or not. p99-us
// and max-us are the group commits' latency percentiles, snapshots/s how
// many files the writer finished meanwhile (a slower writer loads the disk
// less); compare the two in one run.
func BenchmarkSyncedBatchBesideSnapshot(b *testing.B) {
	store := kvs.NewStore()
	value := make([]byte, 1000)
	for i := range 16 << 10 {
		store.Apply(kvs.Slot(i+1), kvs.Command{Op: kvs.OpPut, Key: testKey(i), Value: value})
	}
	sn := &storage.Snapshot{LastSlot: 1 << 14, LastBallot: 1, Store: store.Snapshot()}
	for _, paced := range []bool{false, true} {
		b.Run(fmt.Sprintf("paced=%v", paced), func(b *testing.B) {
			dir := b.TempDir()
			s, _, err := Open(dir+"/db", testCluster, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			stop, done := make(chan struct{}), make(chan error, 1)
			var snaps atomic.Int64
			go func() {
				for {
					select {
					case <-stop:
						done <- nil
						return
					default:
					}
					if _, err := writeSnapshotFileWith(dir+"/snapshot", sn, paced); err != nil {
						done <- err
						return
					}
					snaps.Add(1)
				}
			}()
			stopped := false
			stopWriter := func() error {
				if stopped {
					return nil
				}
				stopped = true
				close(stop)
				return <-done
			}
			defer stopWriter()
			keys := make([]kvs.Key, 1000)
			for i := range keys {
				keys[i] = testKey(i)
			}
			lat := make([]time.Duration, 0, b.N)
			slot := kvs.Slot(0)
			b.ResetTimer()
			t := time.Now()
			for i := 0; i < b.N; i++ {
				bt := &storage.Batch{}
				for range 16 {
					slot++
					id := wire.CmdID{Client: 1, Seq: wire.Seq(slot)}
					cmd := kvs.Command{Op: kvs.OpPut, Key: keys[slot%1000], Value: value[:100]}
					bt.Entries = append(bt.Entries, wire.Entry{Slot: slot, Ballot: 1, Cmd: id, Command: cmd, Level: wire.Strong})
				}
				t0 := time.Now()
				if err := s.Write([]*storage.Batch{bt}); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			elapsed := time.Since(t)
			if err := stopWriter(); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(snaps.Load())/elapsed.Seconds(), "snapshots/s")
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-us")
			b.ReportMetric(float64(lat[len(lat)-1].Microseconds()), "max-us")
		})
	}
}
