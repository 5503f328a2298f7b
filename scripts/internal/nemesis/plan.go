package nemesis

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"swiftpaxos/config/quorum"
)

// FaultID numbers the faults of a plan from 1, in start order.
type FaultID int

// Fault is one planned fault. At and For are planned: the Runner may
// start a fault later than At (a replica not yet back, no leader
// elected) and then shortens it so that it still heals by the plan's
// horizon.
type Fault struct {
	ID   FaultID
	Kind Kind
	// At is when it starts, since the clients started.
	At time.Duration
	// For is how long it lasts: a killed or wiped replica's time down, a
	// pause, a partition, a whole-cluster crash's time down. Zero for a client
	// kill and for a kill without Restart: those are never undone.
	For time.Duration
	// Target is the replica a kill, wipe, pause or partition takes; for a
	// one-way partition, the replica whose sends are held.
	Target Role
	// Peer is, for a one-way partition, the replica that no longer hears
	// Target.
	Peer  Role
	Shape Shape
	Mode  Mode
	// Pick chooses among the candidates when the fault starts (a
	// follower, a client): the candidate at Pick modulo their number, in
	// the configuration's order; Pick2 likewise for Peer.
	Pick, Pick2 uint32
	// Restart: the killed replica is started again after For (a wiped
	// one always is, with an empty data directory).
	Restart bool
}

// Heals reports whether the fault is undone (For after it starts).
func (f Fault) Heals() bool { return f.For > 0 }

// Options are what a plan is drawn from.
type Options struct {
	Seed  uint64
	Kinds Kinds
	// Every is the mean time between the starts of two faults.
	Every time.Duration
	// Run is the run's length (the configuration's runTime).
	Run time.Duration
	// Replicas and Clients count the configuration's processes.
	Replicas, Clients int
	// Durable: the replicas keep their state on disk (dataDir).
	Durable bool
}

// The shape of every plan.
const (
	// MinRun is the shortest run a nemesis draws for: a fault, its heal
	// and the quiet tail need a few seconds.
	MinRun = 10 * time.Second
	// MinEvery is the shortest mean interval between faults.
	MinEvery = 500 * time.Millisecond
	// lead is when the first fault may start: after the clients' warm-up.
	lead = time.Second
	// Settle is the gap a plan leaves after a replica fault heals before
	// the replica counts toward f again: a restarted replica catches up,
	// a healed one hears the leader.
	Settle = 500 * time.Millisecond
	// minFault is the shortest fault.
	minFault = 100 * time.Millisecond
	// maxCrashDown bounds a whole-cluster crash's time down: every client
	// thread must hear back within replyTimeout (10 s by default) across
	// the crash, the restart and the election.
	maxCrashDown = 3 * time.Second
)

// Horizon is when every fault has healed: the run's last tenth (at least
// 2 s) is fault-free, so that the run ends on a whole cluster.
func (o Options) Horizon() time.Duration { return o.Run - max(2*time.Second, o.Run/10) }

// F is how many replicas the cluster tolerates impaired.
func (o Options) F() int { return quorum.F(o.Replicas) }

// maxFault is the longest fault drawn: one and a half mean intervals,
// from 1 s to 8 s (longer than an election, shorter than replyTimeout).
func (o Options) maxFault() time.Duration { return min(max(o.Every*3/2, time.Second), 8*time.Second) }

func (o Options) validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if len(o.Kinds) == 0 {
		bad("no fault kind given (known: %s)", knownKinds())
	}
	switch {
	case o.Run <= 0:
		bad("the run has no known length: set runTime in the configuration (a run of reqs ends when it ends)")
	case o.Run < MinRun:
		bad("runTime %v is too short for a nemesis: give at least %v", o.Run, MinRun)
	}
	if o.Every < MinEvery {
		bad("the mean interval between faults %v is below %v", o.Every, MinEvery)
	}
	if o.Replicas < 1 {
		bad("no replica in the configuration")
	}
	for _, k := range o.Kinds {
		switch {
		case k.impairsReplica() && o.F() == 0:
			bad("%s: a cluster of %d replica(s) tolerates no replica fault (f = 0)", k, o.Replicas)
		case k == Restart && !o.Kinds.Has(Kill):
			bad("restart brings killed replicas back: give it with kill")
		case k == Wipe && !o.Durable:
			bad("wipe empties a replica's data directory: it needs durable replicas (dataDir in the configuration); in memory, kill with restart is the same fault")
		case k == CrashAll && !o.Durable:
			bad("crash-all needs durable replicas (dataDir in the configuration): in memory a whole-cluster crash loses everything")
		case k == CrashAll && o.Kinds.Has(Kill) && !o.Kinds.Has(Restart):
			bad("crash-all starts every replica again, a replica killed for good too: with kill, give restart")
		case k == Client && o.Clients < 2:
			bad("client needs at least 2 client processes (one must survive to the end); the configuration has %d", o.Clients)
		}
	}
	return errors.Join(errs...)
}

// Plan is a drawn schedule.
type Plan struct {
	Options
	Faults []Fault
}

// Counts returns how many faults of each kind the plan holds.
func (p *Plan) Counts() map[Kind]int {
	c := map[Kind]int{}
	for _, f := range p.Faults {
		c[f.Kind]++
	}
	return c
}

