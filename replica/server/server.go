package server

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"

	"swiftpaxos/batcher"
	"swiftpaxos/config"
	"swiftpaxos/config/certs"
	"swiftpaxos/cost"
	"swiftpaxos/kvs"
	"swiftpaxos/replica"
	"swiftpaxos/replica/storage"
	"swiftpaxos/wire"
)

// Options configures a replica process.
type Options struct {
	Config *config.Config
	Alias  string
	Policy func() replica.Policy
	Log    *zap.Logger
	// Ready, when set, is called once the replica listens.
	Ready func(addr net.Addr)
	// StartAsMember makes the replica a member of a brand-new cluster at
	// once, without asking its peers (replica.Options.StartAsMember): for
	// tests that run one replica alone.
	StartAsMember bool
	// ClusterNew says this is the replica's first start in this cluster
	// (-cluster new, replica.Options.ClusterNew).
	ClusterNew bool
	// AppliedLogPath, when set, is where the replica writes the commands
	// it executes, as they execute, in the checker's JSON Lines format
	// (PROTOCOL.md 2.6, check mode; appliedlog.go). The file must not
	// exist: each process lifetime writes a log of its own.
	AppliedLogPath string
	// Counters, when set, is where the transport counts the connections it
	// refused or closed; by default the replica keeps its own. Either way
	// the counts are in the replica's last log line.
	Counters *ConnCounters
	// CostPath, when set, is where the replica writes, once it has
	// stopped, what its process spent (cost.Usage as JSON: CPU time,
	// read and write calls, messages per destination, allocations, GC
	// pauses), for the run's summary to merge with the clients'. The
	// figures are the whole process's, from its start.
	CostPath string
	// Metrics, when set, is where the replica registers its metrics
	// (replica/server/metrics.go; the caller serves the registry).
	Metrics prometheus.Registerer
	// FrontEndConns, when set, counts the connections of the process's
	// RESP front-end, for the replica's status.
	FrontEndConns func() int64
	// LocalAddr, when set, is a Unix socket address the replica also
	// listens on, beside its TCP port, and serves alike: the process's
	// RESP front-end reaches its own replica there (client.LocalLink,
	// docs/DECISIONS.md 54).
	LocalAddr string
}

// tickEvery is the period of the core's timers. It only drives failure
// detection, retries and heartbeats; no protocol step waits for it.
const tickEvery = 5 * time.Millisecond

// server wires a Core to TCP: one reader goroutine per connection hands
// decoded messages to the event loop, which alone owns the core; one
// batcher per connection writes (ARCHITECTURE.md section 4).
type server struct {
	o     Options
	cfg   *config.Config
	id    wire.ReplicaID
	log   *zap.Logger
	core  *replica.Core
	inbox chan []inbound
	// spare holds batches the loop has stepped, for readers to fill again
	// (newBatch): a steady stream of reads allocates none.
	spare   chan []inbound
	peers   []*batcher.Batcher[wire.Message]
	clients map[wire.ClientID]*batcher.Batcher[wire.Message]
	// meter counts the transport's read and write calls and what the
	// batchers sent (reported in the last log line and at CostPath).
	meter   *cost.Meter
	bopts   batcher.Options
	applied *appliedLogWriter // check mode only
	// rejectedFrom holds the addresses whose invalid messages were logged.
	rejectedFrom map[string]struct{}

	// transport: authentication and bounds (conn.go)
	tls      *certs.Material // nil: plain TCP
	counters *ConnCounters
	refusals refusalsLogged // refusals logged (conn.go)
	open     atomic.Int64   // incoming connections open, for maxConns
	// queueRoom is what is left of sessionsQueueBudget (conn_sessions.go).
	queueRoom atomic.Int64
	live      connSet // incoming connections, closed and awaited at the stop
	idle      idleConns
	// longestBatch is the longest the loop took over one drained batch of
	// inputs, snapshots included (reported at exit).
	longestBatch time.Duration
	started      time.Time       // for the status's uptime
	metrics      *replicaMetrics // nil: off
	// disk, in durable mode, writes the core's batches; held are the
	// acknowledgements waiting for them (server_persist.go).
	disk *persister
	held []heldBack
}

// encoders is the bound on the replica's writers encoding at once
// (maxDescRoutines; 0 or 1: one at a time). No more goroutines run at once
// than GOMAXPROCS, so a bound at or above it could only make an encoder
// wait behind one that was preempted mid-message: then the replica keeps
// none, and encoding takes no lock.
func encoders(maxDescRoutines int) *semaphore.Weighted {
	n := max(1, maxDescRoutines)
	if n >= runtime.GOMAXPROCS(0) {
		return nil
	}
	return semaphore.NewWeighted(int64(n))
}

