package nemesis

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Clock is the runner's time: the wall clock, or a test's.
type Clock interface {
	Now() time.Time
	// SleepUntil returns at t (at once if t has passed), or earlier with
	// ctx's error.
	SleepUntil(ctx context.Context, t time.Time) error
}

// WallClock is the machine's clock.
type WallClock struct{}

// Now is time.Now.
func (WallClock) Now() time.Time { return time.Now() }

// SleepUntil waits on a timer.
func (WallClock) SleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// RunnerOptions configure Run.
type RunnerOptions struct {
	Plan *Plan
	// Replicas and Clients are the processes' aliases, in the
	// configuration's order (the order a fault's Pick counts in).
	Replicas, Clients []string
	// Start is when the clients started: the plan's instants count from
	// it.
	Start   time.Time
	Hands   Hands
	Cluster Cluster
	Clock   Clock
	// Log receives one line per decision.
	Log io.Writer
}

// Deferral of a fault that cannot start at its planned instant.
const (
	// RetryEvery is how often the runner asks the replicas again.
	RetryEvery = 200 * time.Millisecond
	// MaxDelay is how late a fault may start; later, it is skipped.
	MaxDelay = 10 * time.Second
)

// Stats count what a run did.
type Stats struct {
	Started map[Kind]int
	Skipped map[Kind]int
}

// live is a fault under way.
type live struct {
	f       Fault
	targets []string
	until   time.Time // its heal; zero for a fault never undone
	cut     []string  // a partition's netem arguments
}

type runner struct {
	o        RunnerOptions
	horizon  time.Time
	next     int       // the next fault of the plan to start
	retryAt  time.Time // when to try it again, after a deferral
	live     []*live
	impaired map[string]FaultID // replicas a fault takes now
	// rejoining are the replicas started again that have not yet
	// answered as full members: still impaired.
	rejoining map[string]bool
	dead      map[string]bool // clients killed
	crash     bool            // a whole-cluster crash is under way
	stats     Stats
}

// Run carries out the plan: each fault at its instant, or as soon after
// as it may start (at most f replicas impaired, counting restarted ones
// until they are members again; a leader known when the fault needs
// one), within MaxDelay, and its heal For later, cut short so that it
// heals by the plan's horizon. It returns when every fault is healed (a
// kill without restart and a client kill are never undone), or with the
// first command that failed, or with ctx's error.
func Run(ctx context.Context, o RunnerOptions) (Stats, error) {
	r := &runner{
		o: o, horizon: o.Start.Add(o.Plan.Horizon()),
		impaired: map[string]FaultID{}, rejoining: map[string]bool{}, dead: map[string]bool{},
		stats: Stats{Started: map[Kind]int{}, Skipped: map[Kind]int{}},
	}
	err := r.run(ctx)
	return r.stats, err
}

func (r *runner) run(ctx context.Context) error {
	for {
		var heal *live
		for _, l := range r.live {
			if heal == nil || l.until.Before(heal.until) {
				heal = l
			}
		}
		start := r.next < len(r.o.Plan.Faults)
		var due time.Time
		if start {
			due = r.o.Start.Add(r.o.Plan.Faults[r.next].At)
			if r.retryAt.After(due) {
				due = r.retryAt
			}
			start = heal == nil || !heal.until.Before(due)
		}
		switch {
		case start:
		case heal != nil:
			due = heal.until
		default:
			return nil
		}
		if err := r.o.Clock.SleepUntil(ctx, due); err != nil {
			return err
		}
		var err error
		if start {
			err = r.tryStart(ctx)
		} else {
			err = r.heal(heal)
		}
		if err != nil {
			return err
		}
	}
}

