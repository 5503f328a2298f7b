package server

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"go.uber.org/zap"

	"swiftpaxos/config"
	"swiftpaxos/replica"
	"swiftpaxos/replica/storage"
	"swiftpaxos/replica/storage/disk"
)

// Durable mode in the server (dataDir): the event loop never waits for an
// fsync. The loop writes each Ready's batch into pebble's write-ahead log
// and memtable itself, without waiting for its fsync (Store.Start, a few
// microseconds: handing it to another goroutine cost more, in wake-ups,
// than the write itself; docs/DECISIONS.md 31). A batch that must wait
// for the disk to be written (one with a received snapshot, which is
// synced before its log goes on), and every batch after it until the
// persister goroutine has caught up, go to the persister's queue instead,
// which writes every batch queued as one pebble batch; so the log gets
// the batches in order. A waiter goroutine waits for each write's fsync in
// order and posts the last sequence number synced. Pebble syncs everything
// written while an fsync ran with the next fsync (group commit), so the
// disk is never idle while batches wait, and a batch written during a sync
// waits for at most that sync and its own. The loop then sends the
// acknowledgements those batches held back, in order, and tells the core
// (Core.Synced): nothing is acknowledged before its fsync. Snapshots the
// replica takes itself are written by a fourth goroutine, the latest
// first, so that writing a large store never delays an fsync.

// persister writes a durable replica's batches.
type persister struct {
	store *disk.Store
	log   *zap.Logger

	// mu orders the writes: the loop writes a batch itself only while
	// the persister has nothing queued or in hand (busy), and hands the
	// write to the waiter (q) before it lets go of mu. closed says q is
	// closed; err is the first write that failed.
	mu     sync.Mutex
	queue  []*storage.Batch
	busy   bool
	closed bool
	err    error
	wake   chan struct{} // one pending wake-up at most
	q      chan inflight
	failed chan error

	synced   atomic.Uint64 // the last batch on disk
	notify   chan struct{} // tells the loop that synced moved
	snaps    chan *storage.Snapshot
	batches  atomic.Uint64
	maxGroup atomic.Uint64 // most batches one write carried
}

// inflight is one write whose fsync the waiter waits for.
type inflight struct {
	pending disk.Pending
	bs      []*storage.Batch
}

// inflightMax bounds the writes not yet synced (the persister then waits
// for the waiter): far more than one fsync's worth.
const inflightMax = 256

// fields are the persister's counters for the replica's last log line.
func (p *persister) fields() []zap.Field {
	if p == nil {
		return nil
	}
	st := p.store.Syncs()
	return []zap.Field{zap.Uint64("fsyncs", st.Count), zap.Float64("fsync_mean_ms", st.Mean().Seconds()*1e3),
		zap.Uint64("batches_synced", p.batches.Load()), zap.Uint64("most_batches_per_write", p.maxGroup.Load())}
}

// heldBack is one Ready's AfterSync, waiting for batch seq.
type heldBack struct {
	seq  uint64
	msgs []replica.Envelope
}

// openDurable opens the replica's store (dataDir/ALIAS), which must hold
// cluster c's state or none, and returns what it holds.
func openDurable(dir, alias string, c disk.Cluster, log *zap.Logger) (*persister, *storage.State, error) {
	st, state, err := disk.Open(filepath.Join(dir, alias), c, log)
	if err != nil {
		return nil, nil, err
	}
	return newPersister(st, log), state, nil
}

// clusterOf is the cluster a replica of cfg belongs to (disk.Cluster):
// its protocol and its replicas' aliases, in order.
func clusterOf(cfg *config.Config) disk.Cluster {
	c := disk.Cluster{Protocol: string(cfg.Protocol)}
	for _, h := range cfg.Replicas {
		c.Replicas = append(c.Replicas, h.Alias)
	}
	return c
}

func newPersister(st *disk.Store, log *zap.Logger) *persister {
	return &persister{
		store: st, log: log,
		q:      make(chan inflight, inflightMax),
		failed: make(chan error, 1),
		wake:   make(chan struct{}, 1),
		notify: make(chan struct{}, 1),
		snaps:  make(chan *storage.Snapshot, 1),
	}
}

// submit writes a batch into the log without waiting for its fsync, or
// queues it for the persister when the write would wait for the disk (a
// received snapshot), when the persister has batches in hand that must
// go first, or when the waiter has inflightMax writes to wait for.
func (p *persister) submit(b *storage.Batch) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.err != nil {
		return // the replica is stopping: nothing more is acknowledged
	}
	if b.Installed || p.busy || len(p.queue) > 0 || len(p.q) == cap(p.q) {
		p.queue = append(p.queue, b)
		select {
		case p.wake <- struct{}{}:
		default:
		}
		return
	}
	bs := []*storage.Batch{b}
	pending, err := p.store.Start(bs)
	if err != nil {
		p.fail(err)
		return
	}
	p.q <- inflight{pending: pending, bs: bs}
}

