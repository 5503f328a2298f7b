package resp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swiftpaxos/check"
	"swiftpaxos/client/statuscli"
	"swiftpaxos/wire"
)

// settle waits until every surviving replica has applied all it holds,
// the same commit index, and no witness record is undecided: then every
// write a client saw completed (a CURP-HO weak write is acknowledged
// before the leader orders it, a fast-path one before it commits) is in
// the applied logs, and the durability rule can hold them to it. No
// replica says when that happens, so this asks their status until it
// does (bounded by ctx), which a test may: it waits for a state, never
// for a time.
func settle(t *testing.T, ctx context.Context, c *cluster, replicas []int) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	sts := make([]*wire.StatusReply, len(replicas))
	for {
		ok := true
		for k, i := range replicas {
			st, err := statuscli.Ask(ctx, c.cfg, i)
			sts[k] = st
			ok = ok && err == nil && sts[0] != nil && st.AppliedIndex == st.CommitIndex && st.CommitIndex == st.LastSlot &&
				st.WitnessRecords == 0 && st.CommitIndex == sts[0].CommitIndex
		}
		if ok {
			return
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			for k, st := range sts {
				t.Logf("replica%d: %+v", replicas[k], st)
			}
			t.Fatalf("the surviving replicas did not settle: %v", ctx.Err())
		}
	}
}

// checkHistory turns what the clients saw into the checker's history and
// checks it with the applied logs in dir.
func checkHistory(t *testing.T, dir string, seen []histOp) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "log-*.jsonl"))
	require.NoError(t, err)
	logs := map[string][]check.LogEntry{}
	for _, p := range paths {
		l, err := check.ReadLogFile(p)
		require.NoError(t, err)
		logs[strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "log-"), ".jsonl")] = l
	}
	require.Len(t, logs, 3, "an applied log per replica")
	ids := sessionIDs(t, logs)

	h := make([]check.Op, 0, len(seen))
	var pending, weak int
	for _, o := range seen {
		name, ok := ids[o.session]
		if !ok {
			// Nothing of the session reached a log: its first SET never
			// completed (the session was then dropped).
			name = check.SessionID("unlogged-" + strconv.FormatInt(o.session, 10))
		}
		base := check.Op{Session: name, Seq: o.seq, Level: o.level, InvokeNS: o.inv, OK: o.ok}
		if o.ok {
			base.ReturnNS = o.ret
		}
		rec := check.Record(base, o.cmd, o.res)
		if o.ok && o.unknown {
			rec.Found, rec.FoundUnknown = false, true
		}
		h = append(h, rec)
		if !o.ok {
			pending++
		}
		if o.level == check.Weak {
			weak++
		}
	}
	rep := check.Check(h, logs, check.Options{})
	t.Logf("checked %d operations (%d weak, %d pending) of %d sessions against %d applied logs (%s): OK %v",
		rep.Checked, weak, pending, len(ids), len(logs), logSizes(logs), rep.OK())
	for _, s := range rep.Skipped {
		t.Logf("not checked: %s", s)
	}
	if rep.OK() {
		return
	}
	keep, err := os.MkdirTemp("", "resp-history-")
	require.NoError(t, err)
	require.NoError(t, check.WriteHistoryFile(filepath.Join(keep, "history.jsonl"), h))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(keep, filepath.Base(p)), b, 0o644))
	}
	t.Errorf("the checker found violations (the history and the applied logs are kept in %s):\n%s", keep, rep)
}

// sessionIDs maps the run's session numbers to the ids the replicas log:
// every value a session writes names it (worker.value).
func sessionIDs(t *testing.T, logs map[string][]check.LogEntry) map[int64]check.SessionID {
	ids := map[int64]check.SessionID{}
	for name, l := range logs {
		for _, e := range l {
			if e.Kind != check.Put && e.Kind != check.CAS {
				continue
			}
			v, err := strconv.ParseInt(e.Value, 10, 64)
			if err != nil || v < 1e12 || v%1e6 != 0 {
				t.Fatalf("log %s slot %d: value %q was not written by this test", name, e.Slot, e.Value)
			}
			s := v / 1e12
			if id, ok := ids[s]; ok && id != e.Session {
				t.Fatalf("session %d's values are logged under two ids, %s and %s", s, id, e.Session)
			}
			ids[s] = e.Session
		}
	}
	return ids
}

func logSizes(logs map[string][]check.LogEntry) string {
	var b []string
	for name, l := range logs {
		b = append(b, fmt.Sprintf("%s %d", name, len(l)))
	}
	return strings.Join(b, ", ")
}
