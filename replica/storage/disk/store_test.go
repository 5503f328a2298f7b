package disk

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/storage"
	"swiftpaxos/wire"
)

// history draws a sequence of batches a replica could produce: hard state
// changes, appends, overwrites of a suffix (a new ballot), witness records
// kept and removed, snapshots taken and received. The disk's contents
// after them are the same whichever store applies them.
type history struct {
	rng     *rand.Rand
	seq     uint64
	last    kvs.Slot
	ballot  wire.Ballot
	applied kvs.Slot // slots below it may be snapshotted
	store   *kvs.Store
	// ballotOf is the ballot of the entry last written at each slot: a
	// snapshot's LastBallot is that of the entry at its LastSlot, so two
	// snapshots of one slot agree on it, as the replicas' do.
	ballotOf map[kvs.Slot]wire.Ballot
	kept     []wire.CmdID
	arrival  uint64
}

// testKey is key number i, fixed width so that keys sort as their numbers.
func testKey(i int) kvs.Key { return kvs.Key(fmt.Sprintf("k%03d", i)) }

func newHistory(seed uint64) *history {
	return &history{rng: rand.New(rand.NewPCG(seed, 1)), store: kvs.NewStore(), ballotOf: map[kvs.Slot]wire.Ballot{}}
}

// entry is a strong command at slot s, of every operation of the data
// model: what the log holds is the commands' fields, whatever they are.
func (h *history) entry(s kvs.Slot) wire.Entry {
	k := testKey(h.rng.IntN(20))
	c := kvs.Command{Op: kvs.OpPut, Key: k, Value: []byte(fmt.Sprintf("v%d", s))}
	switch h.rng.IntN(10) {
	case 0:
		c = kvs.Command{Op: kvs.OpDelete, Key: k}
	case 1:
		c = kvs.Command{Op: kvs.OpCAS, Key: k, Expect: kvs.ExpectValue, ExpectValue: []byte("old"), Value: []byte("new")}
	case 2:
		c = kvs.Command{Op: kvs.OpCAS, Key: k, Expect: kvs.ExpectVersion, ExpectVersion: s - 1, Delete: true}
	case 3:
		c = kvs.Command{Op: kvs.OpIncr, Key: k, Delta: -int64(s)}
	case 4:
		c = kvs.Command{Op: kvs.OpScan, Key: k, End: testKey(20), Limit: 3}
	case 5:
		c = kvs.Command{Op: kvs.OpGet, Key: k}
	}
	h.ballotOf[s] = h.ballot
	return wire.Entry{Slot: s, Ballot: h.ballot, Cmd: wire.CmdID{Client: 7, Seq: wire.Seq(s)}, Command: c, Level: wire.Strong}
}

func (h *history) next() *storage.Batch {
	h.seq++
	b := &storage.Batch{Seq: h.seq}
	if h.rng.IntN(5) == 0 {
		h.ballot++
		b.Hard = &storage.HardState{Ballot: h.ballot, Vote: wire.ReplicaID(h.rng.IntN(3)), Member: true}
		if h.last > h.applied && h.rng.IntN(2) == 0 {
			// A new ballot overwrites an uncommitted suffix.
			h.last = h.applied + kvs.Slot(h.rng.IntN(int(h.last-h.applied)))
			b.Truncated, b.LogEnd = true, h.last
		}
	}
	for range h.rng.IntN(6) {
		h.last++
		b.Entries = append(b.Entries, h.entry(h.last))
	}
	if b.Truncated {
		b.LogEnd = h.last
	}
	for range h.rng.IntN(4) {
		if len(h.kept) > 0 && h.rng.IntN(2) == 0 {
			i := h.rng.IntN(len(h.kept))
			b.Records = append(b.Records, storage.RecordOp{Remove: true, Record: wire.Record{Cmd: h.kept[i]}})
			h.kept = append(h.kept[:i], h.kept[i+1:]...)
			continue
		}
		h.arrival++
		id := wire.CmdID{Client: 9, Seq: wire.Seq(h.arrival)}
		h.kept = append(h.kept, id)
		b.Records = append(b.Records, storage.RecordOp{Record: wire.Record{Cmd: id, Level: wire.Weak, Accepted: true, Ballot: h.ballot,
			Arrival: h.arrival, Command: kvs.Command{Op: kvs.OpPut, Key: testKey(3), Value: []byte("w")}}})
	}
	for h.applied < h.last && h.rng.IntN(2) == 0 {
		h.applied++
		c := kvs.Command{Op: kvs.OpPut, Key: testKey(int(h.applied % 7)), Value: []byte("x")}
		if h.applied%5 == 0 {
			c = kvs.Command{Op: kvs.OpDelete, Key: c.Key} // a snapshot keeps deleted keys
		}
		h.store.Apply(h.applied, c)
	}
	if h.applied > 0 && h.rng.IntN(8) == 0 {
		b.Snapshot = &storage.Snapshot{LastSlot: h.applied, LastBallot: h.ballotOf[h.applied], Store: h.store.Snapshot(),
			Sessions: []wire.SessionState{{Client: 7, Floor: wire.Seq(h.applied)}}}
		if h.rng.IntN(3) == 0 {
			// Received from a leader: the log restarts after it.
			b.Installed, b.Truncated, b.LogEnd, b.Entries = true, true, h.last, nil
			for s := h.applied + 1; s <= h.last; s++ {
				b.Entries = append(b.Entries, h.entry(s))
			}
		}
	}
	return b
}