// fail records the first failed write and tells run; p.mu is held.
func (p *persister) fail(err error) {
	if p.err == nil {
		p.err = err
		p.failed <- err
	}
}

// run writes what is queued, each drained queue as one write, until ctx
// ends or a write or its fsync fails (the replica then stops: it cannot
// acknowledge anything any more); the waiter (wait) reports the fsyncs.
// It returns once every write started has been waited for, so the store
// can be closed.
func (p *persister) run(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		p.wait(p.q)
		close(done)
	}()
	err := p.write(ctx)
	p.mu.Lock()
	p.closed = true
	close(p.q)
	if err == nil {
		err = p.err
	}
	p.mu.Unlock()
	<-done
	return err
}

// write is run's loop: it writes what the loop queued, each drained queue
// as one write handed to the waiter, until the queue is empty (and the
// loop may write again), ctx ends, or a write or an fsync failed.
func (p *persister) write(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-p.failed:
			return err
		case err := <-p.store.Broken():
			p.mu.Lock() // the loop writes nothing more (submit)
			if p.err == nil {
				p.err = err
			}
			p.mu.Unlock()
			return err
		case <-p.wake:
		}
		for {
			p.mu.Lock()
			bs := p.queue
			p.queue = nil
			p.busy = len(bs) > 0
			p.mu.Unlock()
			if len(bs) == 0 {
				break
			}
			pending, err := p.store.Start(bs)
			if err == nil {
				// Not under mu: the loop may wait for it meanwhile, but
				// only here, where the disk is slow anyway.
				select {
				case p.q <- inflight{pending: pending, bs: bs}:
				case err = <-p.failed:
					pending.Wait() // before the store closes
				}
			}
			if err != nil {
				// Before busy goes: the loop must not write a batch past
				// the failed one, whose fsync would release what that
				// one held back.
				p.mu.Lock()
				p.busy = false
				if p.err == nil {
					p.err = err
				}
				p.mu.Unlock()
				return err
			}
		}
	}
}

// wait waits for each write's fsync, in order, and posts the last batch
// synced, until q is closed. After a failed fsync it posts nothing more
// (so nothing more is acknowledged), reports the error (fail) and keeps
// waiting for the writes in flight.
func (p *persister) wait(q <-chan inflight) {
	ok := true
	for f := range q {
		err := f.pending.Wait()
		if !ok {
			continue
		}
		if err != nil {
			ok = false
			p.mu.Lock()
			p.fail(err)
			p.mu.Unlock()
			continue
		}
		p.batches.Add(uint64(len(f.bs)))
		if g := uint64(len(f.bs)); g > p.maxGroup.Load() {
			p.maxGroup.Store(g)
		}
		for _, b := range f.bs {
			if b.Snapshot != nil && !b.Installed {
				p.offerSnapshot(b.Snapshot)
			}
		}
		p.synced.Store(f.bs[len(f.bs)-1].Seq)
		select {
		case p.notify <- struct{}{}:
		default:
		}
	}
}

// offerSnapshot hands a snapshot to the writer, replacing one it has not
// started on: only the latest matters.
func (p *persister) offerSnapshot(sn *storage.Snapshot) {
	for {
		select {
		case p.snaps <- sn:
			return
		default:
		}
		select {
		case <-p.snaps:
		default:
		}
	}
}

// writeSnapshots writes the snapshots the replica takes, until ctx ends.
// A failure is logged: the log keeps every slot the snapshot would have
// covered, so nothing is lost but disk space.
func (p *persister) writeSnapshots(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case sn := <-p.snaps:
			if !p.store.SnapshotDue() {
				continue // the log on disk still holds its slots
			}
			if err := p.store.SaveSnapshot(sn); err != nil {
				p.log.Error("writing a snapshot", zap.Error(err))
			}
		}
	}
}

// persist is send's durable half: the batch to the persister, the held
// messages queued behind the batches they wait for.
func (s *server) persist(rd replica.Ready) {
	if rd.Persist != nil {
		s.disk.submit(rd.Persist)
	}
	if len(rd.AfterSync) == 0 {
		return
	}
	if len(s.held) == 0 && rd.SyncSeq <= s.disk.synced.Load() {
		for _, e := range rd.AfterSync {
			s.sendOne(e)
		}
		return
	}
	s.held = append(s.held, heldBack{seq: rd.SyncSeq, msgs: slices.Clone(rd.AfterSync)})
}

// onSynced sends what the synced batches held back and tells the core.
func (s *server) onSynced() {
	seq := s.disk.synced.Load()
	n := 0
	for n < len(s.held) && s.held[n].seq <= seq {
		for _, e := range s.held[n].msgs {
			s.sendOne(e)
		}
		n++
	}
	clear(s.held[:n])
	s.held = append(s.held[:0], s.held[n:]...)
	s.core.Synced(seq)
	s.send(s.core.Ready())
}
