package sim

import (
	"testing"
	"time"

	"swiftpaxos/check"
	"swiftpaxos/client"
	"swiftpaxos/replica"
)

// Mutation checks of the data model that both protocols' packages run on
// their own policies: each requires the checker to catch a deliberately
// broken replica.

// rmwLagOptions: strong CASes and INCRs contending on two keys (and two
// counters) with strong PUTs and DELETEs, no GET, and execution lag, so
// that the applied store is often behind the log at the leader when a CAS
// or an INCR arrives. CURP-HT runs it: under CURP-HO's read rule, which a
// CAS or an INCR goes through as a read does, so few of them complete on
// the fast path that 200 seeds do not catch the mutation.
func rmwLagOptions(seed uint64, p Protocol) Options {
	o := Configs(p.Name)[0].Make(seed, 3, p)
	o.Sessions = 4
	o.Workload = Workload{Ops: 40, Pendings: 2, Keys: 2, Writes: 100, RMW: 60, Deletes: 30}
	o.Faults = Faults{MinDelay: 100 * time.Microsecond, MaxDelay: 3 * time.Millisecond, ApplyLag: 5 * time.Millisecond}
	return o
}

// RequireSpeculatedCASCaught: a CAS's or an INCR's speculative result
// computed from the applied store instead of the log-prefix overlay
// (PROTOCOL.md 3.5) is the outcome of the wrong state once execution lags
// commitment: a fast-path CAS reports an outcome its execution
// contradicts, an INCR a stale new value. The workload has no GET, so no
// read can be what is caught; the same options pass unmutated.
func RequireSpeculatedCASCaught(t *testing.T, p Protocol) {
	t.Helper()
	CheckSeeds(t, []int{3}, 5, func(seed uint64, _ int) Options { return rmwLagOptions(seed, p) })
	mutated := func(seed uint64) Options {
		o := rmwLagOptions(seed, p)
		o.Mutation = replica.Mutation{SpeculateFromStore: true}
		return o
	}
	// A fast-path CAS whose outcome its execution contradicts, or an
	// INCR (or a CAS) whose result fits no order of the key.
	RequireViolation(t, 200, mutated, check.RuleLogMismatch, check.RuleLinearizability)
}

// RequireWeakRMWCaught: a hostile client (Workload.WeakRMW, past the
// client library's refusal) sends weak CASes and INCRs, and the replicas
// admit them (PROTOCOL.md 1.2 forbids it). A weak write's acknowledgement
// (CURP-HT's WeakReply at commit, CURP-HO's CausalReply before the write
// is even ordered) carries no result, so the session records the outcome
// it was handed, "not applied, absent", which nobody computed; the checker
// finds a CAS that the log applied and the client was told did not. A weak
// CAS is also history-invalid in itself, so only the log mismatch counts.
// Correct replicas drop such requests and the sessions never complete
// them: that run never finishes, and is not run here
// (replica/datamodel_test.go tests the refusal).
func RequireWeakRMWCaught(t *testing.T, p Protocol) {
	t.Helper()
	RequireViolation(t, 50, func(seed uint64) Options {
		o := Configs(p.Name)[0].Make(seed, 3, p)
		o.Workload.WeakRMW = 30
		o.Mutation = replica.Mutation{AcceptWeakRMW: true}
		return o
	}, check.RuleLogMismatch)
}

// RequireUnorderedPipelineCaught: sessions that send an ordered strong
// operation as a plain one (client.Mutation.UnorderedPipeline: no barrier
// dependency on the conflicting operation in flight before it, and a fast
// path allowed) let the two take effect in either order. The ordered
// configuration's crashes and partitions lose the earlier one with its
// leader while witnesses keep the later one, which recovery replays
// first; the ordered rule finds it. The same options pass unmutated
// (TestSuite runs them).
func RequireUnorderedPipelineCaught(t *testing.T, p Protocol) {
	t.Helper()
	requireCaughtIn(t, p, "ordered", 400, func(o *Options) { o.ClientMutation = client.Mutation{UnorderedPipeline: true} },
		check.RuleOrdered)
}

// RequireUnconfirmedLeaderReadCaught: a leader that answers leader reads
// at once, without the leadership round (replica.Mutation
// .UnconfirmedLeaderRead), answers from stale state once it is cut off
// from the other replicas but not from its clients, while they elect a
// new leader that commits newer writes; the leader-reads configuration
// does exactly that, and a read returns a value its session, or another
// that finished before it began, had already overwritten. The same
// options pass unmutated (TestSuite runs them). It takes many seeds: of
// seeds 1-1500, 18 catch it under CURP-HT and 3 under CURP-HO (the first
// at 488). TestScenarioUnconfirmedLeaderReadIsCaught catches it every
// time.
func RequireUnconfirmedLeaderReadCaught(t *testing.T, p Protocol) {
	t.Helper()
	requireCaughtIn(t, p, "leader-reads", 1000, func(o *Options) { o.Mutation = replica.Mutation{UnconfirmedLeaderRead: true} },
		check.RuleLinearizability, check.RuleReadYourWrites, check.RuleMonotonicReads, check.RuleStrongReadOrder, check.RuleCausalVisibility)
}

// RequireLeaseWithoutPromiseCaught: replicas that grant votes, and
// stand, while they promise a leader of lease reads not to
// (replica.Mutation.LeaseWithoutPromise) elect a new leader while the
// old one's lease holds; the lease-reads configuration cuts the leader
// off with some of its sessions, and tells the replicas of the cut, so
// that they stand within a few heartbeats, and a deposed leader answers a
// read from stale state. The same options pass unmutated (TestSuite runs
// them). Seed 13 catches it under CURP-HT and 21 under CURP-HO; without
// the reported cuts none of seeds 1-2000 does (the pre-vote rule,
// leaderAlive, then covers for the promise).
func RequireLeaseWithoutPromiseCaught(t *testing.T, p Protocol) {
	t.Helper()
	requireCaughtIn(t, p, "lease-reads", 2000, func(o *Options) { o.Mutation = replica.Mutation{LeaseWithoutPromise: true} },
		check.RuleLinearizability, check.RuleReadYourWrites, check.RuleMonotonicReads, check.RuleStrongReadOrder, check.RuleCausalVisibility)
}

// RequireLeaderReadDependencyCaught: a leader that answers a leader read
// although the operation it is ordered behind (its WeakDep) has no
// committed slot (replica.Mutation.LeaderReadIgnoresDependency) answers an
// ordered GET from the state before its session's write in flight; the
// ordered configuration's pipelines do that, and the ordered rule, which
// places a read the logs do not hold after the write it read, finds it.
func RequireLeaderReadDependencyCaught(t *testing.T, p Protocol) {
	t.Helper()
	requireCaughtIn(t, p, "ordered", 200, func(o *Options) { o.Mutation = replica.Mutation{LeaderReadIgnoresDependency: true} },
		check.RuleOrdered)
}

// requireCaughtIn runs the suite's configuration of that name, three
// replicas, mutated, until one of rules is violated (RequireViolation).
func requireCaughtIn(t *testing.T, p Protocol, config string, maxSeeds int, mutate func(*Options), rules ...check.Rule) {
	t.Helper()
	mk := configNamed(p.Name, config).Make
	RequireViolation(t, maxSeeds, func(seed uint64) Options {
		o := mk(seed, 3, p)
		mutate(&o)
		return o
	}, rules...)
}

// configNamed is the suite's configuration of that name.
func configNamed(protocol, name string) Config {
	for _, c := range Configs(protocol) {
		if c.Name == name {
			return c
		}
	}
	panic("sim: no configuration " + name)
}