// requireSame compares two states (snapshots by slot, ballot and items).
func requireSame(t *testing.T, want, got *storage.State) {
	t.Helper()
	require.Equal(t, want.Hard, got.Hard)
	require.Equal(t, want.Entries, got.Entries)
	require.Equal(t, len(want.Records), len(got.Records))
	for i := range want.Records {
		require.Equal(t, want.Records[i], got.Records[i])
	}
	require.Equal(t, want.Snapshot == nil, got.Snapshot == nil)
	if want.Snapshot != nil {
		require.Equal(t, want.Snapshot.LastSlot, got.Snapshot.LastSlot)
		require.Equal(t, want.Snapshot.LastBallot, got.Snapshot.LastBallot)
		require.Equal(t, want.Snapshot.Sessions, got.Snapshot.Sessions)
		wi, _ := want.Snapshot.Store.Chunk(kvs.ChunkPos{}, 1<<30)
		gi, _ := got.Snapshot.Store.Chunk(kvs.ChunkPos{}, 1<<30)
		require.Equal(t, wi, gi)
	}
}

// TestStoreMatchesMem applies random batches to a Store and to a Mem, and
// requires the same state from both after every reopen. The batches are
// group-committed in random runs, with Write (one at a time) or, as the
// persister does, with up to five Starts in flight before their Waits;
// the log costs at least one fsync and at most one per write, and one
// more per received snapshot.
func TestStoreMatchesMem(t *testing.T) {
	for _, window := range []int{1, 5} {
		for seed := uint64(1); seed <= 8; seed++ {
			t.Run(fmt.Sprintf("window=%d/%d", window, seed), func(t *testing.T) {
				storeMatchesMem(t, seed, window)
			})
		}
	}
}

func storeMatchesMem(t *testing.T, seed uint64, window int) {
	dir := t.TempDir()
	h, mem := newHistory(seed), storage.NewMem()
	s, st, err := Open(dir, testCluster, zaptest.NewLogger(t))
	require.NoError(t, err)
	require.True(t, st.Empty())
	writes := 0
	for round := 0; round < 6; round++ {
		var inflight []Pending
		var taken []*storage.Snapshot
		settle := func() {
			for _, p := range inflight {
				require.NoError(t, p.Wait())
			}
			for _, sn := range taken {
				require.NoError(t, s.SaveSnapshot(sn))
			}
			inflight, taken = inflight[:0], taken[:0]
		}
		for range 10 {
			var group []*storage.Batch
			for range 1 + h.rng.IntN(4) {
				b := h.next()
				mem.Apply(b)
				group = append(group, b)
				if b.Snapshot != nil && !b.Installed {
					taken = append(taken, b.Snapshot)
				}
				if b.Installed {
					// A received snapshot is synced on its own, before
					// the rest (Store.Start).
					writes++
				}
			}
			writes++
			if window == 1 {
				require.NoError(t, s.Write(group))
			} else {
				p, err := s.Start(group)
				require.NoError(t, err)
				inflight = append(inflight, p)
			}
			if len(inflight) == window || h.rng.IntN(3) == 0 {
				settle()
			}
		}
		settle()
		syncs := s.Syncs().Count
		require.NoError(t, s.Close())
		require.Positive(t, syncs)
		require.LessOrEqual(t, syncs, uint64(writes)+uint64(round+1)*4, "at most one fsync per write, plus the log's rotation and close")
		s, st, err = Open(dir, testCluster, zaptest.NewLogger(t))
		require.NoError(t, err)
		want, err := mem.State()
		require.NoError(t, err)
		requireSame(t, want, st)
	}
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "Close twice")
}

