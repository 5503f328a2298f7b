package nemesis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/wire"
)

// fakeClock is virtual time: a sleep moves it on at once.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

func (c *fakeClock) SleepUntil(_ context.Context, t time.Time) error {
	if t.After(c.now) {
		c.now = t
	}
	return nil
}

// fakeDeployment plays both the launcher and the replicas: the commands
// change the processes' states, which the status answers report. A
// killed or paused replica does not answer; a restarted one is a member
// rejoin after its start; a leader killed, paused or cut off is replaced
// elect later by the first healthy replica, at a higher ballot, while it
// goes on believing it leads.
type fakeDeployment struct {
	t        *testing.T
	clock    *fakeClock
	start    time.Time
	replicas []string
	f        int
	rejoin   time.Duration
	elect    time.Duration
	killed   map[string]bool
	paused   map[string]bool
	cut      map[string]bool
	memberAt map[string]time.Time
	leads    map[string]wire.Ballot // who believes it leads, at which ballot
	leader   string                 // the one the others follow, "" between two
	electAt  time.Time
	ballot   wire.Ballot
	log      []string // every command, stamped with the virtual time
	fail     Verb     // a verb whose commands fail
	worst    int      // the most replicas impaired at once outside a crash
}

func newFakeDeployment(t *testing.T, clock *fakeClock, n int) *fakeDeployment {
	d := &fakeDeployment{t: t, clock: clock, start: clock.now, f: (n - 1) / 2, rejoin: 2 * time.Second, elect: time.Second,
		killed: map[string]bool{}, paused: map[string]bool{}, cut: map[string]bool{},
		memberAt: map[string]time.Time{}, leads: map[string]wire.Ballot{}, ballot: 1}
	for i := range n {
		d.replicas = append(d.replicas, fmt.Sprintf("replica%d", i))
	}
	d.leader = d.replicas[0]
	d.leads[d.leader] = 1
	return d
}

func (d *fakeDeployment) healthy(a string) bool {
	return !d.killed[a] && !d.paused[a] && !d.cut[a] && !d.clock.now.Before(d.memberAt[a])
}

func (d *fakeDeployment) States(context.Context) []ReplicaState {
	if d.leader == "" && !d.clock.now.Before(d.electAt) {
		for _, a := range d.replicas {
			if d.healthy(a) {
				d.ballot++
				d.leader = a
				d.leads[a] = d.ballot
				break
			}
		}
	}
	var out []ReplicaState
	for _, a := range d.replicas {
		s := ReplicaState{Alias: a}
		if !d.killed[a] && !d.paused[a] {
			s.Answered, s.Member = true, !d.clock.now.Before(d.memberAt[a])
			_, s.Leader = d.leads[a]
			s.Ballot = d.leads[a]
		}
		out = append(out, s)
	}
	return out
}

func (d *fakeDeployment) lose(a string) {
	if a == d.leader {
		d.leader, d.electAt = "", d.clock.now.Add(d.elect)
	}
}

func (d *fakeDeployment) Do(c Command) error {
	d.log = append(d.log, fmt.Sprintf("%v %s", d.clock.now.Sub(d.start), c))
	if c.Verb == d.fail {
		return fmt.Errorf("%s: %w", c, errors.New("refused"))
	}
	a := ""
	if len(c.Args) > 0 {
		a = c.Args[0]
	}
	switch c.Verb {
	case VerbKill:
		d.killed[a] = true
		delete(d.leads, a)
		d.lose(a)
	case VerbWipe:
		if !d.killed[a] {
			return fmt.Errorf("%s: %s is running", c, a)
		}
	case VerbStart:
		d.killed[a] = false
		d.memberAt[a] = d.clock.now.Add(d.rejoin)
	case VerbStop:
		d.paused[a] = true
		d.lose(a)
	case VerbCont:
		d.paused[a] = false
	case VerbCut:
		d.cut[c.Args[1]] = true
		d.lose(c.Args[1])
	case VerbHeal:
		d.cut[c.Args[1]] = false
	}
	// Right after a replica fault took effect (it is recorded then).
	if c.Verb == VerbBegin && Kind(c.Args[1]).impairsReplica() {
		n := 0
		for _, r := range d.replicas {
			if !d.healthy(r) {
				n++
			}
		}
		d.worst = max(d.worst, n)
	}
	return nil
}

func runPlan(t *testing.T, d *fakeDeployment, p *Plan) (Stats, error) {
	start := d.clock.now
	var log strings.Builder
	st, err := Run(context.Background(), RunnerOptions{
		Plan: p, Replicas: d.replicas, Clients: []string{"client0", "client1", "client2"}, Start: start,
		Hands: d, Cluster: d, Clock: d.clock, Log: &log,
	})
	t.Log("\n" + log.String())
	return st, err
}

