package resp_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// quick are settings that start a cluster and replace a stopped leader in
// a fraction of a second, and let a session give up closing within one
// (the defaults take seconds: a session closed while replicas are down
// waits a retry period).
const quick = "heartbeatMs: 20\nelectionTimeoutMs: 150-300\nretryMs: 200\n"

// stopReplica stops replica i and its front-end and waits until both
// have returned.
func (c *cluster) stopReplica(t *testing.T, i int) {
	t.Helper()
	c.stop[i]()
	select {
	case <-c.done[i]:
	case <-time.After(10 * time.Second):
		t.Fatalf("replica%d did not stop within 10 s", i)
	}
}

// With two of three replicas stopped, a command is answered TIMEOUT after
// replyTimeout, not left hanging, and the connection goes on.
func TestNoMajorityIsATimeoutReply(t *testing.T) {
	const replyTimeout = time.Second
	c := startCluster(t, "curpho", quick+"replyTimeout: 1")
	ctx := t.Context()
	rc := c.client(t, 0, func(o *redis.Options) {
		o.PoolSize = 1
		o.ReadTimeout = 10 * replyTimeout // go-redis's own bound, past the test's
	})
	require.NoError(t, rc.Set(ctx, "k", "v", 0).Err())
	c.stopReplica(t, 1)
	c.stopReplica(t, 2)

	// A pipeline of a write and a read: both wait, both time out
	// together, and their replies come in order.
	start := time.Now()
	pipe := rc.Pipeline()
	set := pipe.Set(ctx, "k", "w", 0)
	get := pipe.Get(ctx, "k")
	_, _ = pipe.Exec(ctx)
	took := time.Since(start)
	for _, err := range []error{set.Err(), get.Err()} {
		var re redis.Error
		require.True(t, errors.As(err, &re), "an error reply, not %v", err)
		assert.True(t, strings.HasPrefix(err.Error(), "TIMEOUT "), "%v", err)
	}
	assert.GreaterOrEqual(t, took, replyTimeout)
	assert.Less(t, took, 3*replyTimeout)

	assert.Equal(t, "PONG", rc.Ping(ctx).Val(), "the connection goes on")
	start = time.Now()
	err := rc.Incr(ctx, "n").Err()
	assert.ErrorContains(t, err, "TIMEOUT no reply from the cluster within replyTimeout (1s)")
	assert.Less(t, time.Since(start), 3*replyTimeout)
}