// window is the time a fault keeps a replica (or, for a whole-cluster
// crash, every replica) from counting toward f: until its heal and the
// settling gap after it.
type window struct{ from, to time.Duration }

// forever ends the window of a replica killed for good.
const forever = time.Duration(math.MaxInt64)

// Draw draws the plan of o. The same options give the same plan.
func Draw(o Options) (*Plan, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	d := drawer{o: o, rng: rand.New(rand.NewPCG(o.Seed, 0x6e656d65736973)), choices: o.Kinds.faults()}
	p := &Plan{Options: o}
	horizon := o.Horizon()
	t := lead
	for len(d.choices) > 0 {
		t += time.Duration(d.rng.ExpFloat64() * float64(o.Every))
		if t >= horizon {
			break
		}
		f, ok := d.next(t, horizon)
		if !ok {
			continue
		}
		f.ID = FaultID(len(p.Faults) + 1)
		p.Faults = append(p.Faults, f)
		t = f.At
	}
	return p, nil
}

// drawer holds what a draw has placed so far.
type drawer struct {
	o       Options
	rng     *rand.Rand
	choices []Kind
	// replicas are the windows of the replica faults placed, crashes
	// those of the whole-cluster crashes.
	replicas, crashes []window
	clients           int
}

// next draws the fault that arrives at t, placed at t or, when f
// replicas are impaired then, as soon as one is back; false when none
// fits before horizon.
func (d *drawer) next(t, horizon time.Duration) (Fault, bool) {
	k := d.choices[d.rng.IntN(len(d.choices))]
	f := Fault{Kind: k}
	switch k {
	case Client:
		f.At, f.Pick = roundMs(t), d.rng.Uint32()
		d.clients++
		if d.clients == d.o.Clients-1 {
			d.choices = slices.DeleteFunc(d.choices, func(c Kind) bool { return c == Client })
		}
		return f, true
	case CrashAll:
		f.For = d.duration(min(d.o.maxFault(), maxCrashDown))
		return d.place(f, d.free(t, 0), horizon, &d.crashes)
	}
	f.For = d.duration(d.o.maxFault())
	f.Target, f.Pick = d.role(), d.rng.Uint32()
	switch k {
	case Kill:
		f.Restart = d.o.Kinds.Has(Restart)
		if !f.Restart {
			f.For = 0
		}
	case Wipe:
		f.Restart = true
	case Partition:
		f.Shape = []Shape{Isolate, LeaderCut, OneWay, Deaf}[d.rng.IntN(4)]
		f.Mode = []Mode{Hold, Close}[d.rng.IntN(2)]
		switch f.Shape {
		case LeaderCut:
			f.Target = Leader
		case Deaf:
			f.Target, f.Mode = Leader, Hold
		case OneWay:
			// Both ends followers needs two of them healthy: n >= 3.
			pair := [][2]Role{{Leader, Follower}, {Follower, Leader}, {Follower, Follower}}[d.rng.IntN(3)]
			f.Target, f.Peer, f.Mode, f.Pick2 = pair[0], pair[1], Hold, d.rng.Uint32()
		}
	}
	return d.place(f, d.free(t, d.o.F()-1), horizon, &d.replicas)
}

// place puts f at start (rounded to the millisecond, as the plan is
// printed), shortened to heal by horizon, into the windows ws; false
// when it does not fit.
func (d *drawer) place(f Fault, start, horizon time.Duration, ws *[]window) (Fault, bool) {
	if start >= horizon {
		return Fault{}, false
	}
	f.At = roundMs(start)
	if f.At+max(f.For, minFault) > horizon {
		if f.For == 0 || horizon-f.At < minFault {
			return Fault{}, false
		}
		f.For = roundMs(horizon - f.At)
	}
	end := forever
	if f.Heals() {
		end = f.At + f.For + Settle
	}
	*ws = append(*ws, window{f.At, end})
	return f, true
}

// free is the first instant from t on when at most busy replica windows
// are open and no whole-cluster crash is, so that a fault starting then
// is the busy+1-th at most (busy 0 for a whole-cluster crash: nothing
// else at all). A plan's starts never decrease, so every window open at
// that instant stays open through it: counting at the start suffices.
func (d *drawer) free(t time.Duration, busy int) time.Duration {
	for _, c := range d.crashes {
		t = max(t, c.to)
	}
	var ends []time.Duration
	for _, w := range d.replicas {
		if w.to > t {
			ends = append(ends, w.to)
		}
	}
	if len(ends) <= busy {
		return t
	}
	slices.Sort(ends)
	return ends[len(ends)-busy-1]
}

// role draws whom a replica fault takes: the leader half of the time.
func (d *drawer) role() Role {
	if d.rng.IntN(2) == 0 {
		return Leader
	}
	return Follower
}

// duration draws a fault's length log-uniformly in [minFault, hi], so
// that short faults (a pause shorter than an election timeout, after
// which a leader wakes up still leading) are as common as long ones.
func (d *drawer) duration(hi time.Duration) time.Duration {
	lo := float64(minFault)
	return roundMs(time.Duration(lo * math.Exp(d.rng.Float64()*math.Log(float64(hi)/lo))))
}

func roundMs(t time.Duration) time.Duration { return t.Round(time.Millisecond) }
