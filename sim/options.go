package sim

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"swiftpaxos/client"
	"swiftpaxos/config/quorum"
	"swiftpaxos/replica"
	"swiftpaxos/wire"
)

// Protocol builds the policies of one protocol.
type Protocol struct {
	Name    string
	Replica func() replica.Policy
	Client  func() client.Policy
}

// Faults is the fault mix of a run. All draws come from the run's seed.
type Faults struct {
	// MinDelay and MaxDelay bound the one-way delay of a message; the
	// delay is drawn per message, so connections reorder among themselves.
	MinDelay, MaxDelay time.Duration
	// LongDelayProb is the chance that a message is delayed by up to
	// LongDelay instead (FIFO on its connection still holds).
	LongDelayProb float64
	LongDelay     time.Duration
	// DropProb is the chance that a send breaks its connection: the
	// message and everything in flight on that connection are lost, and
	// the next send reconnects.
	DropProb float64
	// DropWeakProb is the chance that a CURP-HO weak write (CausalPropose)
	// from a client to a replica other than its bound one breaks the
	// connection: it leaves weak writes kept by few witnesses, the case
	// the causal-deps and ReadDep checks of PROTOCOL.md 5.8 exist for.
	DropWeakProb float64
	// PartitionEvery is the mean time between partitions that isolate one
	// replica from everybody; each lasts up to PartitionFor. 0: none.
	PartitionEvery time.Duration
	PartitionFor   time.Duration
	// PartitionLeader makes every partition isolate the replica that
	// currently believes it leads, instead of a random one.
	PartitionLeader bool
	// PartitionSplitsSessions makes a partition split the sessions too:
	// the even-numbered ones reach the isolated replica alone, the others
	// every replica but it. A deposed leader then keeps clients that
	// never hear of its successor, while the others write through the
	// new one.
	PartitionSplitsSessions bool
	// PartitionOneWay makes a partition cut one way only: what the other
	// replicas send the isolated one is lost, while what it sends them,
	// and its sessions' traffic both ways, flows (a firewall rule, a
	// receive path that stopped; docs/DECISIONS.md 56). No connection
	// breaks, so no cut is reported.
	PartitionOneWay bool
	// ReportCuts tells each replica that its connection to another broke,
	// as a server does (replica.Core.PeerDown), a network delay after a
	// partition cut it (both ends) or the other replica crashed.
	ReportCuts bool
	// Crashes is how many replicas crash (crash-stop, any of them, the
	// leader included), at random instants within CrashWithin of the
	// start. At most f: a run with more is rejected.
	Crashes     int
	CrashWithin time.Duration
	// CrashLeader makes every crash hit the replica that currently
	// believes it leads (the hardest case for recovery).
	CrashLeader bool
	// CrashClientToo makes every replica crash also crash a random client
	// session: the case where an acknowledged CURP-HO weak write may be
	// lost (PROTOCOL.md 6.8), so that nobody else may have observed it.
	CrashClientToo bool
	// RestartAfter, when positive, brings every crashed replica back,
	// empty, within that long of its crash (PROTOCOL.md 6.10): it must
	// rejoin before it votes or witnesses again.
	RestartAfter time.Duration
	// HostCrashes makes every crash a host's, which no session hears of
	// while the replica is down: each hears that its connection broke a
	// network delay plus up to RestartAfter after the replica is back (as
	// when its next send reaches the rebooted host), and until then holds
	// the earlier life's acknowledgements, and nothing passes between it
	// and the new life (docs/DECISIONS.md 58).
	HostCrashes bool
	// ClockBack makes every restart read a clock set back: the replica's
	// new life draws an incarnation below its earlier life's (at random
	// below the number a later life takes otherwise), and must take a
	// higher one from its peers' answers before it counts as a new life
	// (replica/lives.go, docs/DECISIONS.md 51).
	ClockBack bool
	// WipeProb is the chance that a durable replica's crash loses its
	// disk (an emptied data directory): it comes back empty, and must
	// rejoin as a replica restarted in memory does. It needs durable
	// replicas and RestartAfter; whole-cluster crashes never wipe.
	WipeProb float64
	// CrashAlls is how many times every replica crashes at once, at random
	// instants within CrashWithin of the start; they all come back within
	// RestartAfter. It needs durable replicas (Options.Durable).
	CrashAlls int
	// SyncDelay is the longest a durable replica's sync takes (0: 2 ms);
	// a sync takes between a tenth of it and all of it.
	SyncDelay time.Duration
	// ClientCrashes is how many client sessions crash on their own, at
	// random instants within CrashWithin (or the first second).
	ClientCrashes int
	// LateStarts replicas (at most f, drawn from the seed) start only
	// within LateWithin of the others, which found the cluster without
	// them (as replicas started -cluster new do); the late ones join it as
	// learners.
	LateStarts int
	LateWithin time.Duration
	// ApplyLag, when positive, makes about half of the replicas execute
	// on their own schedule: a few committed entries at a time, at random
	// instants up to ApplyLag apart.
	ApplyLag time.Duration
}

