package replica

import (
	"testing"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// BenchmarkLogAppendCompact appends entries and compacts as a replica
// does with the default options: every 10,000 entries, keeping 10,000.
func BenchmarkLogAppendCompact(b *testing.B) {
	const every, retain = 10_000, 10_000
	var l raftLog
	e := wire.Entry{Command: kvs.Command{Op: kvs.OpGet, Key: "0123456"}}
	b.ReportAllocs()
	for b.Loop() {
		if s := l.append(e); s%every == 0 && s > retain {
			l.compact(s-retain, every+every/4)
		}
	}
}
