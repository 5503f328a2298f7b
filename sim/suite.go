package sim

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"swiftpaxos/check"
	"swiftpaxos/config/quorum"
)

// Flags shared by the protocol packages' simulation tests:
// go test ./curp-ht -sim.seeds 1000, or -sim.seed 17 to replay one seed.
var (
	flagSeeds = flag.Int("sim.seeds", 0, "simulation seeds per cluster size (0: each test's own count)")
	flagBase  = flag.Uint64("sim.base", 1, "first simulation seed (seeds base..base+count-1)")
	flagSeed  = flag.Uint64("sim.seed", 0, "replay only this simulation seed")
)

// FaultMix is the core fault mix: reordering across connections, long
// delays, dropped connections, healing partitions and execution lag.
var FaultMix = Faults{
	MinDelay: 100 * time.Microsecond, MaxDelay: 3 * time.Millisecond,
	LongDelayProb: 0.01, LongDelay: 40 * time.Millisecond,
	DropProb:       0.002,
	PartitionEvery: 400 * time.Millisecond, PartitionFor: 300 * time.Millisecond,
	ApplyLag: 2 * time.Millisecond,
}

// Seeds returns the seeds a test runs: count seeds from sim.base (sim.seeds
// of them when that flag is set), or only sim.seed.
func Seeds(count int) []uint64 {
	if *flagSeed != 0 {
		return []uint64{*flagSeed}
	}
	if *flagSeeds > 0 {
		count = *flagSeeds
	}
	l := make([]uint64, count)
	for i := range l {
		l[i] = *flagBase + uint64(i)
	}
	return l
}

// Failure is why one run did not pass, or "" if it passed: it did not
// finish and settle, or the checker's verdict is not OK (a violation, or
// anything the checker could not decide: PROTOCOL.md 2.6 item 9).
func Failure(res *Result, err error) string {
	if err != nil {
		return err.Error()
	}
	if !res.Report.OK() {
		return "checker: " + strings.TrimSpace(res.Report.String())
	}
	return ""
}

// RunSuite runs every configuration of the protocol's suite, each in a
// subtest named after it (replay one seed with -run 'TestSuite/NAME/n=N'
// -sim.seed SEED).
func RunSuite(t *testing.T, p Protocol) {
	for _, cfg := range Configs(p.Name) {
		t.Run(cfg.Name, func(t *testing.T) {
			t.Parallel()
			CheckSeeds(t, cfg.Sizes, cfg.CISeeds, func(seed uint64, n int) Options { return cfg.Make(seed, n, p) })
		})
	}
}