// TestRunnerHealsEverythingWithinF runs drawn plans against the fake
// deployment: every fault begun and healed is recorded, in order, by the
// horizon, and never more than f replicas are impaired at once, counting
// a restarted replica until it is a member again.
func TestRunnerHealsEverythingWithinF(t *testing.T) {
	for _, n := range []int{3, 5} {
		for seed := range uint64(20) {
			clock := &fakeClock{now: time.Unix(1000, 0)}
			d := newFakeDeployment(t, clock, n)
			o := options(seed, "kill,restart,wipe,pause,partition,crash-all,client", n, true)
			p, err := Draw(o)
			require.NoError(t, err)
			st, err := runPlan(t, d, p)
			require.NoError(t, err)
			assert.LessOrEqual(t, d.worst, d.f, "n %d seed %d: more than f impaired", n, seed)
			begun, ended := map[string]bool{}, map[string]bool{}
			for _, l := range d.log {
				w := strings.Fields(l)
				switch Verb(w[1]) {
				case VerbBegin:
					begun[w[2]] = true
				case VerbEnd:
					assert.True(t, begun[w[2]], "end before begin: %s", l)
					ended[w[2]] = true
				}
			}
			for _, f := range p.Faults {
				id := fmt.Sprint(f.ID)
				if begun[id] && f.Heals() {
					assert.True(t, ended[id], "n %d seed %d: fault %d begun, never healed", n, seed, f.ID)
				}
			}
			assert.False(t, clock.now.After(time.Unix(1000, 0).Add(o.Horizon())), "healed after the horizon")
			total := 0
			for _, c := range st.Started {
				total += c
			}
			assert.Positive(t, total)
		}
	}
}

// plan1 is a plan of hand-made faults over a minute on three replicas.
func plan1(fs ...Fault) *Plan {
	for i := range fs {
		fs[i].ID = FaultID(i + 1)
	}
	return &Plan{Options: Options{Kinds: Kinds{Kill, Restart, Pause, Partition, Client}, Every: time.Second,
		Run: time.Minute, Replicas: 3, Clients: 3}, Faults: fs}
}

// TestRunnerWaitsForARestartedReplica: a fault planned while the replica
// killed before is still catching up starts once it is a member again.
func TestRunnerWaitsForARestartedReplica(t *testing.T) {
	d := newFakeDeployment(t, &fakeClock{now: time.Unix(1000, 0)}, 3)
	d.rejoin = 3 * time.Second
	p := plan1(
		Fault{Kind: Kill, At: 2 * time.Second, For: time.Second, Target: Follower, Restart: true},
		Fault{Kind: Pause, At: 3500 * time.Millisecond, For: time.Second, Target: Follower, Pick: 1},
	)
	_, err := runPlan(t, d, p)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"2s kill replica1", "2s begin 1 kill replica1 follower",
		"3s start replica1", "3s end 1",
		"6s stop replica2", "6s begin 2 pause replica2 follower",
		"7s cont replica2", "7s end 2",
	}, trimClock(d.log))
}

// TestRunnerWipesAKilledReplica: a wipe kills the replica, then empties
// its data directory, and starts it again at the heal; it counts against
// f until it is a member again.
func TestRunnerWipesAKilledReplica(t *testing.T) {
	d := newFakeDeployment(t, &fakeClock{now: time.Unix(1000, 0)}, 3)
	d.rejoin = 3 * time.Second
	p := plan1(
		Fault{Kind: Wipe, At: 2 * time.Second, For: time.Second, Target: Follower, Restart: true},
		Fault{Kind: Pause, At: 3500 * time.Millisecond, For: time.Second, Target: Follower, Pick: 1},
	)
	p.Kinds, p.Durable = Kinds{Wipe, Pause}, true
	_, err := runPlan(t, d, p)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"2s kill replica1", "2s wipe replica1", "2s begin 1 wipe replica1 follower",
		"3s start replica1", "3s end 1",
		"6s stop replica2", "6s begin 2 pause replica2 follower",
		"7s cont replica2", "7s end 2",
	}, trimClock(d.log))
}

// trimClock rounds the log's instants to the second (the retries land
// between whole ones).
func trimClock(log []string) []string {
	out := make([]string, len(log))
	for i, l := range log {
		at, rest, _ := strings.Cut(l, " ")
		d, err := time.ParseDuration(at)
		if err != nil {
			panic(err)
		}
		out[i] = d.Truncate(time.Second).String() + " " + rest
	}
	return out
}