// TestTornTailIsCut tears the last batch of the write-ahead log, as a
// crash in the middle of a write leaves it: the store opens with every
// batch but the torn one. The log is written with zeros ahead of its data
// (walFile), so a crash leaves either the torn bytes at the end of the
// file or, where zeros were ahead, torn bytes followed by zeros.
func TestTornTailIsCut(t *testing.T) {
	for _, zeroedTail := range []bool{false, true} {
		t.Run(fmt.Sprintf("zeroedTail=%v", zeroedTail), func(t *testing.T) {
			tornTailIsCut(t, zeroedTail)
		})
	}
}

func tornTailIsCut(t *testing.T, zeroedTail bool) {
	dir := t.TempDir()
	s, _, err := Open(dir, testCluster, zaptest.NewLogger(t))
	require.NoError(t, err)
	h, mem := newHistory(3), storage.NewMem()
	var last *storage.Batch
	for range 20 {
		b := h.next()
		b.Snapshot, b.Installed = nil, false
		if last != nil {
			mem.Apply(last)
		}
		require.NoError(t, s.Write([]*storage.Batch{b}))
		last = b
	}
	// A crash leaves the files as they are now (Close would end the log
	// cleanly): copy them, and tear the copy's last batch.
	crashed := t.TempDir()
	copyDir(t, dir, crashed)
	require.NoError(t, s.Close())
	dir = crashed
	newest, data, end := newestLog(t, dir)
	require.Greater(t, len(data), end, "zeros ahead of the data")
	if zeroedTail {
		clear(data[end-3 : end])
		require.NoError(t, os.WriteFile(newest, data, 0o644))
	} else {
		require.NoError(t, os.Truncate(newest, int64(end-3)))
	}
	s, st, err := Open(dir, testCluster, zaptest.NewLogger(t))
	require.NoError(t, err)
	defer s.Close()
	want, err := mem.State()
	require.NoError(t, err)
	requireSame(t, want, st)
}

// TestCorruptSnapshotNamesTheFile: one flipped byte in the snapshot file
// makes Open fail with an error naming it; a missing snapshot under a
// compacted log fails too. Neither starts empty.
func TestCorruptSnapshotNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	s, _, err := Open(dir, testCluster, nil)
	require.NoError(t, err)
	store := kvs.NewStore()
	store.Apply(1, kvs.Command{Op: kvs.OpPut, Key: testKey(1), Value: []byte("a")})
	store.Apply(2, kvs.Command{Op: kvs.OpPut, Key: testKey(2), Value: []byte("b")})
	require.NoError(t, s.SaveSnapshot(&storage.Snapshot{LastSlot: 2, LastBallot: 1, Store: store.Snapshot()}))
	require.NoError(t, s.Write([]*storage.Batch{{Entries: []wire.Entry{{Slot: 3, Ballot: 1, Command: kvs.Command{Op: kvs.OpNoop}, Level: wire.Strong}}}}))
	require.NoError(t, s.Close())

	path := filepath.Join(dir, "snapshot")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	b[len(b)/2] ^= 0x40
	require.NoError(t, os.WriteFile(path, b, 0o644))
	_, _, err = Open(dir, testCluster, nil)
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, path)

	require.NoError(t, os.Remove(path))
	_, _, err = Open(dir, testCluster, nil)
	require.ErrorContains(t, err, "the log starts at slot 3 and no snapshot covers the slots below it")
}

// TestGapIsCut: entries past a gap (a received snapshot whose suffix was
// not written yet) are dropped at open, and stay dropped.
func TestGapIsCut(t *testing.T) {
	dir := t.TempDir()
	s, _, err := Open(dir, testCluster, nil)
	require.NoError(t, err)
	ent := func(s kvs.Slot) wire.Entry {
		return wire.Entry{Slot: s, Ballot: 1, Cmd: wire.CmdID{Client: 1, Seq: wire.Seq(s)}, Command: kvs.Command{Op: kvs.OpGet, Key: testKey(1)}, Level: wire.Strong}
	}
	require.NoError(t, s.Write([]*storage.Batch{{Entries: []wire.Entry{ent(1), ent(2), ent(5), ent(6)}}}))
	require.NoError(t, s.Close())
	s, st, err := Open(dir, testCluster, nil)
	require.NoError(t, err)
	require.Equal(t, []wire.Entry{ent(1), ent(2)}, st.Entries)
	require.Equal(t, 2, st.Cut)
	require.NoError(t, s.Write([]*storage.Batch{{Entries: []wire.Entry{ent(3), ent(4)}}}))
	require.NoError(t, s.Close())
	s, st, err = Open(dir, testCluster, nil)
	require.NoError(t, err)
	defer s.Close()
	require.Equal(t, []wire.Entry{ent(1), ent(2), ent(3), ent(4)}, st.Entries, "the entries past the gap must not come back")
}

