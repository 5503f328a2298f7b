package resp_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"swiftpaxos/check"
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// The acceptance run of the RESP front-end (issue 30): go-redis
// connections spread over the three front-ends, half of them weak, run a
// seeded mix of SET, GET, DEL, INCR and compare-and-set on a few keys
// while the leader is killed; what they saw is checked, with the
// replicas' applied logs, by the project's checker.

var histSeed = flag.Uint64("resp.seed", 0, "seed of TestHistoryLeaderKilled's workload (0: from the clock)")

const (
	histWorkers = 8
	histKeys    = 10
	histOps     = 150 // commands per worker, over all its sessions
)

// histSettings keep a failover short: the leader's death is noticed in
// a few heartbeats and a view starts within the election timeout, well
// inside replyTimeout (whole seconds), so the commands that wait for it
// are answered rather than timed out.
const histSettings = `heartbeatMs: 10
electionTimeoutMs: 100-200
retryMs: 200
replyTimeout: 2
checkerMode: true
`

// goRedisReadTimeout is longer than replyTimeout: a live front-end always
// answers first (at worst TIMEOUT), so go-redis gives up on a connection
// only when the front-end is gone.
const goRedisReadTimeout = 4 * time.Second

func TestHistoryLeaderKilled(t *testing.T) {
	seed := *histSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	for i, protocol := range []string{"curpht", "curpho"} {
		t.Run(protocol, func(t *testing.T) {
			s := seed + uint64(i)
			t.Logf("seed %d (replay: go test ./client/resp -run 'TestHistoryLeaderKilled/%s' -resp.seed %d)", s, protocol, seed)
			historyRun(t, protocol, s)
		})
	}
}

// run is what the workers of one run share.
type run struct {
	c    *cluster
	base time.Time // the clock of every record: ns since base, plus one
	// sessions numbers the sessions (go-redis connections) of the run.
	sessions atomic.Int64
	dead     [3]atomic.Bool
	done     atomic.Int64 // commands finished, any outcome
	killAt   int64
	killedNS atomic.Int64 // when the leader was stopped, on the run's clock
	kill     chan struct{}
	killOnce sync.Once
}

func (r *run) now() int64 { return int64(time.Since(r.base)) + 1 }

// histOp is one command as its client saw it.
type histOp struct {
	session  int64 // the run's number of its session
	seq      wire.Seq
	level    check.Level
	cmd      kvs.Command
	res      kvs.Result
	ok       bool   // completed with a known result
	unknown  bool   // a weak DEL that answered 1: existed, or not known
	outcome  string // why a pending one has no known return
	inv, ret int64
}

func historyRun(t *testing.T, protocol string, seed uint64) {
	start := time.Now()
	dir := t.TempDir()
	c := startClusterLogs(t, protocol, histSettings, dir)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	r := &run{c: c, base: time.Now(), killAt: histWorkers * histOps / 2, kill: make(chan struct{})}

	ws := make([]*worker, histWorkers)
	for i := range ws {
		ws[i] = &worker{r: r, id: i, replica: i % 3, weak: i%2 == 1,
			rng: rand.New(rand.NewPCG(seed, uint64(i))), last: map[string]string{}}
	}
	killed := make(chan killReport, 1)
	go func() { killed <- r.killLeader(ctx) }()
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Go(func() { w.work(ctx) })
	}
	wg.Wait()
	k := <-killed
	require.NoError(t, k.err, "killing the leader")
	for _, w := range ws {
		w.drop()
	}
	outcomes := map[string]int{}
	after := 0
	for _, w := range ws {
		for _, o := range w.ops {
			if o.outcome != "" {
				outcomes[o.outcome]++
			}
			if o.inv > r.killedNS.Load() {
				after++
			}
		}
	}
	t.Logf("workload: %d commands in %v, %d invoked after the kill; killed %s after %d commands, %s started a view %v later; pending: %v",
		r.done.Load(), time.Since(start).Round(time.Millisecond), after, k.alias, r.killAt, k.next, k.elected.Round(time.Millisecond), outcomes)

	survivors := []int{}
	for i := range 3 {
		if !r.dead[i].Load() {
			survivors = append(survivors, i)
		}
	}
	settle(t, ctx, c, survivors)
	for _, i := range survivors {
		c.stop[i]()
		<-c.done[i]
	}
	var ops []histOp
	for _, w := range ws {
		ops = append(ops, w.ops...)
	}
	checkHistory(t, dir, ops)
	t.Logf("run took %v", time.Since(start).Round(time.Millisecond))
}

type killReport struct {
	alias, next string
	elected     time.Duration
	err         error
}

// killLeader waits until half the commands are done, stops the replica
// the front-ends name as leader, and waits for another to start a view.
func (r *run) killLeader(ctx context.Context) killReport {
	select {
	case <-r.kill:
	case <-ctx.Done():
		return killReport{err: ctx.Err()}
	}
	rc := redis.NewClient(&redis.Options{Addr: r.c.resp[1], Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	info, err := rc.Info(ctx, "replication").Result()
	rc.Close()
	if err != nil {
		return killReport{err: err}
	}
	var alias string
	for _, l := range strings.Split(info, "\r\n") {
		if a, ok := strings.CutPrefix(l, "leader:"); ok {
			alias = a
		}
	}
	i, ok := r.c.cfg.ReplicaIndex(alias)
	if !ok {
		return killReport{err: fmt.Errorf("INFO names no leader: %q", info)}
	}
	for len(r.c.elected) > 0 { // views started before the kill
		<-r.c.elected
	}
	r.dead[i].Store(true)
	killedAt := time.Now()
	r.killedNS.Store(r.now())
	r.c.stop[i]()
	<-r.c.done[i]
	for {
		select {
		case next := <-r.c.elected:
			if next != alias {
				return killReport{alias: alias, next: next, elected: time.Since(killedAt)}
			}
		case <-ctx.Done():
			return killReport{alias: alias, err: fmt.Errorf("no view started after %s was killed: %w", alias, ctx.Err())}
		}
	}
}