// Workload is what every session runs: a closed loop keeping up to
// Pendings operations in flight until Ops operations completed.
type Workload struct {
	Ops      int
	Pendings int
	// Keys is the number of (hot) keys, drawn uniformly.
	Keys int
	// Percentages, as in the benchmark (PROTOCOL.md 8.2).
	WeakRatio, WeakWrites, Writes int
	// Think, when positive, is the most a session waits (uniformly drawn)
	// after a completion before it invokes its next operation: a run then
	// lasts long enough in virtual time for long faults to matter.
	Think time.Duration
	// ScanRatio is the share (%) of reads, weak and strong, issued as a
	// SCAN of 1..ScanCount+1 keys (0: none).
	ScanRatio, ScanCount int
	// Deletes is the share (%) of writes, weak and strong, issued as a
	// DELETE; RMW the share of strong operations issued as a CAS or an
	// INCR, half each (0: none). INCRs go to counter keys of their own,
	// as the benchmark's do.
	Deletes, RMW int
	// WeakRMW is the share (%) of weak operations issued as a CAS or an
	// INCR, half each: what the client library refuses (client.Op
	// Validate) and only a hostile client sends, since a weak write is
	// answered before it executes. The sessions issue them through
	// client.Core, which does not validate, so that a test can play that
	// client against replicas that must refuse it (replica.Mutation
	// AcceptWeakRMW). A replica that refuses one leaves the operation
	// pending for good: a run with WeakRMW and correct replicas never
	// finishes. Tests only; 0: none.
	WeakRMW int
	// Ordered is the share (%) of operations sent ordered
	// (client.Op.Ordered): after every earlier conflicting operation of
	// the session, even one in flight (docs/DECISIONS.md 45). 0: none.
	Ordered int
}

// Options describes a run.
type Options struct {
	Seed     uint64
	N        int
	Sessions int
	Protocol Protocol
	Faults   Faults
	Workload Workload
	// Tick is the timer period of replicas and sessions.
	Tick time.Duration
	// RetryAfter is the sessions' retry timeout.
	RetryAfter time.Duration
	// SnapshotEvery and LogRetain are the replicas' snapshot period and
	// retained log tail (0: small values, 50 and 20, so that compaction,
	// and state transfer to lagging replicas, happen in most runs).
	SnapshotEvery, LogRetain int
	// SessionIdle is the replicas' session idle time (0: their default);
	// a configuration sets it below the sessions' think time to expire
	// sessions in the middle of a run.
	SessionIdle time.Duration
	// ReadWait bounds how long a replica parks a weak read (0: the
	// replica's default); scripted scenarios raise it to keep a read
	// parked across a view change.
	ReadWait time.Duration
	// Deadline bounds the virtual duration of the run; a run that has not
	// finished and settled by then failed to make progress.
	Deadline time.Duration
	// Trace, when set, sees every message delivered (for debugging a
	// failing seed): the instant, the endpoints (replicas 0..N-1, then
	// sessions) and the message.
	Trace func(now time.Duration, from, to int, m wire.Message)
	// Durable runs the replicas in durable mode, each with a simulated disk
	// (durable.go): a crashed replica restarts from it.
	Durable bool
	// StartExisting starts every replica's first lifetime without
	// -cluster new (replica.Options.ClusterNew), as a cluster started by
	// hand with the defaults; by default a first start says new, as the
	// launcher's does. A replica restarted after a crash is started
	// without it either way, as the launcher does.
	StartExisting bool
	// LeaderReads is the share (%) of sessions that send strong reads to
	// the leader alone (client.Options.LeaderReads): the first ones.
	LeaderReads int
	// LeaderWrites makes the odd-numbered sessions send strong writes to
	// the leader alone (client.Options.LeaderWrites): with LeaderReads
	// some sessions then do both, some one and some neither.
	LeaderWrites bool
	// LeaseReads makes every replica hold and honour leases for the
	// leader reads (replica.Options.LeaseReads).
	LeaseReads bool
	// ClockSkew runs each replica's clock at its own rate, drawn per seed
	// within ClockSkew per mille of the simulation's (0: all at its rate):
	// leases must hold while clocks drift apart.
	ClockSkew int
	// ClockRates, when set, is each replica's clock rate in per mille of
	// the simulation's, instead of ClockSkew's draws. It is taken as
	// given, beyond the lease's margin too, so that a scenario can put
	// clocks on either side of it.
	ClockRates []int64
	// Mutation is passed to every replica, ClientMutation to every
	// session (tests of the checker only).
	Mutation       replica.Mutation
	ClientMutation client.Mutation
}