func TestHardStateCodec(t *testing.T) {
	for _, h := range []storage.HardState{{Vote: wire.NoReplica}, {Ballot: 1<<32 - 1, Vote: 4, Member: true},
		{Ballot: 3, Vote: 1, Member: true, PreGranted: 1<<32 - 1},
		{Vote: wire.NoReplica, Lives: []uint64{0, 1<<63 - 1, 300}},
		{Ballot: 2, Vote: 0, Member: true, PreGranted: 2, Lives: []uint64{5}}} {
		got, err := decodeHard(encodeHard(h))
		require.NoError(t, err)
		require.Equal(t, h, got)
	}
	got, err := decodeHard([]byte{3, 2, 1})
	require.NoError(t, err, "a hard state written without the pre-vote ballot")
	require.Equal(t, storage.HardState{Ballot: 3, Vote: 1, Member: true}, got)
	got, err = decodeHard([]byte{3, 2, 1, 4})
	require.NoError(t, err, "a hard state written without lives")
	require.Equal(t, storage.HardState{Ballot: 3, Vote: 1, Member: true, PreGranted: 4}, got)
	for _, b := range [][]byte{nil, {1}, {1, 2}, {1, 2, 7}, {0xff, 0xff, 0xff, 0xff, 0x1f, 0, 0},
		{1, 2, 1, 0x80}, {1, 2, 1, 5, 5}, {1, 2, 1, 0xff, 0xff, 0xff, 0xff, 0x1f},
		{1, 2, 1, 0, 0}, {1, 2, 1, 0, 2, 7}, {1, 2, 1, 0, 1, 7, 7}, {1, 2, 1, 0, 1, 0x80},
		{1, 2, 1, 0, 0xff, 0xff, 0xff, 0xff, 0x0f, 1},
		{1, 2, 1, 0, 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}} {
		_, err := decodeHard(b)
		require.Error(t, err, "%x", b)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	}))
}

// TestLargeSessionTable: a session table larger than a frame crosses in
// several chunks and reads back whole; a single session larger than a
// frame could never be read back, so such a snapshot is not written and
// the previous one stays.
func TestLargeSessionTable(t *testing.T) {
	dir := t.TempDir()
	s, _, err := Open(dir, testCluster, nil)
	require.NoError(t, err)
	defer s.Close()
	store := kvs.NewStore()
	store.Apply(1, kvs.Command{Op: kvs.OpPut, Key: testKey(1), Value: []byte("a")})

	// Results held for retries carry their values: 300 sessions of 60 KB.
	big := make([]byte, 60<<10)
	var sessions []wire.SessionState
	for c := range 300 {
		sessions = append(sessions, wire.SessionState{Client: wire.ClientID(c + 1),
			Results: []wire.SessionResult{{Seq: 1, Slot: 1, Result: kvs.Result{Value: big, Found: true, Version: 1}}}})
	}
	require.NoError(t, s.SaveSnapshot(&storage.Snapshot{LastSlot: 2, LastBallot: 1, Store: store.Snapshot(), Sessions: sessions}))
	sn, err := readSnapshotFile(filepath.Join(dir, "snapshot"))
	require.NoError(t, err)
	require.Equal(t, sessions, sn.Sessions)

	var results []wire.SessionResult
	for q := range 300 {
		results = append(results, wire.SessionResult{Seq: wire.Seq(q + 1), Slot: 1, Result: kvs.Result{Value: big, Found: true, Version: 1}})
	}
	one := []wire.SessionState{{Client: 1, Results: results}}
	err = s.SaveSnapshot(&storage.Snapshot{LastSlot: 3, LastBallot: 1, Store: store.Snapshot(), Sessions: one})
	require.ErrorContains(t, err, "exceeds the 16777216-byte frame limit")
	sn, err = readSnapshotFile(filepath.Join(dir, "snapshot"))
	require.NoError(t, err)
	require.Equal(t, kvs.Slot(2), sn.LastSlot, "the earlier snapshot was replaced")
}