// Serve runs a replica until ctx is cancelled or a fatal error occurs.
func Serve(ctx context.Context, o Options) error {
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
	cfg := o.Config.For(o.Alias)
	idx, ok := cfg.ReplicaIndex(o.Alias)
	if !ok {
		return fmt.Errorf("%q is not a replica of %s", o.Alias, "the configuration")
	}
	addr := cfg.Replica(idx).Addr()
	var material *certs.Material
	if cfg.TLSDir != "" {
		m, err := certs.Load(cfg.TLSDir, cfg.Replica(idx).Alias)
		if err != nil {
			return err
		}
		if m.Self().Role != certs.Replica {
			return fmt.Errorf("tls: the certificate of %s names %s, not a replica", cfg.Replica(idx).Alias, m.Self())
		}
		material = m
	}
	lns, err := listen(addr, o.LocalAddr)
	if err != nil {
		return err
	}
	var applied *appliedLogWriter
	if o.AppliedLogPath != "" {
		if applied, err = openAppliedLog(o.AppliedLogPath, o.Log); err != nil {
			lns.close()
			return err
		}
		applied.start()
	}
	// fail undoes the above for a start that fails after them.
	fail := func(err error) error {
		lns.close()
		if applied != nil {
			err = errors.Join(err, applied.Close())
		}
		return err
	}
	s := &server{
		o: o, cfg: cfg, id: wire.ReplicaID(idx), log: o.Log.With(zap.Int("replica", idx)),
		inbox:        make(chan []inbound, 1<<12),
		spare:        make(chan []inbound, 256),
		peers:        make([]*batcher.Batcher[wire.Message], cfg.N()),
		clients:      make(map[wire.ClientID]*batcher.Batcher[wire.Message]),
		rejectedFrom: make(map[string]struct{}),
		bopts: batcher.Options{
			BatchDelay: cfg.BatchDelay,
			Encoders:   encoders(cfg.MaxDescRoutines),
		},
		tls:      material,
		applied:  applied,
		counters: o.Counters,
		meter:    cost.NewMeter(),
		idle:     idleConns{conns: map[*clientConn]struct{}{}},
	}
	s.queueRoom.Store(sessionsQueueBudget)
	if o.Metrics != nil {
		s.metrics = newReplicaMetrics(o.Metrics, cfg.N())
	}
	if s.counters == nil {
		s.counters = &ConnCounters{}
	}
	var restore *storage.State
	if cfg.DataPath != "" {
		if s.disk, restore, err = openDurable(cfg.DataPath, cfg.Replica(idx).Alias, clusterOf(cfg), s.log); err != nil {
			return fail(err)
		}
		defer s.disk.store.Close()
		s.metrics.durable(s.disk.store)
	} else {
		s.log.Info("the replica's state is in memory only (no dataDir): a replica that restarts rejoins empty and catches up from the others, and if a majority restart, everything stored is lost (dataDir keeps it on disk)")
	}
	start := time.Now()
	s.started = start
	var readAnswered func(*kvs.Command) // nil without metrics: no call per read
	if s.metrics != nil {
		readAnswered = s.metrics.readAnswered
	}
	s.core, err = replica.New(replica.Options{
		Durable: s.disk != nil, Restore: restore,
		ID: s.id, N: cfg.N(), Policy: o.Policy(), Log: coreLog{s.log.WithOptions(zap.AddCallerSkip(1)).Sugar()},
		Now:  func() int64 { return int64(time.Since(start)) },
		Rand: rand.New(rand.NewPCG(uint64(start.UnixNano()), uint64(idx))),
		// A later start of this replica reads a later clock (a clock
		// set back is caught at the next Join: lives.go).
		Incarnation:        uint64(max(1, start.UnixNano())),
		HeartbeatInterval:  cfg.Heartbeat,
		ElectionTimeoutMin: cfg.ElectionTimeoutMin,
		ElectionTimeoutMax: cfg.ElectionTimeoutMax,
		WitnessSyncAge:     cfg.WitnessSync,
		SnapshotEvery:      cfg.SnapshotEvery,
		LogRetain:          cfg.LogRetain,
		SessionIdle:        cfg.SessionIdle,
		ReadWait:           cfg.ReadWait,
		LeaseReads:         cfg.LeaseReads,
		Executed:           s.recordExecuted,
		ReadAnswered:       readAnswered,
		Installed:          s.recordSnapshot,
		StartAsMember:      o.StartAsMember,
		ClusterNew:         o.ClusterNew,
	})
	if err != nil {
		return fail(err)
	}
	if sn := s.core.SnapshotSlot(); sn > 0 {
		s.recordSnapshot(sn) // restarted from disk: the applied log goes on after it
	}
	if o.Ready != nil {
		o.Ready(lns.tcp().Addr())
	}
	fields := []zap.Field{zap.String("addr", addr), zap.Int("n", cfg.N()), zap.Bool("tls", material != nil)}
	if o.LocalAddr != "" {
		fields = append(fields, zap.String("local", o.LocalAddr))
	}
	s.log.Info("replica listening", fields...)

	g, gctx := errgroup.WithContext(ctx)
	for _, l := range lns {
		g.Go(func() error {
			<-gctx.Done()
			return l.Close()
		})
		g.Go(func() error { return s.accept(gctx, l) })
	}
	for p := range cfg.N() {
		if p != idx {
			g.Go(func() error { return s.dial(gctx, wire.ReplicaID(p)) })
		}
	}
	g.Go(func() error { return s.loop(gctx) })
	if s.disk != nil {
		g.Go(func() error { return s.disk.run(gctx) })
		g.Go(func() error { return s.disk.writeSnapshots(gctx) })
	}
	if cfg.ClientIdleTimeout > 0 {
		g.Go(func() error { return s.sweepIdle(gctx) })
	}
	err = g.Wait()
	s.live.stop()
	s.logStats()
	var werr error
	if applied != nil {
		werr = applied.Close() // a lost applied log fails even a clean stop
	}
	if o.CostPath != "" {
		u := cost.Take(o.Alias, cost.RoleReplica, s.meter)
		if s.disk != nil {
			st := s.disk.store.Syncs()
			u.Fsyncs, u.FsyncUs = st.Count, uint64(st.Total.Microseconds())
		}
		werr = errors.Join(werr, cost.WriteFile(o.CostPath, u))
	}
	if errors.Is(err, context.Canceled) || ctx.Err() != nil {
		return werr
	}
	return errors.Join(err, werr)
}

