package client

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// proposals lists, per Seq, the replicas a core sent a Propose to since
// the last call, "L" marking a leader read.
func proposals(c *Core) map[wire.Seq][]string {
	out := map[wire.Seq][]string{}
	for _, e := range c.Ready().Messages {
		if m, ok := e.Msg.(*wire.Propose); ok {
			to := fmt.Sprint(e.To)
			if m.LeaderRead {
				to += "L"
			}
			out[m.Cmd.Seq] = append(out[m.Cmd.Seq], to)
		}
	}
	return out
}

func leaderReadCore(t *testing.T) (*Core, *int64) {
	now := new(int64)
	c, err := NewCore(Options{ID: 9, N: 3, Leader: 0, Nearest: 2, Policy: commitPolicy{}, Now: func() int64 { return *now },
		RetryAfter: time.Second, LeaderReads: true})
	require.NoError(t, err)
	return c, now
}

// With LeaderReads a strong read goes to the leader alone, marked; a
// write, to every replica. After silence the read goes to every replica,
// unmarked: the leader may be gone. A redirect makes it a leader read
// again, at the new leader.
func TestLeaderReadSentToLeaderAlone(t *testing.T) {
	c, now := leaderReadCore(t)
	r := c.Invoke(Op{Level: Strong, Command: get("k")})
	w := c.Invoke(Op{Level: Strong, Command: put("j")})
	require.Equal(t, map[wire.Seq][]string{r: {"0L"}, w: {"0", "1", "2"}}, proposals(c))
	*now += int64(time.Second)
	c.Tick()
	require.Equal(t, map[wire.Seq][]string{r: {"0", "1", "2"}, w: {"0", "1", "2"}}, proposals(c))
	c.Step(1, &wire.NotLeader{Ballot: 1, Leader: 2, Cmd: c.CmdID(r)})
	require.Equal(t, map[wire.Seq][]string{r: {"2L"}}, proposals(c))
}

// An ordered write behind a leader read of its key waits until the read
// completes: the read has no slot to name as its barrier dependency.
func TestOrderedWriteHeldBehindLeaderRead(t *testing.T) {
	c, _ := leaderReadCore(t)
	r := c.Invoke(Op{Level: Strong, Command: get("k"), Ordered: true})
	w := c.Invoke(Op{Level: Strong, Command: put("k"), Ordered: true})
	require.Equal(t, map[wire.Seq][]string{r: {"0L"}}, proposals(c))
	c.Step(0, &wire.SyncReply{Replica: 0, Cmd: c.CmdID(r)})
	require.Equal(t, map[wire.Seq][]string{w: {"0", "1", "2"}}, proposals(c))
}

// A read re-sent to every replica after silence will hold a slot: an
// ordered write behind it is sent at once, naming it.
func TestOrderedWriteFollowsReadResentToAll(t *testing.T) {
	c, now := leaderReadCore(t)
	r := c.Invoke(Op{Level: Strong, Command: get("k"), Ordered: true})
	require.Equal(t, map[wire.Seq][]string{r: {"0L"}}, proposals(c))
	*now += int64(time.Second)
	c.Tick()
	require.Equal(t, map[wire.Seq][]string{r: {"0", "1", "2"}}, proposals(c))
	w := c.Invoke(Op{Level: Strong, Command: put("k"), Ordered: true})
	var dep wire.Seq
	for _, e := range c.Ready().Messages {
		if m, ok := e.Msg.(*wire.Propose); ok && m.Cmd.Seq == w {
			dep = m.WeakDep
		}
	}
	require.Equal(t, r, dep)
}

// With LeaderWrites a strong write goes to the leader alone (it has a
// slot: nothing marks it), a read to every replica. After silence the
// write goes to every replica: the leader may be gone. A new view sends
// it to the new leader alone.
func TestLeaderWriteSentToLeaderAlone(t *testing.T) {
	now := new(int64)
	c, err := NewCore(Options{ID: 9, N: 3, Leader: 0, Nearest: 2, Policy: commitPolicy{}, Now: func() int64 { return *now },
		RetryAfter: time.Second, LeaderWrites: true})
	require.NoError(t, err)
	w := c.Invoke(Op{Level: Strong, Command: put("j")})
	r := c.Invoke(Op{Level: Strong, Command: get("k")})
	weak := c.Invoke(Op{Level: Weak, Command: put("k")})
	got := proposals(c)
	require.Equal(t, []string{"0"}, got[w])
	require.Equal(t, []string{"0", "1", "2"}, got[r])
	require.NotContains(t, got, weak, "a weak write takes its protocol's way")
	*now += int64(time.Second)
	c.Tick()
	require.Equal(t, []string{"0", "1", "2"}, proposals(c)[w])
	c.Step(2, &wire.NewView{Ballot: 1, Leader: 2, ViewStart: 1})
	got = proposals(c)
	require.Equal(t, []string{"2"}, got[w])
	require.ElementsMatch(t, []string{"0", "1", "2"}, got[r], "the leader first")
}

// A write sent to the leader alone has no acknowledgements: the leader's
// speculative reply completes nothing, its SyncReply, once the write is
// committed, completes it on the slow path.
func TestLeaderWriteCompletesWithItsSyncReply(t *testing.T) {
	c, err := NewCore(Options{ID: 9, N: 3, Leader: 0, Nearest: 2, Policy: commitPolicy{}, Now: func() int64 { return 0 },
		RetryAfter: time.Second, LeaderWrites: true})
	require.NoError(t, err)
	w := c.Invoke(Op{Level: Strong, Command: put("j")})
	require.Equal(t, []string{"0"}, proposals(c)[w])
	c.Step(0, &wire.LeaderReply{Replica: 0, Cmd: c.CmdID(w), Ok: true, Slot: 1})
	require.Empty(t, c.Ready().Completed, "a speculative reply without acknowledgements")
	c.Step(0, &wire.SyncReply{Replica: 0, Cmd: c.CmdID(w), Slot: 1})
	done := c.Ready().Completed
	require.Len(t, done, 1)
	require.Equal(t, PathSlow, done[0].Path)
	require.Equal(t, kvs.Slot(1), done[0].Slot)
}
