package disk

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"go.uber.org/zap"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/storage"
	"swiftpaxos/wire"
)

// Store is a replica's durable state in a directory (doc.go: Files).
type Store struct {
	dir string
	db  *pebble.DB
	log *zap.Logger

	// snapMu orders snapshot files: snapSlot is the slot of the one on
	// disk, and only a later one replaces it; snapBytes is its size, and
	// logAtSnap the log's bytes (logBytes) when it was written.
	snapMu    sync.Mutex
	snapSlot  kvs.Slot
	snapBytes int64
	logAtSnap uint64
	// logBytes counts the bytes this life has written to the log.
	logBytes atomic.Uint64

	// syncs counts and times the fsyncs of the write-ahead log that
	// pebble issued (walFS): with Start's pipelining one fsync can cover
	// several Starts, so they are taken where the fsync happens.
	syncs syncClock
	// reused counts the log files pebble recycled (walFS).
	reused atomic.Uint64
	// corrupt is the first file pebble found corrupt, for the error that
	// stops Open (pebble's default would panic the process); once Open
	// has returned, broken says so to the replica, which stops.
	corrupt atomic.Pointer[string]
	opened  atomic.Bool
	broken  chan error
}

// Open opens (creating it if need be) the store in dir, which must hold
// cluster c's state or none (claim), and returns what it holds.
func Open(dir string, c Cluster, log *zap.Logger) (*Store, *storage.State, error) {
	return OpenOn(vfs.Default, dir, c, log)
}

// OpenOn is Open on the file system fs, through which pebble reaches the
// disk (the snapshot file does not go through it): tests wrap vfs.Default
// to make a write or an fsync fail.
func OpenOn(fs vfs.FS, dir string, c Cluster, log *zap.Logger) (*Store, *storage.State, error) {
	if log == nil {
		log = zap.NewNop()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("data directory: %w", err)
	}
	s := &Store{dir: dir, log: log, broken: make(chan error, 1)}
	dbDir := filepath.Join(dir, "db")
	// A log file that pebble opens while it moves a store to
	// FormatWALSyncChunks (a new store, or one an older build wrote) has
	// no synced offsets: such a store starts its next one at once.
	desc, err := pebble.Peek(dbDir, fs)
	upgrade := err != nil || !desc.Exists || desc.FormatMajorVersion < pebble.FormatWALSyncChunks
	db, err := pebble.Open(dbDir, &pebble.Options{
		Logger:       pebbleLogger{log},
		MemTableSize: 32 << 20,
		// Log chunks that carry the offset synced so far: a chunk that
		// fails its checksum with synced chunks after it is corruption,
		// and Open fails, where the older chunks read as a torn tail and
		// everything after it was silently dropped.
		FormatMajorVersion: pebble.FormatWALSyncChunks,
		FS:                 walFS{FS: fs, clock: &s.syncs, reused: &s.reused},
		EventListener:      &pebble.EventListener{DataCorruption: s.corruption},
	})
	if err != nil {
		if pebble.IsCorruptionError(err) {
			s.corrupt.CompareAndSwap(nil, &dbDir)
			return nil, nil, s.named(err)
		}
		return nil, nil, fmt.Errorf("opening %s: %w", dbDir, err)
	}
	s.db = db
	held, err := s.holdsState()
	if err != nil {
		db.Close()
		return nil, nil, s.named(err)
	}
	taken, err := s.claim(c)
	if err == nil && taken && held {
		// Written before stores named their cluster, so before data
		// model 2 too: its entries cannot be read.
		err = errDataModel(dir, 1)
	}
	if err != nil {
		db.Close()
		return nil, nil, s.named(err)
	}
	if upgrade {
		if err := db.Flush(); err != nil {
			db.Close()
			return nil, nil, fmt.Errorf("%s: %w", dir, err)
		}
	}
	st, err := s.load()
	if err != nil {
		db.Close()
		return nil, nil, s.named(err)
	}
	s.opened.Store(true)
	return s, st, nil
}

func (s *Store) snapPath() string { return filepath.Join(s.dir, "snapshot") }