// loop is the only goroutine that touches the core.
func (s *server) loop(ctx context.Context) error {
	t := time.NewTicker(tickEvery)
	defer t.Stop()
	defer s.closeAll()
	var synced <-chan struct{} // nil in memory mode: never ready
	if s.disk != nil {
		synced = s.disk.notify
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-synced:
			s.onSynced()
		case <-t.C:
			s.core.Tick()
			s.send(s.core.Ready())
			s.metrics.publish(s)
		case ins := <-s.inbox:
			start := time.Now()
			n := s.handleAll(ins)
			// Drain what is already queued, then take the outputs once: one
			// Accept per follower carries the entries of the whole batch.
			for n < maxDrain {
				select {
				case ins = <-s.inbox:
					n += s.handleAll(ins)
					continue
				default:
				}
				break
			}
			s.send(s.core.Ready())
			if s.metrics.moved(s.core) {
				s.metrics.publish(s)
			}
			s.longestBatch = max(s.longestBatch, time.Since(start))
		}
	}
}

// send hands what the core produced to the connections' batchers. It
// never waits: a connection whose queue is full is closed, as a dead one
// would be. A replica peer is dialled again and heartbeats and retries
// resend what was lost; a client reconnects and retries (PROTOCOL.md
// 10.10). Without a connection a message is lost, which the protocol
// tolerates.
func (s *server) send(rd replica.Ready) {
	for _, e := range rd.Messages {
		s.sendOne(e)
	}
	if s.disk != nil {
		s.persist(rd)
		return
	}
	for _, e := range rd.AfterSync {
		s.sendOne(e)
	}
}

func (s *server) sendOne(e replica.Envelope) {
	if e.ToClient {
		// Connections carry many sessions (docs/DECISIONS.md 28): a
		// message that does not name its session travels in a Routed.
		if b := s.clients[e.Client]; b != nil && b.TrySend(wire.RouteTo(e.Client, e.Msg)) != nil {
			delete(s.clients, e.Client)
		}
		return
	}
	if b := s.peers[e.To]; b != nil && b.TrySend(e.Msg) != nil {
		s.peers[e.To] = nil
	}
}

// closeAll closes the connections the loop knows; each batcher adds its
// counters to the meter as it stops.
func (s *server) closeAll() {
	for _, b := range s.peers {
		if b != nil {
			b.Close()
		}
	}
	for _, b := range s.clients {
		b.Close()
	}
}

func (s *server) logStats() {
	size := s.core.Size()
	sent, calls := cost.Total(s.meter.Links()), s.meter.IO()
	s.log.Info("replica stopped", append([]zap.Field{
		zap.Int("keys", size.Keys), zap.Int("sessions", size.LiveSessions), zap.Int("ended_sessions", size.EndedSessions),
		zap.Int("log_entries", size.LogEntries), zap.Int("witness_records", size.WitnessRecords),
		zap.Int("snapshots", size.Snapshots), zap.Float64("snapshot_longest_ms", float64(size.LongestSnapshot.Microseconds())/1000),
		zap.Float64("batch_longest_ms", float64(s.longestBatch.Microseconds())/1000),
		zap.Uint64("batches", sent.Batches), zap.Uint64("messages", sent.Messages),
		zap.Uint64("bytes", sent.Bytes), zap.Float64("avg_batch", sent.AvgBatch),
		zap.Uint64("reads", calls.Reads), zap.Uint64("writes", calls.Writes),
		zap.Uint64("last_slot", uint64(s.core.LastSlot())), zap.Uint64("applied", uint64(s.core.AppliedIndex()))},
		append(s.counters.fields(), s.disk.fields()...)...)...)
}