// tryStart starts the next fault, defers it, or skips it.
func (r *runner) tryStart(ctx context.Context) error {
	f := r.o.Plan.Faults[r.next]
	now := r.o.Clock.Now()
	length := f.For
	if f.Heals() {
		length = min(f.For, r.horizon.Sub(now))
	}
	why := ""
	var targets []string
	if f.Heals() && length < minFault {
		why = "no time left to heal it before the run's last tenth"
	} else {
		targets, why = r.resolve(ctx, f)
	}
	if why != "" {
		again := now.Add(RetryEvery)
		late := again.Sub(r.o.Start.Add(f.At)) > MaxDelay || f.Heals() && r.horizon.Sub(again) < minFault
		if length >= minFault && !late {
			r.retryAt = again
			return nil
		}
		r.next, r.retryAt = r.next+1, time.Time{}
		r.stats.Skipped[f.Kind]++
		r.logf(f, "skipped: %s", why)
		return r.o.Hands.Do(Command{VerbSkip, append([]string{strconv.Itoa(int(f.ID)), string(f.Kind)}, strings.Fields(why)...)})
	}
	r.next, r.retryAt = r.next+1, time.Time{}
	return r.begin(f, targets, length)
}

// begin carries fault f out on targets, then records it: its instant is
// when it took effect, so that what the run did after it is measured
// from then, not from before a signal that took milliseconds to send.
func (r *runner) begin(f Fault, targets []string, length time.Duration) error {
	target := strings.Join(targets, ">")
	if f.Kind == CrashAll {
		target = "all"
	}
	r.logf(f, "on %s", target)
	if err := r.act(f, targets, length); err != nil {
		return err
	}
	return r.o.Hands.Do(Command{VerbBegin, []string{strconv.Itoa(int(f.ID)), string(f.Kind), target, f.Detail()}})
}

// act carries fault f out on targets.
func (r *runner) act(f Fault, targets []string, length time.Duration) error {
	r.stats.Started[f.Kind]++
	l := &live{f: f, targets: targets}
	if f.Heals() {
		l.until = r.o.Clock.Now().Add(length)
		r.live = append(r.live, l)
	}
	switch f.Kind {
	case Client:
		r.dead[targets[0]] = true
		return r.o.Hands.Do(Command{VerbKillClient, targets})
	case CrashAll:
		r.crash = true
		for _, a := range targets {
			if err := r.o.Hands.Do(Command{VerbKill, []string{a}}); err != nil {
				return err
			}
		}
		return nil
	}
	r.impaired[targets[0]] = f.ID
	switch f.Kind {
	case Kill:
		return r.o.Hands.Do(Command{VerbKill, targets[:1]})
	case Wipe:
		if err := r.o.Hands.Do(Command{VerbKill, targets[:1]}); err != nil {
			return err
		}
		return r.o.Hands.Do(Command{VerbWipe, targets[:1]})
	case Pause:
		return r.o.Hands.Do(Command{VerbStop, targets[:1]})
	}
	l.cut = []string{"-isolate", targets[0]}
	switch f.Shape {
	case OneWay:
		l.cut = append(l.cut, "-to", targets[1])
	case Deaf:
		l.cut = append(l.cut, "-deaf")
	case LeaderCut:
		l.cut = append(l.cut, "-from", "replicas")
	default:
		l.cut = append(l.cut, "-from", "all")
	}
	if f.Shape == OneWay || f.Shape == Deaf {
		return r.o.Hands.Do(Command{VerbCut, l.cut})
	}
	return r.o.Hands.Do(Command{VerbCut, append(slices.Clone(l.cut), "-mode", string(f.Mode))})
}

// heal undoes fault l and records its end.
func (r *runner) heal(l *live) error {
	r.live = slices.DeleteFunc(r.live, func(x *live) bool { return x == l })
	r.logf(l.f, "healed")
	var err error
	switch l.f.Kind {
	case Kill, Wipe:
		err = r.o.Hands.Do(Command{VerbStart, l.targets[:1]})
		r.rejoining[l.targets[0]] = true
	case Pause:
		err = r.o.Hands.Do(Command{VerbCont, l.targets[:1]})
	case Partition:
		err = r.o.Hands.Do(Command{VerbHeal, l.cut})
	case CrashAll:
		for _, a := range l.targets {
			if err = r.o.Hands.Do(Command{VerbStart, []string{a}}); err != nil {
				break
			}
			r.rejoining[a] = true
		}
		r.crash = false
	}
	delete(r.impaired, l.targets[0])
	if err != nil {
		return err
	}
	return r.o.Hands.Do(Command{VerbEnd, []string{strconv.Itoa(int(l.f.ID))}})
}

