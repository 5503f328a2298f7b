package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"

	"swiftpaxos/config"
	"swiftpaxos/replica/server"
)

// starter starts the replicas of one configuration one by one, in this
// process, and reports the log lines that say how each joined.
type starter struct {
	t      *testing.T
	cfg    *config.Config
	ctx    context.Context
	wg     sync.WaitGroup
	joined chan string // "ALIAS: MESSAGE" of the lines below, and "ALIAS: member"
	// learners counts the replicas awaitMembers saw join as learners.
	learners int
}

func newStarter(t *testing.T, conf string) *starter {
	cfg, err := config.Load(conf)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	s := &starter{t: t, cfg: cfg, ctx: ctx, joined: make(chan string, 32)}
	t.Cleanup(func() { cancel(); s.wg.Wait() })
	return s
}

// start runs replica i, as -cluster new when isNew.
func (s *starter) start(i int, isNew bool) {
	alias := fmt.Sprintf("replica%d", i)
	hook := zap.Hooks(func(e zapcore.Entry) error {
		switch {
		case e.Message == "cluster bootstrapped", e.Message == "rejoined as a full member":
			s.joined <- alias + ": " + e.Message
			s.joined <- alias + ": member"
		case e.Message == "joining as a learner: a replica that holds state answered":
			s.joined <- alias + ": " + e.Message
		case strings.HasPrefix(e.Message, "the replica's state is in memory only") && e.Level == zapcore.InfoLevel:
			s.joined <- alias + ": in memory only"
		}
		return nil
	})
	listening := make(chan struct{})
	s.wg.Go(func() {
		err := server.Serve(s.ctx, server.Options{Config: s.cfg, Alias: alias, Policy: protocols[string(s.cfg.Protocol)].replica,
			ClusterNew: isNew, Ready: func(net.Addr) { close(listening) },
			Log: zaptest.NewLogger(s.t, zaptest.WrapOptions(hook)).Named(alias)})
		if s.ctx.Err() == nil {
			s.t.Errorf("%s stopped: %v", alias, err)
		}
	})
	<-listening
}

// await waits for the given "ALIAS: MESSAGE" lines, in any order.
func (s *starter) await(lines ...string) {
	s.t.Helper()
	want := map[string]bool{}
	for _, l := range lines {
		want[l] = true
	}
	for len(want) > 0 {
		got := <-s.joined
		delete(want, got)
	}
}

// Issue 28: two of three replicas of a new in-memory cluster, started as
// new ones, found it and serve; status says what the cluster waits for
// before, and the third, started later, joins it as a learner and becomes
// a member.
func TestMajorityOfNewReplicasServes(t *testing.T) {
	conf := kvConf(t, "curpht")
	s := newStarter(t, conf)
	s.start(0, true)
	s.await("replica0: in memory only")
	code, out, errs := runStatus(t, conf)
	assert.Equal(t, 1, code, "one replica of three answered")
	assert.Equal(t, "founding", statusRoles(t, out)["replica0"], out)
	assert.Contains(t, out, "\n  waiting for a majority to found the cluster: 1 of 3 up (replica0), 1 started with -cluster new (replica0), a majority needs 2\n")
	assert.Contains(t, errs, "1 of 3 replicas answered, a majority needs 2")

	s.start(1, true)
	s.await("replica1: in memory only", "replica0: member", "replica1: member")
	code, out, errs = runKV("", "-config", conf, "-timeout", "10s", "put", "7", "founded")
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "OK\n", out)
	code, out, errs = runKV("", "-config", conf, "-timeout", "10s", "get", "7")
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "founded\n", out)

	s.start(2, false)
	s.await("replica2: in memory only", "replica2: joining as a learner: a replica that holds state answered", "replica2: rejoined as a full member")
	code, out, _ = runStatus(t, conf)
	require.Equal(t, 0, code)
	roles := statusRoles(t, out)
	assert.Equal(t, map[string]string{"replica0": "leader", "replica1": "follower", "replica2": "follower"}, roles, out)
	assert.NotContains(t, out, "no leader")
	code, out, errs = runKV("", "-config", conf, "-timeout", "10s", "-alias", "client0", "weak", "get", "7")
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "founded\n", out)
}

// Replicas started without -cluster new found a cluster only with every
// replica: status says so, and names the flag, never a restart.
func TestExistingReplicasWaitForEveryone(t *testing.T) {
	conf := kvConf(t, "curpho")
	s := newStarter(t, conf)
	s.start(0, false)
	s.start(1, false)
	code, out, _ := runStatus(t, conf)
	assert.Equal(t, 0, code, "two of three answered")
	roles := statusRoles(t, out)
	assert.Equal(t, "founding", roles["replica0"], out)
	assert.Equal(t, "founding", roles["replica1"], out)
	assert.Contains(t, out, "\n  waiting for every replica to found the cluster: 2 of 3 up (replica0, replica1); start the others (a replica that was never a member may be started with -cluster new")
	assert.NotContains(t, out, "learners")
	assert.NotContains(t, out, "restart the whole cluster")

	s.start(2, false)
	// Each founds the cluster, or, having heard a member that is the
	// leader in service, joins it through the leader's mark. Replicas
	// started this way found only when their answers cross before any of
	// them bootstraps (docs/DECISIONS.md 37): one that hears a member
	// first becomes a learner, and when the initial leader is among the
	// learners, no member can be elected and the cluster stays unfounded.
	// Either way status must say what the operator sees.
	if s.awaitMembers(3, 30*time.Second) {
		code, out, errs := runKV("", "-config", conf, "-timeout", "10s", "put", "7", "v")
		require.Equal(t, 0, code, errs)
		assert.Equal(t, "OK\n", out)
		return
	}
	require.NotZero(t, s.learners, "no replica became a learner, yet not every replica is a member 30 s after the last started")
	code, out, _ = runStatus(t, conf)
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "no leader: none of the 3 replicas that answered leads", out)
	assert.Contains(t, out, "started without state after the cluster was founded", out)
	assert.Contains(t, out, "restart the whole cluster", out)
}

// awaitMembers waits until n replicas are members, counting the replicas
// that became learners meanwhile (s.learners); false if within d they
// were not. The bound is not a synchronisation: a cluster that lost its
// founding race never completes, and the caller checks that it did lose
// it.
func (s *starter) awaitMembers(n int, d time.Duration) bool {
	s.t.Helper()
	deadline := time.After(d)
	members := 0
	for members < n {
		select {
		case got := <-s.joined:
			switch {
			case strings.HasSuffix(got, ": member"):
				members++
			case strings.HasSuffix(got, ": joining as a learner: a replica that holds state answered"):
				s.learners++
			}
		case <-deadline:
			return false
		}
	}
	return true
}

// -cluster takes new or existing, and only for a replica.
func TestClusterFlag(t *testing.T) {
	conf := kvConf(t, "curpht")
	code, _, errs := runKV("", "-config", conf, "-cluster", "new", "get", "7")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "-cluster")
	var out, errb bytes.Buffer
	code = run([]string{"-run", "server", "-config", conf, "-alias", "replica0", "-cluster", "fresh"}, strings.NewReader(""), &out, &errb)
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "swiftpaxos: -cluster must be new or existing, not \"fresh\"\n(swiftpaxos -h prints the usage)\n", errb.String())
}