// TestRunnerTakesTheLeaderThatLeads: after the leader is paused, a new
// one is elected; a fault on "the leader" takes the new one, not the
// paused replica that still believes it leads.
func TestRunnerTakesTheLeaderThatLeads(t *testing.T) {
	d := newFakeDeployment(t, &fakeClock{now: time.Unix(1000, 0)}, 5)
	p := plan1(
		Fault{Kind: Pause, At: 2 * time.Second, For: 5 * time.Second, Target: Leader},
		Fault{Kind: Partition, At: 3 * time.Second, For: time.Second, Target: Leader, Shape: LeaderCut, Mode: Close},
	)
	p.Replicas = 5
	_, err := runPlan(t, d, p)
	require.NoError(t, err)
	assert.Contains(t, d.log[1], "begin 1 pause replica0 leader")
	// The election takes a second: the partition waits for it.
	assert.Contains(t, d.log[2], "cut -isolate replica1 -from replicas -mode close")
	assert.Contains(t, d.log[3], "begin 2 partition replica1 leader:leader-cut:close")
	assert.Contains(t, d.log[4], "heal -isolate replica1 -from replicas")
}

// TestRunnerCutsADeafLeader: a deaf partition holds what the replicas
// send the leader, and its heal lets it through.
func TestRunnerCutsADeafLeader(t *testing.T) {
	d := newFakeDeployment(t, &fakeClock{now: time.Unix(1000, 0)}, 3)
	p := plan1(Fault{Kind: Partition, At: 2 * time.Second, For: time.Second, Target: Leader, Shape: Deaf, Mode: Hold})
	_, err := runPlan(t, d, p)
	require.NoError(t, err)
	require.Len(t, d.log, 4, "%q", d.log)
	assert.Contains(t, d.log[1], "begin 1 partition replica0 leader:deaf:hold")
	assert.Contains(t, d.log[0], "cut -isolate replica0 -deaf")
	assert.NotContains(t, d.log[0], "-mode")
	assert.Contains(t, d.log[2], "heal -isolate replica0 -deaf")
}

// TestRunnerSkipsWhatCannotStart: with no leader ever elected, a fault
// on the leader is skipped MaxDelay after its instant, and the launcher
// is told why; the next fault still runs.
func TestRunnerSkipsWhatCannotStart(t *testing.T) {
	d := newFakeDeployment(t, &fakeClock{now: time.Unix(1000, 0)}, 3)
	d.elect = time.Hour
	p := plan1(
		Fault{Kind: Kill, At: 2 * time.Second, Target: Leader},
		Fault{Kind: Pause, At: 3 * time.Second, For: time.Second, Target: Leader},
		Fault{Kind: Client, At: 4 * time.Second, Pick: 4},
	)
	st, err := runPlan(t, d, p)
	require.NoError(t, err)
	assert.Equal(t, map[Kind]int{Pause: 1}, st.Skipped)
	assert.Equal(t, map[Kind]int{Kill: 1, Client: 1}, st.Started)
	require.Len(t, d.log, 5)
	assert.Contains(t, d.log[2], "skip 2 pause f = 1 replica(s) already impaired: replica0 (fault 1)")
	assert.Contains(t, d.log[3], "kill-client client1")
	assert.Contains(t, d.log[4], "begin 3 client client1 -")
}

// TestRunnerStopsOnAFailedCommand: a command the launcher could not
// carry out ends the run with its reason.
func TestRunnerStopsOnAFailedCommand(t *testing.T) {
	d := newFakeDeployment(t, &fakeClock{now: time.Unix(1000, 0)}, 3)
	d.fail = VerbStop
	_, err := runPlan(t, d, plan1(Fault{Kind: Pause, At: 2 * time.Second, For: time.Second, Target: Follower}))
	require.Error(t, err)
	assert.Equal(t, "stop replica1: refused", err.Error())
}

func TestLineHands(t *testing.T) {
	for _, c := range []struct {
		answer, err string
	}{
		{"ok\n", ""},
		{"fail replica1 is not running\n", "kill replica1: replica1 is not running"},
		{"yes\n", `kill replica1: the launcher answered "yes", want ok or fail REASON`},
		{"", "kill replica1: the launcher closed the connection"},
	} {
		var out strings.Builder
		err := NewLineHands(strings.NewReader(c.answer), &out).Do(Command{VerbKill, []string{"replica1"}})
		assert.Equal(t, "kill replica1\n", out.String())
		if c.err == "" {
			assert.NoError(t, err)
		} else {
			assert.EqualError(t, err, c.err)
		}
	}
	err := NewLineHands(strings.NewReader("ok\n"), &strings.Builder{}).Do(Command{VerbSkip, []string{"1", "two words"}})
	assert.EqualError(t, err, `skip: argument "two words" is empty or holds a blank`)
}