// resolve names the processes fault f takes now, or says why it cannot
// start now.
func (r *runner) resolve(ctx context.Context, f Fault) ([]string, string) {
	if f.Kind == Client {
		var alive []string
		for _, c := range r.o.Clients {
			if !r.dead[c] {
				alive = append(alive, c)
			}
		}
		if len(alive) < 2 {
			return nil, "no other client would be left"
		}
		return []string{alive[int(f.Pick)%len(alive)]}, ""
	}
	if r.crash {
		return nil, "a whole-cluster crash is under way"
	}
	states := r.states(ctx)
	if f.Kind == CrashAll {
		if len(r.impaired) > 0 || len(r.rejoining) > 0 {
			return nil, "replicas are impaired: " + r.impairedList()
		}
		return slices.Clone(r.o.Replicas), ""
	}
	if f.Kind == Partition && slices.ContainsFunc(r.live, func(l *live) bool { return l.f.Kind == Partition }) {
		// Two partitions could share a link (one isolates replica1, the
		// other replica2: both cut the pair), and the proxies keep one
		// cut per link: the first heal would undo part of the other.
		return nil, "another partition is under way"
	}
	if n := len(r.impaired) + len(r.rejoining); n+1 > r.o.Plan.F() {
		return nil, fmt.Sprintf("f = %d replica(s) already impaired: %s", r.o.Plan.F(), r.impairedList())
	}
	var healthy []ReplicaState
	for _, s := range states {
		if s.Answered && s.Member && r.impaired[s.Alias] == 0 && !r.rejoining[s.Alias] {
			healthy = append(healthy, s)
		}
	}
	leader := -1
	for i, s := range healthy {
		if s.Leader && (leader < 0 || s.Ballot > healthy[leader].Ballot) {
			leader = i
		}
	}
	if leader < 0 {
		return nil, "no healthy replica leads"
	}
	var followers []string
	for i, s := range healthy {
		if i != leader {
			followers = append(followers, s.Alias)
		}
	}
	take := func(role Role, pick uint32) (string, bool) {
		if role == Leader {
			return healthy[leader].Alias, true
		}
		if len(followers) == 0 {
			return "", false
		}
		a := followers[int(pick)%len(followers)]
		followers = slices.DeleteFunc(followers, func(x string) bool { return x == a })
		return a, true
	}
	t, ok := take(f.Target, f.Pick)
	if !ok {
		return nil, "no healthy follower"
	}
	if f.Shape != OneWay {
		return []string{t}, ""
	}
	p, ok := take(f.Peer, f.Pick2)
	if !ok {
		return nil, "no second healthy follower"
	}
	return []string{t, p}, ""
}

// states asks the replicas and forgets the restarted ones that answered
// as members.
func (r *runner) states(ctx context.Context) []ReplicaState {
	states := r.o.Cluster.States(ctx)
	for _, s := range states {
		if r.rejoining[s.Alias] && s.Answered && s.Member {
			delete(r.rejoining, s.Alias)
		}
	}
	return states
}

// impairedList names the impaired replicas, for a log line.
func (r *runner) impairedList() string {
	var s []string
	for _, a := range r.o.Replicas {
		switch {
		case r.impaired[a] != 0:
			s = append(s, fmt.Sprintf("%s (fault %d)", a, r.impaired[a]))
		case r.rejoining[a]:
			s = append(s, a+" (not a member again yet)")
		}
	}
	return strings.Join(s, ", ")
}

func (r *runner) logf(f Fault, format string, args ...any) {
	if r.o.Log == nil {
		return
	}
	at := r.o.Clock.Now().Sub(r.o.Start).Seconds()
	fmt.Fprintf(r.o.Log, "%8.3fs fault %d (%s): %s\n", at, f.ID, f, fmt.Sprintf(format, args...))
}