// CheckSeeds runs count seeds for each cluster size in parallel subtests
// and requires each run to finish and pass the checker. A failure names the
// seed and how to replay it. It also requires both strong paths to occur,
// a replica restarted empty to rejoin, and, under one-way partitions, a
// leader to fall quiet (check-quorum).
func CheckSeeds(t *testing.T, ns []int, count int, mk func(seed uint64, n int) Options) {
	for _, n := range ns {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			t.Parallel()
			fast, slow, restarts, installs, rejoins, ended, expired, fromDisk, crashAlls, late := 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
			leaderReads, wantLeaderReads, leaderWrites, wantLeaderWrites := 0, false, 0, false
			wipes, wantWipes := 0, false
			quiet, wantQuiet := 0, false
			seeds := Seeds(count)
			for _, seed := range seeds {
				o := mk(seed, n)
				wantLeaderReads = wantLeaderReads || o.LeaderReads > 0
				wantLeaderWrites = wantLeaderWrites || o.LeaderWrites
				wantWipes = wantWipes || o.Faults.WipeProb > 0
				wantQuiet = wantQuiet || o.Faults.PartitionOneWay
				res, err := Run(o)
				if f := Failure(res, err); f != "" {
					t.Fatalf("seed %d: %s (replay: go test -run '%s' -sim.seed %d)", seed, f, t.Name(), seed)
				}
				fast += res.Fast
				restarts += res.Restarts
				installs += res.Installs
				rejoins += res.Rejoins
				fromDisk += res.FromDisk
				wipes += res.Wipes
				quiet += res.QuietFalls
				crashAlls += res.CrashAlls
				late += res.LateStarted
				ended += res.Ended
				expired += res.IdleExpired
				slow += res.Slow
				leaderReads += res.LeaderReads
				leaderWrites += res.LeaderWrites
			}
			t.Logf("n=%d: %d seeds, strong fast path %d, slow path %d (%d leader reads), %d writes sent to the leader alone; %d restarts (%d from disk, %d with the disk lost, %d whole-cluster crashes), %d late starts, %d snapshots installed, %d rejoined; %d times a leader fell quiet; sessions: %d ended, %d expired idle",
				n, len(seeds), fast, slow, leaderReads, leaderWrites, restarts, fromDisk, wipes, crashAlls, late, installs, rejoins, quiet, ended, expired)
			if fast == 0 || slow == 0 {
				t.Fatalf("fast path %d, slow path %d: the workload must exercise both", fast, slow)
			}
			if restarts > fromDisk && rejoins == 0 {
				t.Fatalf("%d replicas restarted empty and none rejoined: a restarted replica must become a member again", restarts-fromDisk)
			}
			// Over ten seeds at least: a single seed's one crash may keep
			// its disk.
			if wantWipes && wipes == 0 && len(seeds) >= 10 {
				t.Fatalf("no durable replica lost its disk: the faults must exercise it")
			}
			// Over ten seeds at least, as for the wipes.
			if wantQuiet && quiet == 0 && len(seeds) >= 10 {
				t.Fatalf("no leader fell quiet: one-way partitions of the leader must exercise check-quorum")
			}
			if wantLeaderReads && leaderReads == 0 {
				t.Fatalf("no leader read was answered without a slot: the workload must exercise them")
			}
			if wantLeaderWrites && leaderWrites == 0 {
				t.Fatalf("no strong write was sent to the leader alone: the workload must exercise them")
			}
		})
	}
}

// RequireViolation runs seeds 1..maxSeeds of a deliberately broken build
// until the checker reports a violation, and fails if none does. When
// rules are given, only a violation of one of them counts: the mutation
// must be caught for the reason it breaks.
func RequireViolation(t *testing.T, maxSeeds int, mk func(seed uint64) Options, rules ...check.Rule) {
	t.Helper()
	for seed := uint64(1); seed <= uint64(maxSeeds); seed++ {
		res, err := Run(mk(seed))
		if err != nil {
			t.Logf("seed %d: %v", seed, err)
			continue
		}
		for _, v := range res.Report.Violations {
			if len(rules) == 0 || slices.Contains(rules, v.Rule) {
				t.Logf("seed %d caught it: %v", seed, v)
				return
			}
		}
	}
	t.Fatalf("no violation of %v in %d seeds", rules, maxSeeds)
}

// RequireReplay runs one seed twice and requires identical runs.
func RequireReplay(t *testing.T, o Options) {
	t.Helper()
	a, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(a.History) != fmt.Sprint(b.History) || fmt.Sprint(a.Logs) != fmt.Sprint(b.Logs) || a.Messages != b.Messages {
		t.Fatalf("seed %d did not replay identically", o.Seed)
	}
}

// FailoverMix is FaultMix plus up to f replica crashes early in the run.
func FailoverMix(n int) Faults {
	f := FaultMix
	f.Crashes = quorum.F(n)
	f.CrashWithin = 150 * time.Millisecond
	return f
}

// CrashAllMix is FaultMix on durable replicas with two whole-cluster
// crashes and up to f single ones, each replica back from its disk within
// 400 ms, and syncs of up to 3 ms.
func CrashAllMix(n int) Faults {
	f := FailoverMix(n)
	f.CrashWithin = 1500 * time.Millisecond
	f.CrashAlls = 2
	f.RestartAfter = 400 * time.Millisecond
	f.SyncDelay = 3 * time.Millisecond
	return f
}

// HarshMix is for n = 5: many dropped connections, weak writes lost on the
// way to witnesses (CURP-HO), and two crashes that take the leader first.
func HarshMix() Faults {
	return Faults{
		MinDelay: 100 * time.Microsecond, MaxDelay: 2 * time.Millisecond,
		DropProb: 0.02, DropWeakProb: 0.5,
		Crashes: 2, CrashWithin: 80 * time.Millisecond, CrashLeader: true,
	}
}