// holdsState reports whether the store holds anything besides its
// cluster's identity: a key of the database, or a snapshot file.
func (s *Store) holdsState() (bool, error) {
	if _, err := os.Stat(s.snapPath()); err == nil {
		return true, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte{prefixCluster + 1}})
	if err != nil {
		return false, err
	}
	held := it.First()
	if err := it.Close(); err != nil {
		return false, err
	}
	if held {
		return true, nil
	}
	it, err = s.db.NewIter(&pebble.IterOptions{UpperBound: []byte{prefixCluster}})
	if err != nil {
		return false, err
	}
	held = it.First()
	return held, it.Close()
}

// load reads everything back and removes log entries past a gap.
func (s *Store) load() (*storage.State, error) {
	snap, err := readSnapshotFile(s.snapPath())
	if err != nil {
		return nil, err
	}
	if snap != nil {
		s.snapSlot = snap.LastSlot
		if fi, err := os.Stat(s.snapPath()); err == nil {
			s.snapBytes = fi.Size()
		}
	}
	hard := storage.HardState{Vote: wire.NoReplica}
	v, closer, err := s.db.Get([]byte{prefixHard})
	switch {
	case err == nil:
		hard, err = decodeHard(v)
		closer.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: hard state: %w", s.dir, err)
		}
	case !errors.Is(err, pebble.ErrNotFound):
		return nil, fmt.Errorf("%s: hard state: %w", s.dir, err)
	}
	var ents []wire.Entry
	var recs []wire.Record
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte{prefixLog}, UpperBound: []byte{prefixRecord + 1}})
	if err != nil {
		return nil, err
	}
	for it.First(); it.Valid(); it.Next() {
		k := it.Key()
		switch k[0] {
		case prefixLog:
			e, err := wire.DecodeEntry(it.Value())
			if err != nil || len(k) != 9 || kvs.Slot(binary.BigEndian.Uint64(k[1:])) != e.Slot {
				it.Close()
				return nil, fmt.Errorf("%s: log entry under key %x: %v", s.dir, k, err)
			}
			ents = append(ents, e)
		case prefixRecord:
			r, err := wire.DecodeRecord(it.Value())
			if err != nil {
				it.Close()
				return nil, fmt.Errorf("%s: witness record under key %x: %w", s.dir, k, err)
			}
			recs = append(recs, r)
		}
	}
	if err := it.Close(); err != nil {
		return nil, err
	}
	st, err := storage.Assemble(hard, snap, ents, recs, s.dir)
	if err != nil {
		return nil, err
	}
	if st.Cut > 0 {
		s.log.Warn("log entries past a gap removed", zap.Int("entries", st.Cut), zap.Uint64("after_slot", uint64(st.LastSlot())))
		if err := s.db.DeleteRange(logKey(st.LastSlot()+1), logEnd, pebble.Sync); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// Write makes batches durable, in order, with one fsync for all of them
// (group commit): Start, then Wait.
func (s *Store) Write(batches []*storage.Batch) error {
	p, err := s.Start(batches)
	if err != nil {
		return err
	}
	return p.Wait()
}

// Start writes batches, in order, into the write-ahead log and the
// memtable and returns without waiting for their fsync; Pending.Wait
// returns once they are on disk, and nothing may be acknowledged before.
// The caller may Start the next batches meanwhile: pebble syncs whatever
// reached its log while an fsync ran with the next one, so a sync starts
// as soon as the previous one ends, instead of after the writer has woken
// up, drained its queue and built the next batch, and each carries more.
// Measured on the shipped workload (local disk, three replicas on one
// disk, 13 paired rounds against committing and waiting): durable
// throughput up by a median 16%, fsyncs per operation 0.151 -> 0.112
// (docs/TUNING.md, "Pipelined writes"). A durable Pending implies every
// earlier one is (one log, synced in order).
//
// A batch with a received snapshot costs more and is synced before Start
// returns: the log past its suffix is cut and synced first, then the
// snapshot file is written, so that no crash leaves the old log's tail
// after the new snapshot or the new log without its snapshot.
func (s *Store) Start(batches []*storage.Batch) (Pending, error) {
	b := s.db.NewBatch()
	// Pebble copies keys and values into the batch: one buffer each
	// serves every Set.
	var buf []byte
	var key [17]byte
	for _, bt := range batches {
		if bt.Installed {
			err := s.install(b, bt)
			b.Close()
			if err != nil {
				return Pending{}, err
			}
			b = s.db.NewBatch()
		}
		if bt.Hard != nil {
			b.Set([]byte{prefixHard}, encodeHard(*bt.Hard), nil)
		}
		for i := range bt.Entries {
			buf = wire.AppendEntry(buf[:0], &bt.Entries[i])
			b.Set(appendLogKey(key[:0], bt.Entries[i].Slot), buf, nil)
		}
		if bt.Truncated {
			b.DeleteRange(logKey(bt.LogEnd+1), logEnd, nil)
		}
		for i := range bt.Records {
			op := &bt.Records[i]
			if op.Remove {
				b.Delete(appendRecordKey(key[:0], op.Record.Cmd), nil)
				continue
			}
			buf = wire.AppendRecord(buf[:0], &op.Record)
			b.Set(appendRecordKey(key[:0], op.Record.Cmd), buf, nil)
		}
	}
	if b.Empty() {
		b.Close()
		return Pending{}, nil
	}
	s.logBytes.Add(uint64(b.Len()))
	if err := s.db.ApplyNoSyncWait(b, pebble.Sync); err != nil {
		b.Close()
		return Pending{}, fmt.Errorf("%s: writing the log: %w", s.dir, err)
	}
	return Pending{b: b, dir: s.dir}, nil
}

// Pending is what one Start wrote, until it is synced.
type Pending struct {
	b   *pebble.Batch
	dir string
}

// Wait returns once the batches of the Start are on disk; it must be
// called exactly once per Pending, in the order of the Starts.
func (p Pending) Wait() error {
	if p.b == nil {
		return nil
	}
	err := p.b.SyncWait()
	p.b.Close()
	if err != nil {
		return fmt.Errorf("%s: writing the log: %w", p.dir, err)
	}
	return nil
}

// install commits what b holds so far, cuts the log past the received
// snapshot's suffix, writes the snapshot, and drops the slots it covers.
func (s *Store) install(b *pebble.Batch, bt *storage.Batch) error {
	if bt.Truncated {
		b.DeleteRange(logKey(bt.LogEnd+1), logEnd, nil)
	}
	if !b.Empty() {
		if err := b.Commit(pebble.Sync); err != nil {
			return fmt.Errorf("%s: writing the log: %w", s.dir, err)
		}
	}
	return s.SaveSnapshot(bt.Snapshot)
}

// SaveSnapshot writes sn if it is later than the snapshot on disk, then
// drops the log entries it covers. The server calls it off the persister
// for the snapshots the replica takes itself, so that writing a large
// store never holds back the log's fsyncs.
func (s *Store) SaveSnapshot(sn *storage.Snapshot) error {
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	if sn.LastSlot <= s.snapSlot {
		return nil
	}
	size, err := writeSnapshotFile(s.snapPath(), sn)
	if err != nil {
		return err
	}
	s.snapSlot, s.snapBytes, s.logAtSnap = sn.LastSlot, size, s.logBytes.Load()
	// Without a sync: if the cut is lost, the entries are skipped at load.
	if err := s.db.DeleteRange(logKey(0), logKey(sn.LastSlot+1), pebble.NoSync); err != nil {
		return fmt.Errorf("%s: compacting the log: %w", s.dir, err)
	}
	return nil
}

// SnapshotDue reports whether a snapshot the replica took is worth
// writing: the log written since the snapshot on disk is at least as large
// as that snapshot. A snapshot file holds the whole store, so writing one
// every snapshotEvery entries costs more disk the larger the store grows
// (a store of 12 MB written four times a second per replica); by this
// rule snapshots cost at most as many bytes as the log itself, and the
// log on disk, which a restart replays, stays within one snapshot's worth
// (docs/DECISIONS.md 32).
func (s *Store) SnapshotDue() bool {
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	return s.logBytes.Load()-s.logAtSnap >= uint64(s.snapBytes)
}

// Syncs are the fsyncs the log has cost so far; safe to call from any
// goroutine, also after Close.
func (s *Store) Syncs() SyncStats { return s.syncs.stats() }

// Close closes the database; the state written stays.
func (s *Store) Close() error {
	if s.db == nil {
		return nil
	}
	err := s.db.Close()
	s.db = nil
	return err
}
