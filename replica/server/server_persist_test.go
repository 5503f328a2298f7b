package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"swiftpaxos/config"
	"swiftpaxos/kvs"
	"swiftpaxos/replica/storage"
	"swiftpaxos/replica/storage/disk"
	"swiftpaxos/wire"
)

// TestPersisterKeepsOrderAroundAReceivedSnapshot: the loop writes batches
// itself, but a received snapshot goes through the persister, and every
// batch after it must wait its turn there: written before the snapshot,
// the entries above it would be cut by the snapshot's truncation.
func TestPersisterKeepsOrderAroundAReceivedSnapshot(t *testing.T) {
	dir := t.TempDir()
	p, _, err := openDurable(dir, "r", testCluster, zap.NewNop())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.run(ctx) }()

	var seq uint64
	submit := func(b *storage.Batch) {
		seq++
		b.Seq = seq
		p.submit(b)
	}
	for s := kvs.Slot(1); s <= 3; s++ {
		submit(&storage.Batch{Entries: entry(s)})
	}
	submit(&storage.Batch{Snapshot: &storage.Snapshot{LastSlot: 5, Store: kvs.NewStore().Snapshot()},
		Installed: true, Truncated: true, LogEnd: 5})
	for s := kvs.Slot(6); s <= 40; s++ {
		submit(&storage.Batch{Entries: entry(s)})
	}
	deadline := time.After(10 * time.Second)
	for p.synced.Load() < seq {
		select {
		case <-p.notify:
		case <-deadline:
			t.Fatalf("synced %d of %d batches", p.synced.Load(), seq)
		}
	}
	cancel()
	require.NoError(t, <-done)
	require.NoError(t, p.store.Close())

	st, back, err := disk.Open(filepath.Join(dir, "r"), testCluster, nil)
	require.NoError(t, err)
	defer st.Close()
	require.Equal(t, kvs.Slot(5), back.Snapshot.LastSlot)
	require.Len(t, back.Entries, 35)
	for i, e := range back.Entries {
		require.Equal(t, kvs.Slot(6+i), e.Slot)
	}
}

// entry is a one-entry log run at slot s.
func entry(s kvs.Slot) []wire.Entry {
	return []wire.Entry{{Slot: s, Cmd: wire.CmdID{Client: 1, Seq: wire.Seq(s)}, Level: wire.Strong,
		Command: kvs.Command{Op: kvs.OpPut, Key: key(int(s)), Value: kvs.Value("v")}}}
}

// TestPersisterFailureStopsTheLoopsWrites: once the persister failed to
// write a batch (here a received snapshot whose file cannot be created),
// the loop writes nothing after it: a later batch's fsync would release
// what the failed one held back.
func TestPersisterFailureStopsTheLoopsWrites(t *testing.T) {
	dir := t.TempDir()
	p, _, err := openDurable(dir, "r", testCluster, zap.NewNop())
	require.NoError(t, err)
	defer p.store.Close()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "r", "snapshot.tmp", "in-the-way"), 0o755))
	p.submit(&storage.Batch{Seq: 1, Snapshot: &storage.Snapshot{LastSlot: 5, Store: kvs.NewStore().Snapshot()},
		Installed: true, Truncated: true, LogEnd: 5})
	require.Error(t, p.write(context.Background()))
	p.submit(&storage.Batch{Seq: 2, Entries: entry(6)})
	require.Empty(t, p.q, "no write after the failed one")
	require.Empty(t, p.queue)
}

// TestPersisterStopsAtAFailedFsync: once an fsync of the log fails,
// nothing written after the last good one counts as synced (so nothing
// it held back is acknowledged), run stops with the error, and the loop
// writes nothing more.
func TestPersisterStopsAtAFailedFsync(t *testing.T) {
	fs := &failingSyncFS{FS: vfs.Default}
	st, _, err := disk.OpenOn(fs, filepath.Join(t.TempDir(), "r"), testCluster, zap.NewNop())
	require.NoError(t, err)
	defer st.Close()
	p := newPersister(st, zap.NewNop())
	done := make(chan error, 1)
	go func() { done <- p.run(context.Background()) }()

	p.submit(&storage.Batch{Seq: 1, Entries: entry(1)})
	deadline := time.After(10 * time.Second)
	for p.synced.Load() < 1 {
		select {
		case <-p.notify:
		case <-deadline:
			t.Fatal("the first batch was not synced")
		}
	}
	fs.fail.Store(true)
	p.submit(&storage.Batch{Seq: 2, Entries: entry(2)})
	select {
	case err := <-done:
		require.ErrorIs(t, err, errInjectedSync)
	case <-deadline:
		t.Fatal("the persister did not stop")
	}
	require.Equal(t, uint64(1), p.synced.Load(), "a batch whose fsync failed counts as synced")
	p.submit(&storage.Batch{Seq: 3, Entries: entry(3)})
	require.Empty(t, p.q, "a write after the failed fsync")
	require.Empty(t, p.queue)
}

var errInjectedSync = errors.New("injected fsync failure")

// failingSyncFS is the local file system, whose log files' fsyncs fail
// once fail is set. Only logs pebble creates fail: a log it recycles
// (ReuseForWrite) does not, which a test short of a memtable's worth of
// writes never meets.
type failingSyncFS struct {
	vfs.FS
	fail atomic.Bool
}

func (fs *failingSyncFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.Create(name, category)
	if err != nil || !strings.HasSuffix(name, ".log") {
		return f, err
	}
	return &failingSyncFile{File: f, fail: &fs.fail}, nil
}

type failingSyncFile struct {
	vfs.File
	fail *atomic.Bool
}

func (f *failingSyncFile) Sync() error {
	if f.fail.Load() {
		return errInjectedSync
	}
	return f.File.Sync()
}

func (f *failingSyncFile) SyncData() error {
	if f.fail.Load() {
		return errInjectedSync
	}
	return f.File.SyncData()
}

// testCluster is the cluster the package's durable tests open stores for.
var testCluster = disk.Cluster{Protocol: "curpht", Replicas: []string{"replica0", "replica1", "replica2"}}

// A replica's cluster is its protocol and its replicas' aliases: a new
// address or tuning key does not make another cluster.
func TestClusterOfIgnoresAddressesAndTuning(t *testing.T) {
	parse := func(addr1, protocol, tuning string) disk.Cluster {
		text := fmt.Sprintf("-- Replicas --\nreplica0 127.0.0.1:7070\nreplica1 %s\nreplica2 127.0.0.3:7072\n-- Clients --\nclient0 127.0.0.4\n---\nprotocol: %s\n%s\n",
			addr1, protocol, tuning)
		cfg, err := config.Parse("c.conf", strings.NewReader(text))
		require.NoError(t, err)
		return clusterOf(cfg)
	}
	base := parse("127.0.0.2:7071", "curpht", "")
	require.Equal(t, testCluster, base)
	require.Equal(t, base, parse("127.0.0.9:9000", "curpht", "batchDelayUs: 150\npendings: 3"))
	require.NotEqual(t, base, parse("127.0.0.2:7071", "curpho", ""))
}
