package server

import (
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"swiftpaxos/batcher"
	"swiftpaxos/kvs"
	"swiftpaxos/metrics"
	"swiftpaxos/replica"
	"swiftpaxos/replica/storage/disk"
	"swiftpaxos/wire"
)

// replicaMetrics is the replica's side of the metrics endpoint. A nil
// *replicaMetrics is off: the loop publishes nothing and counts nothing.
type replicaMetrics struct {
	state stateCell
	// peers is the loop's batchers by replica id (nil: no connection),
	// republished only when one changes.
	peers atomic.Pointer[[]*batcher.Batcher[wire.Message]]
	// executed counts the commands the replica executed, by level
	// (strong, weak) and kind (metrics.KindOf: get, put for every write,
	// scan), on the loop.
	executed [2][3]atomic.Uint64
	// ballots counts the ballot changes the loop saw, leaderships the
	// times this replica became leader: together, the elections.
	ballots, leaderships atomic.Uint64
	// The role, ballot and membership last published, loop-owned: the
	// loop checks them after every batch, and its own copies are cheaper
	// to reach than the published state.
	pubRole   replica.Role
	pubBallot wire.Ballot
	pubMember bool
	peerNames []string
	// conns is publish's scratch set of client connections (loop-owned).
	conns map[*batcher.Batcher[wire.Message]]struct{}
	// disk is a durable replica's store, whose fsyncs a scrape reads.
	disk atomic.Pointer[disk.Store]
}

func newReplicaMetrics(reg prometheus.Registerer, n int) *replicaMetrics {
	m := &replicaMetrics{peerNames: make([]string, n), conns: make(map[*batcher.Batcher[wire.Message]]struct{})}
	for i := range n {
		m.peerNames[i] = "replica" + strconv.Itoa(i)
	}
	m.peers.Store(new([]*batcher.Batcher[wire.Message]))
	reg.MustRegister(m)
	return m
}

// publish copies what a scrape shows; the loop calls it on each tick.
func (m *replicaMetrics) publish(s *server) {
	if m == nil {
		return
	}
	c := s.core
	size := c.Size()
	st := loopState{
		role: c.Role(), member: c.Member(), ballot: c.Ballot(),
		commit: c.CommitIndex(), applied: c.AppliedIndex(), last: c.LastSlot(), snapshot: c.SnapshotSlot(),
		logEntries: size.LogEntries, sessions: size.LiveSessions, records: size.WitnessRecords,
		leaseLeft: c.LeaseLeft(), quiet: c.Quiet(),
	}
	reads := c.LeaderReads()
	st.readsLease, st.readsRound, st.readsProposed = reads.Lease, reads.Round, reads.Proposed
	// The sessions of a client process share its connection: count each
	// connection, and its queue, once.
	clear(m.conns)
	for _, b := range s.clients {
		if _, seen := m.conns[b]; !seen {
			m.conns[b] = struct{}{}
			st.clientQueued += b.Queued()
		}
	}
	st.clients = len(m.conns)
	if st.ballot != m.pubBallot {
		m.ballots.Add(1)
	}
	if st.role == replica.Leader && m.pubRole != replica.Leader {
		m.leaderships.Add(1)
	}
	m.pubRole, m.pubBallot, m.pubMember = st.role, st.ballot, st.member
	m.state.store(&st)
	if !slices.Equal(*m.peers.Load(), s.peers) {
		m.peers.Store(new(slices.Clone(s.peers)))
	}
}

// durable shows the fsyncs of st's log from now on.
func (m *replicaMetrics) durable(st *disk.Store) {
	if m != nil {
		m.disk.Store(st)
	}
}

// moved reports whether the role, membership or ballot changed since
// the last publish. The loop checks it after every batch and publishes
// at once when it did, so that a scrape never shows a leadership older
// than what the replica has since told its peers; the rest waits for
// the tick. Small enough to inline: three comparisons per batch when
// on, one when off.
func (m *replicaMetrics) moved(c *replica.Core) bool {
	return m != nil && (m.pubRole != c.Role() || m.pubBallot != c.Ballot() || m.pubMember != c.Member())
}

// executedOne counts an executed entry (the core's Executed callback).
func (m *replicaMetrics) executedOne(e *wire.Entry) {
	cmd := &e.Command
	if m == nil || !cmd.IsRead() && !cmd.IsWrite() { // a no-op
		return
	}
	k := metrics.KindOf(cmd.IsWrite(), cmd.Op == kvs.OpScan)
	l := metrics.LevelStrong
	if e.Level == wire.Weak {
		l = metrics.LevelWeak
	}
	m.executed[l][k].Add(1)
}

