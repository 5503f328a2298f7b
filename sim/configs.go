package sim

import (
	"time"

	"swiftpaxos/config/quorum"
)

// Config is one named simulation configuration of the suite. CI runs
// CISeeds seeds of it per cluster size (TestSuite in each protocol's
// package); the soak (scripts/soak.sh) runs it from a random seed base for
// as long as it is given. Make builds the options of one run.
type Config struct {
	Name    string
	Sizes   []int
	CISeeds int
	Make    func(seed uint64, n int, p Protocol) Options
}

// Configs is the simulation suite of a protocol: the same configurations
// for both, with the workload mix tuned to what each protocol's weak
// operations exercise.
func Configs(protocol string) []Config {
	ho := protocol == "curpho"
	mix := func(o *Options) {
		if ho {
			o.Workload.WeakWrites, o.Workload.Writes = 60, 30
		}
	}
	// leaderReadsConfig is the leader-reads configuration: strong reads at
	// the leader alone (docs/DECISIONS.md 46) from half the sessions, ordered
	// ones among them, across crashes and partitions that cut the leader off
	// with some of the sessions.
	leaderReadsConfig := func(seed uint64, n int, p Protocol) Options {
		o := base(seed, n, p)
		mix(&o)
		wide(&o, 6, 120, 3, 6)
		o.Workload.Ordered = 30
		o.LeaderReads, o.LeaderWrites = 50, true
		// A replica that crashed for good would leave no majority
		// beside a partitioned leader: it comes back.
		o.Faults = FailoverMix(n)
		o.Faults.CrashWithin, o.Faults.RestartAfter = time.Second, 300*time.Millisecond
		// Often and long: a deposed leader's clients read stale state
		// only once its successor was elected and wrote, which short
		// or rare partitions seldom allow.
		o.Faults.PartitionEvery, o.Faults.PartitionFor = 300*time.Millisecond, 3*time.Second
		o.Faults.PartitionLeader, o.Faults.PartitionSplitsSessions = true, true
		return o
	}
	// leaseReadsConfig is the leader-reads configuration under leases
	// (docs/DECISIONS.md 55), every replica's clock at its own rate within
	// 10 % of the simulation's.
	leaseReadsConfig := func(seed uint64, n int, p Protocol) Options {
		o := leaderReadsConfig(seed, n, p)
		o.LeaseReads, o.ClockSkew = true, 100
		return o
	}
	// Replicas crash and come back empty (PROTOCOL.md 6.10), with
	// frequent snapshots and a short log tail, so that restarted and
	// lagging replicas catch up by state transfer in most runs.
	restarts := func(seed uint64, n int, p Protocol) Options {
		o := base(seed, n, p)
		mix(&o)
		wide(&o, 6, 120, 3, 10)
		o.Faults = FailoverMix(n)
		o.Faults.CrashWithin = 600 * time.Millisecond
		o.Faults.RestartAfter = 300 * time.Millisecond
		o.SnapshotEvery, o.LogRetain = 40, 10
		return o
	}
	return []Config{
		{Name: "core", Sizes: []int{3, 5}, CISeeds: 300, Make: func(seed uint64, n int, p Protocol) Options {
			o := base(seed, n, p)
			mix(&o)
			return o
		}},
		{Name: "failover", Sizes: []int{3, 5}, CISeeds: 400, Make: func(seed uint64, n int, p Protocol) Options {
			o := base(seed, n, p)
			mix(&o)
			o.Faults = FailoverMix(n)
			return o
		}},
		// Weak writes followed by strong operations of the same session on
		// other keys, and reads of hot keys, across a leader crash.
		{Name: "leader-crash", Sizes: []int{5}, CISeeds: 200, Make: func(seed uint64, n int, p Protocol) Options {
			o := base(seed, n, p)
			o.Sessions = 6
			o.Workload = Workload{Ops: 80, Pendings: 4, Keys: 8, WeakRatio: 50, WeakWrites: 70, Writes: 50, ScanRatio: 10, ScanCount: 3,
				Deletes: 20, RMW: 20}
			o.Faults = Faults{MinDelay: 100 * time.Microsecond, MaxDelay: 4 * time.Millisecond,
				Crashes: 1, CrashWithin: 100 * time.Millisecond, CrashLeader: true}
			return o
		}},
		// Pipelines of ordered operations on a few hot keys
		// (docs/DECISIONS.md 45) across leader crashes and partitions:
		// each must take effect after its session's earlier conflicting
		// operations, the ones still in flight too.
		{Name: "ordered", Sizes: []int{3, 5}, CISeeds: 100, Make: func(seed uint64, n int, p Protocol) Options {
			o := base(seed, n, p)
			o.Sessions = 5
			o.Workload = Workload{Ops: 80, Pendings: 6, Keys: 3, WeakRatio: 25, WeakWrites: 50, Writes: 60,
				Deletes: 10, RMW: 25, Ordered: 80}
			o.Faults = FailoverMix(n)
			// Crashed replicas come back, so that a partitioned leader
			// leaves a majority that elects another.
			o.Faults.RestartAfter = 300 * time.Millisecond
			o.Faults.PartitionEvery, o.Faults.PartitionFor = 2*time.Second, 2*time.Second
			o.Faults.PartitionLeader = true
			o.LeaderReads, o.LeaderWrites = 40, true
			return o
		}},
		// Strong reads at the leader alone (docs/DECISIONS.md 46) from half
		// the sessions, ordered ones among them, across crashes and
		// partitions that cut the leader off with some of the sessions: a
		// deposed leader that has not heard of its successor must not
		// answer them from its stale state while the others write through
		// the new one.
		{Name: "leader-reads", Sizes: []int{3, 5}, CISeeds: 100, Make: leaderReadsConfig},
		// Leader reads under leases (docs/DECISIONS.md 55), the
		// leader-reads configuration's faults, with every replica's clock
		// at its own rate, within 10 % of the simulation's.
		{Name: "lease-reads", Sizes: []int{3, 5}, CISeeds: 100, Make: func(seed uint64, n int, p Protocol) Options {
			o := leaseReadsConfig(seed, n, p)
			// Replicas hear of broken connections, as servers do:
			// the shortcut to an election that the promise holds back.
			o.Faults.ReportCuts = true
			return o
		}},
		// Check-quorum (docs/DECISIONS.md 56): the leader-reads
		// configuration's workload and crashes, under leases, with the
		// partitions cutting one way only what the other replicas send
		// the leader, often longer than electionTimeoutMax: the leader
		// falls quiet, the others elect a successor, and the old one,
		// still answering its sessions, hears of it only at the heal.
		{Name: "deaf-leader", Sizes: []int{3, 5}, CISeeds: 50, Make: func(seed uint64, n int, p Protocol) Options {
			o := leaseReadsConfig(seed, n, p)
			o.Faults.PartitionSplitsSessions, o.Faults.PartitionOneWay = false, true
			return o
		}},
		{Name: "harsh", Sizes: []int{5}, CISeeds: 150, Make: func(seed uint64, n int, p Protocol) Options {
			o := base(seed, n, p)
			o.Sessions = 6
			o.Workload = Workload{Ops: 60, Pendings: 3, Keys: 4, WeakRatio: 50, WeakWrites: 80, Writes: 50, ScanRatio: 20, ScanCount: 2,
				Deletes: 20, RMW: 20}
			o.Faults = HarshMix()
			// Replicas hear of crashed peers, as servers do (DECISIONS
			// 35's shortcut to an election).
			o.Faults.ReportCuts = true
			return o
		}},
		// The harsh mix with client crashes and execution lag: sessions die
		// with weak writes kept by few witnesses, and their records must
		// still be decided (PROTOCOL.md 3.4 rule 6).
		{Name: "harsh-clients", Sizes: []int{5}, CISeeds: 100, Make: func(seed uint64, n int, p Protocol) Options {
			o := base(seed, n, p)
			o.Sessions = 8
			o.Workload = Workload{Ops: 80, Pendings: 3, Keys: 6, WeakRatio: 50, WeakWrites: 80, Writes: 50, ScanRatio: 20, ScanCount: 2,
				Deletes: 20, RMW: 20}
			o.Faults = HarshMix()
			o.Faults.CrashClientToo = true
			o.Faults.ClientCrashes = 2
			o.Faults.ApplyLag = 2 * time.Millisecond
			return o
		}},
		// More sessions, keys and operations than the others, so that
		// anomalies across keys and long chains show.
		{Name: "many", Sizes: []int{3, 5}, CISeeds: 40, Make: func(seed uint64, n int, p Protocol) Options {
			o := base(seed, n, p)
			mix(&o)
			wide(&o, 8, 200, 4, 20)
			o.Faults = FaultMix
			o.Faults.ClientCrashes = 2
			return o
		}},
		// Repeated partitions that isolate the leader for longer than the
		// election timeout: views change again and again under load.
		{Name: "partitions", Sizes: []int{3, 5}, CISeeds: 40, Make: func(seed uint64, n int, p Protocol) Options {
			o := base(seed, n, p)
			mix(&o)
			wide(&o, 6, 150, 3, 10)
			o.Faults = FaultMix
			o.Faults.PartitionEvery, o.Faults.PartitionFor = 2*time.Second, 3*time.Second
			o.Faults.PartitionLeader = true
			return o
		}},
		// Partitions longer than the refusal age (docs/DECISIONS.md 15),
		// with weak writes lost on their way to witnesses: live sessions
		// keep talking to the leader, so none of their records may be
		// refused, however long a replica is cut off.
		{Name: "long-partitions", Sizes: []int{3, 5}, CISeeds: 6, Make: func(seed uint64, n int, p Protocol) Options {
			o := base(seed, n, p)
			mix(&o)
			wide(&o, 6, 180, 3, 10)
			o.Workload.Think = time.Second // about 30 s per session
			o.Faults = FaultMix
			o.Faults.PartitionEvery, o.Faults.PartitionFor = time.Second, 25*time.Second
			o.Faults.DropWeakProb = 0.3
			return o
		}},
		{Name: "restarts", Sizes: []int{3, 5}, CISeeds: 30, Make: restarts},
		// Replicas crash with their hosts (Faults.HostCrashes), under the
		// leader-reads configuration's partitions: a session holds a
		// crashed witness's acknowledgements until it sends to the host
		// again, after the replica is back empty, and the leader's reply
		// must not complete a fast path with them (docs/DECISIONS.md 58).
		// Strong writes go to every witness.
		{Name: "host-crashes", Sizes: []int{3, 5}, CISeeds: 50, Make: func(seed uint64, n int, p Protocol) Options {
			o := leaderReadsConfig(seed, n, p)
			o.LeaderWrites = false
			o.Faults.HostCrashes = true
			return o
		}},
		// Restarts whose clock was set back (docs/DECISIONS.md 51): every
		// restarted replica starts with an incarnation below its earlier
		// life's and takes a higher one from its peers.
		{Name: "clock-back", Sizes: []int{3, 5}, CISeeds: 30, Make: func(seed uint64, n int, p Protocol) Options {
			o := restarts(seed, n, p)
			o.Faults.ClockBack = true
			return o
		}},
		// A new cluster founded by a majority of replicas started with
		// -cluster new (docs/DECISIONS.md 37); the others start within a
		// second and join it as learners, some by state transfer.
		{Name: "late-start", Sizes: []int{3, 5}, CISeeds: 30, Make: func(seed uint64, n int, p Protocol) Options {
			o := base(seed, n, p)
			mix(&o)
			wide(&o, 6, 120, 3, 10)
			o.Workload.Think = 10 * time.Millisecond
			o.Faults = FaultMix
			o.Faults.LateStarts, o.Faults.LateWithin = quorum.F(n), time.Second
			o.SnapshotEvery, o.LogRetain = 40, 10
			return o
		}},
		// Durable replicas (a simulated disk each, durable.go): the whole
		// cluster crashes twice under load, losing every unsynced batch
		// but a prefix, and comes back from disk; up to f replicas also
		// crash alone and come back from disk. Nothing acknowledged may be
		// lost.
		{Name: "crash-all", Sizes: []int{3, 5}, CISeeds: 8, Make: func(seed uint64, n int, p Protocol) Options {
			o := base(seed, n, p)
			mix(&o)
			wide(&o, 6, 120, 3, 10)
			o.Durable = true
			o.LeaderReads, o.LeaderWrites = 50, true
			o.Faults = CrashAllMix(n)
			o.SnapshotEvery, o.LogRetain = 40, 10
			return o
		}},
		// Durable replicas crash alone and come back, half of them with
		// their disk lost (an emptied data directory): those rejoin as a
		// replica restarted in memory does, and the lives the others keep
		// on disk stop a candidate from counting a grant of a life that no
		// longer exists (docs/DECISIONS.md 52). Strong writes go to the
		// leader alone in every other seed, to every witness for the fast
		// path in the others: a wiped leader's fast-path writes live on in
		// the witnesses' records, which vouch only once their logs hold an
		// entry on disk (docs/DECISIONS.md 53).
		{Name: "wiped-disks", Sizes: []int{3, 5}, CISeeds: 20, Make: func(seed uint64, n int, p Protocol) Options {
			o := restarts(seed, n, p)
			o.Durable = true
			o.LeaderReads, o.LeaderWrites = 50, seed%2 == 0
			o.Faults.WipeProb = 0.5
			return o
		}},
		// Sessions end in the middle of the run: the leader expires those
		// idle longer than SessionIdle (some think times are longer),
		// through the log and across view changes; a late request of an
		// expired session must never execute (PROTOCOL.md 6.10).
		{Name: "expiry", Sizes: []int{3, 5}, CISeeds: 30, Make: func(seed uint64, n int, p Protocol) Options {
			o := base(seed, n, p)
			mix(&o)
			wide(&o, 8, 40, 2, 6)
			o.Workload.Think = 600 * time.Millisecond
			o.SessionIdle = 590 * time.Millisecond
			o.Faults = FailoverMix(n)
			o.Faults.CrashWithin = 3 * time.Second
			o.Faults.RestartAfter = time.Second
			o.SnapshotEvery, o.LogRetain = 20, 5
			return o
		}},
		// Everything at once: up to f crashes, client crashes, execution
		// lag, dropped weak writes and leader partitions, on many keys.
		{Name: "chaos", Sizes: []int{3, 5}, CISeeds: 40, Make: func(seed uint64, n int, p Protocol) Options {
			o := base(seed, n, p)
			mix(&o)
			wide(&o, 10, 150, 3, 30)
			o.Faults = FailoverMix(n)
			o.Faults.CrashWithin = time.Second
			o.Faults.RestartAfter = 300 * time.Millisecond // a partitioned leader leaves a majority
			o.Faults.ClientCrashes = 3
			o.Faults.DropWeakProb = 0.3
			o.Faults.PartitionEvery, o.Faults.PartitionFor = 2*time.Second, 2500*time.Millisecond
			o.Faults.PartitionLeader = true
			o.Faults.ReportCuts = true
			return o
		}},
	}
}

// wide sets a larger workload with the protocol's mix: more sessions,
// operations and keys, and SCANs of up to six keys.
func wide(o *Options, sessions, ops, pendings, keys int) {
	o.Sessions = sessions
	w := &o.Workload
	w.Ops, w.Pendings, w.Keys, w.ScanRatio, w.ScanCount = ops, pendings, keys, 20, 5
}

// base is the core workload: four sessions colliding on three hot keys,
// one read in five a SCAN of up to four keys, one write in five a DELETE,
// one strong operation in five a CAS or an INCR.
func base(seed uint64, n int, p Protocol) Options {
	return Options{
		Seed: seed, N: n, Sessions: 4, Protocol: p, Faults: FaultMix,
		Workload: Workload{Ops: 60, Pendings: 3, Keys: 3, WeakRatio: 50, WeakWrites: 50, Writes: 50,
			ScanRatio: 20, ScanCount: 3, Deletes: 20, RMW: 20},
	}
}