// Clients of the two followers keep writing and reading while the leader
// is stopped: during the failover a command may be answered
// with an error (TIMEOUT, or ERR), never left hanging and never by a
// closed connection; once a new leader's view has started, every command
// succeeds. Each client's INCRs of its own counter return increasing
// values throughout.
func TestLeaderKilledUnderLoad(t *testing.T) {
	const replyTimeout = time.Second
	// Elections a little slower than quick's, so that a slow start (the
	// race detector) does not elect anew while the test runs.
	c := startCluster(t, "curpht", "heartbeatMs: 50\nelectionTimeoutMs: 300-600\nretryMs: 200\nreplyTimeout: 1")
	ctx := t.Context()
	// The leader, as the replicas see it: replica0 leads ballot 0, but a
	// slow start may have elected another already.
	var leader int
	for i := range 3 {
		m := regexp.MustCompile(`leader:replica(\d)\r\n`).FindStringSubmatch(c.client(t, i).Info(ctx, "replication").Val())
		require.NotNil(t, m, "replica%d names no leader", i)
		if i == 0 {
			leader = int(m[1][0] - '0')
		}
		require.Equal(t, "replica"+strconv.Itoa(leader), "replica"+m[1], "replica%d names another leader", i)
	}
	followers := []int{(leader + 1) % 3, (leader + 2) % 3}
	for len(c.elected) > 0 {
		<-c.elected
	}

	const workers = 4
	var started sync.WaitGroup // until every worker has completed 20 commands
	started.Add(workers)
	var mu sync.Mutex
	var after time.Time // when the new view started
	type outcome struct {
		worker   int
		start    time.Time
		took     time.Duration
		cmd, err string
		reply    bool // the error is a reply from the front-end
	}
	var failures []outcome
	var before [workers]int // commands completed before the new view
	enough := make(chan struct{}, workers)
	stop := make(chan struct{})
	halt := sync.OnceFunc(func() { close(stop) })
	var wg sync.WaitGroup
	for w := range workers {
		level := "strong"
		if w == workers-1 {
			level = "weak"
		}
		rc := c.client(t, followers[w%2], func(o *redis.Options) {
			o.PoolSize = 1
			o.ReadTimeout = 10 * replyTimeout
			o.OnConnect = func(ctx context.Context, cn *redis.Conn) error { return cn.Do(ctx, "LEVEL", level).Err() }
		})
		wg.Go(func() {
			key, counter := fmt.Sprintf("load:%d", w), fmt.Sprintf("load:%d:n", w)
			var last int64
			okAfter := 0
			signalled := false
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var cmd redis.Cmder
				switch i % 3 {
				case 0:
					cmd = rc.Set(ctx, key, strconv.Itoa(i), 0)
				case 1:
					cmd = rc.Get(ctx, key)
				case 2:
					cmd = rc.Incr(ctx, counter)
				}
				start := time.Now()
				err := cmd.Err()
				took := time.Since(start)
				if errors.Is(err, redis.Nil) {
					err = nil // a GET before the first SET applied
				}
				if i == 19 {
					started.Done()
				}
				mu.Lock()
				failover := after
				mu.Unlock()
				if err != nil {
					var re redis.Error
					mu.Lock()
					failures = append(failures, outcome{w, start, took, cmd.Name(), err.Error(), errors.As(err, &re)})
					mu.Unlock()
					if !errors.As(err, &re) {
						return // the connection is broken; the checks below say so
					}
					continue
				}
				if incr, ok := cmd.(*redis.IntCmd); ok {
					if incr.Val() <= last {
						mu.Lock()
						failures = append(failures, outcome{w, start, took, "INCR", fmt.Sprintf("returned %d after %d", incr.Val(), last), false})
						mu.Unlock()
					}
					last = incr.Val()
				}
				if failover.IsZero() {
					before[w]++
				} else if start.After(failover) {
					if okAfter++; okAfter == 30 && !signalled {
						signalled = true
						enough <- struct{}{}
					}
				}
			}
		})
	}
	defer func() {
		halt()
		wg.Wait()
	}()

	started.Wait()
	c.stopReplica(t, leader)
	select {
	case alias := <-c.elected:
		mu.Lock()
		after = time.Now()
		mu.Unlock()
		t.Logf("%s started a view", alias)
	case <-time.After(10 * time.Second):
		t.Fatal("no new view within 10 s of stopping the leader")
	}
	for range workers {
		select {
		case <-enough:
		case <-time.After(15 * time.Second):
			t.Fatal("a client did not complete 30 commands within 15 s of the new view")
		}
	}
	halt()
	wg.Wait()

	mu.Lock()
	defer mu.Unlock()
	for _, f := range failures {
		assert.True(t, f.reply, "worker %d: %s: %s: not an error reply (a dropped connection or a client timeout)", f.worker, f.cmd, f.err)
		assert.Less(t, f.took, 3*replyTimeout, "worker %d: %s took %v", f.worker, f.cmd, f.took)
		assert.True(t, strings.HasPrefix(f.err, "TIMEOUT ") || strings.HasPrefix(f.err, "ERR "), "worker %d: %s: %s", f.worker, f.cmd, f.err)
		assert.False(t, f.start.After(after), "worker %d: %s, started %v after the new view, failed: %s",
			f.worker, f.cmd, f.start.Sub(after), f.err)
	}
	t.Logf("commands before the new view, by client: %v; error replies during the failover: %d", before, len(failures))
}