func (o Options) withDefaults() Options {
	if o.Tick == 0 {
		o.Tick = 5 * time.Millisecond
	}
	if o.RetryAfter == 0 {
		o.RetryAfter = 300 * time.Millisecond
	}
	if o.Deadline == 0 {
		o.Deadline = 10 * time.Minute
	}
	if o.SnapshotEvery == 0 {
		o.SnapshotEvery = 50
	}
	if o.LogRetain == 0 {
		o.LogRetain = 20
	}
	if o.Faults.SyncDelay == 0 {
		o.Faults.SyncDelay = 2 * time.Millisecond
	}
	if o.Workload.Pendings == 0 {
		o.Workload.Pendings = 1
	}
	if o.Workload.Keys == 0 {
		o.Workload.Keys = 3
	}
	return o
}

func (o Options) validate() error {
	var errs []error
	if o.N < 3 || o.N%2 == 0 {
		errs = append(errs, fmt.Errorf("n=%d: must be odd and at least 3", o.N))
	}
	if o.Sessions < 1 {
		errs = append(errs, fmt.Errorf("sessions=%d: need at least one", o.Sessions))
	}
	if o.Protocol.Replica == nil || o.Protocol.Client == nil {
		errs = append(errs, errors.New("protocol policies missing"))
	}
	if o.Faults.Crashes > quorum.F(o.N) {
		errs = append(errs, fmt.Errorf("%d crashes: at most f=%d", o.Faults.Crashes, quorum.F(o.N)))
	}
	if o.Faults.ClientCrashes >= o.Sessions {
		errs = append(errs, fmt.Errorf("%d client crashes: at least one of the %d sessions must survive", o.Faults.ClientCrashes, o.Sessions))
	}
	if o.Faults.Crashes > 0 && o.Faults.CrashWithin <= 0 {
		errs = append(errs, errors.New("crashes need a positive CrashWithin"))
	}
	if o.Faults.CrashAlls > 0 && (!o.Durable || o.Faults.RestartAfter <= 0 || o.Faults.CrashWithin <= 0) {
		errs = append(errs, errors.New("whole-cluster crashes need durable replicas, a positive RestartAfter and a positive CrashWithin"))
	}
	if f := o.Faults; f.LateStarts > 0 && (f.LateStarts+f.Crashes > quorum.F(o.N) || f.LateWithin <= 0 || o.StartExisting) {
		errs = append(errs, fmt.Errorf("%d late starts: they need first starts that say new, a positive LateWithin, and at most f=%d with the crashes", f.LateStarts, quorum.F(o.N)))
	}
	if o.Faults.HostCrashes && o.Faults.RestartAfter <= 0 {
		errs = append(errs, errors.New("HostCrashes: needs a positive RestartAfter, or sessions would never hear of the crashes"))
	}
	if w := o.Faults.WipeProb; w != 0 && (!(w >= 0 && w <= 1) || !o.Durable || o.Faults.RestartAfter <= 0) {
		errs = append(errs, fmt.Errorf("WipeProb %v: must be 0 to 1, with durable replicas and a positive RestartAfter", w))
	}
	if o.Faults.MaxDelay < o.Faults.MinDelay {
		errs = append(errs, errors.New("MaxDelay below MinDelay"))
	}
	if o.ClockSkew < 0 || o.ClockSkew > 500 {
		errs = append(errs, fmt.Errorf("clock skew %d per mille: must be 0 to 500", o.ClockSkew))
	}
	if o.ClockRates != nil && (len(o.ClockRates) != o.N || slices.ContainsFunc(o.ClockRates, func(r int64) bool { return r < 1 || r > 2000 })) {
		errs = append(errs, fmt.Errorf("clock rates %v: one per replica, each 1 to 2000 per mille", o.ClockRates))
	}
	if o.ClockRates != nil && o.ClockSkew != 0 {
		errs = append(errs, errors.New("clock rates and clock skew: one or the other"))
	}
	if o.LeaseReads && o.ClockSkew > 142 {
		// (1000+s)/(1000-s) must stay under 4/3 (lease.go's margin).
		errs = append(errs, fmt.Errorf("clock skew %d per mille: leases hold up to 142", o.ClockSkew))
	}
	return errors.Join(errs...)
}