// readAnswered counts a weak read the replica answered (the core's
// ReadAnswered callback).
func (m *replicaMetrics) readAnswered(cmd *kvs.Command) {
	if m == nil || !cmd.IsRead() {
		return
	}
	m.executed[metrics.LevelWeak][metrics.KindOf(false, cmd.Op == kvs.OpScan)].Add(1)
}

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(metrics.Namespace+"_replica_"+name, help, labels, nil)
}

var (
	descRole       = desc("role", "1 for the replica's current role (follower, candidate, leader, learner).", "role")
	descBallot     = desc("ballot", "The replica's current ballot.")
	descBallots    = desc("ballot_changes_total", "Ballot changes this replica saw (each election that got this far).")
	descLeaderOf   = desc("became_leader_total", "Times this replica became leader.")
	descCommit     = desc("commit_index", "The highest committed slot.")
	descApplied    = desc("applied_index", "The highest applied slot.")
	descLastSlot   = desc("last_slot", "The last slot of the log.")
	descSnapshot   = desc("snapshot_slot", "The last slot compacted behind a snapshot.")
	descLogEntries = desc("log_entries", "Entries held in the log (above the snapshot).")
	descSessions   = desc("sessions", "Live client sessions.")
	descRecords    = desc("witness_records", "Witness records held.")
	descClients    = desc("client_connections", "Client connections open.")
	descExecuted   = desc("executed_total", "Commands executed, by level and kind: entries of the log, and the weak reads this replica answered.", "level", "kind")
	descQueue      = desc("send_queue", "Messages waiting in the send queue, per peer (clients: all client connections together).", "peer")
	descBatches    = desc("sent_batches_total", "Batches written to a peer's current connection (one write each).", "peer")
	descMessages   = desc("sent_messages_total", "Messages written to a peer's current connection; divided by batches, the mean batch size.", "peer")
	descFsync      = desc("log_fsync_seconds", "The fsyncs of a durable replica's log (dataDir), each covering every batch written since the previous one.")
	descLease      = desc("lease_seconds", "How long this leader's lease (leaseReads) still holds; 0 without one.")
	descQuiet      = desc("quiet", "1 while this leader heard from no majority of members for longer than the top of electionTimeoutMs and sends them nothing (check-quorum, docs/DECISIONS.md 56).")
	descReads      = desc("leader_reads_total", "Leader reads (strongReads: leader) served while leading, by how: at once under the lease, after a round of the followers, or given a slot (a write to their keys was not yet committed, or their dependency).", "answered")
)

// Describe implements prometheus.Collector.
func (m *replicaMetrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descRole, descBallot, descBallots, descLeaderOf, descCommit, descApplied,
		descLastSlot, descSnapshot, descLogEntries, descSessions, descRecords, descClients, descExecuted, descQueue,
		descBatches, descMessages, descFsync, descLease, descReads, descQuiet} {
		ch <- d
	}
}

// Collect implements prometheus.Collector from the published state.
func (m *replicaMetrics) Collect(ch chan<- prometheus.Metric) {
	st := m.state.load()
	g := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	c := func(d *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	role := st.role.String()
	if !st.member {
		role = "learner"
	}
	for _, r := range []string{"follower", "candidate", "leader", "learner"} {
		v := 0.0
		if r == role {
			v = 1
		}
		g(descRole, v, r)
	}
	g(descBallot, float64(st.ballot))
	c(descBallots, m.ballots.Load())
	c(descLeaderOf, m.leaderships.Load())
	g(descCommit, float64(st.commit))
	g(descApplied, float64(st.applied))
	g(descLastSlot, float64(st.last))
	g(descSnapshot, float64(st.snapshot))
	g(descLogEntries, float64(st.logEntries))
	g(descSessions, float64(st.sessions))
	g(descRecords, float64(st.records))
	g(descClients, float64(st.clients))
	g(descLease, st.leaseLeft.Seconds())
	g(descQuiet, float64(b2u(st.quiet)))
	c(descReads, st.readsLease, "lease")
	c(descReads, st.readsRound, "round")
	c(descReads, st.readsProposed, "slot")
	for l, level := range metrics.Levels {
		for k, kind := range metrics.Kinds {
			c(descExecuted, m.executed[l][k].Load(), level, kind)
		}
	}
	g(descQueue, float64(st.clientQueued), "clients")
	for i, b := range *m.peers.Load() {
		if b == nil {
			continue
		}
		bs := b.Stats()
		g(descQueue, float64(b.Queued()), m.peerNames[i])
		c(descBatches, bs.Batches, m.peerNames[i])
		c(descMessages, bs.Messages, m.peerNames[i])
	}
	if st := m.disk.Load(); st != nil {
		ss := st.Syncs()
		buckets := make(map[float64]uint64, disk.SyncBuckets)
		for i, n := range ss.Buckets {
			buckets[disk.SyncBound(i).Seconds()] = n
		}
		ch <- prometheus.MustNewConstHistogram(descFsync, ss.Count, ss.Total.Seconds(), buckets)
	}
}
