package replica

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/replica/storage"
	"swiftpaxos/wire"
)

// durableFollower is replica id of n, durable, following leader 0 in
// ballot 0 in incarnation life, on disk d (restored from it if it holds
// anything), with what it wrote so far on d.
func durableFollower(t *testing.T, id wire.ReplicaID, n int, life uint64, d *storage.Mem, m Mutation) *testCore {
	t.Helper()
	st, err := d.State()
	require.NoError(t, err)
	c := newStepCore(t, id, n, func(o *Options) {
		o.Durable, o.Incarnation, o.Mutation, o.Restore = true, life, m, st
		o.StartAsMember = st.Empty()
	})
	require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0}))
	persistTo(c, d)
	c.out.discard()
	return c
}

// persistTo applies the batch of c's next Ready to d, and returns the
// Ready.
func persistTo(c *testCore, d *storage.Mem) Ready {
	rd := c.Ready()
	if rd.Persist != nil {
		d.Apply(rd.Persist)
	}
	return rd
}

// voteLives is the lives c's vote for replica 0 in ballot b carries.
func voteLives(t *testing.T, c *testCore, b wire.Ballot) wire.Lives {
	t.Helper()
	c.silence()
	require.NoError(t, c.StepReplica(0, &wire.PreVote{Ballot: b, Candidate: 0}))
	require.NoError(t, c.StepReplica(0, &wire.RequestVote{Ballot: b, Candidate: 0}))
	votes := msgsOf[*wire.RequestVoteReply](c.out.takePeer())
	require.Len(t, votes, 1)
	require.True(t, votes[0].Granted)
	return votes[0].Lives
}

// TestDurableReplicaKeepsTheLivesItHeardOf: docs/DECISIONS.md 52. A
// durable replica writes down the lives it heard of with its hard state,
// answers a Join only once the new life is on disk, and, restarted from
// its disk, tells candidates of that life still. With
// Mutation.RestoreForgetsLives it answers at once and forgets.
func TestDurableReplicaKeepsTheLivesItHeardOf(t *testing.T) {
	for _, m := range []Mutation{{}, {RestoreForgetsLives: true}} {
		d := storage.NewMem()
		c := durableFollower(t, 1, 3, 10, d, m)
		require.NoError(t, c.StepReplica(2, &wire.Join{Replica: 2, Incarnation: 5}))
		rd := persistTo(c, d)
		require.NotNil(t, rd.Persist)
		require.NotNil(t, rd.Persist.Hard)
		require.Equal(t, []uint64{0, 10, 5}, rd.Persist.Hard.Lives)
		want := []string{"*wire.JoinReply"}
		if m.RestoreForgetsLives {
			require.Equal(t, want, types(rd.Messages), "the JoinReply leaves at once")
		} else {
			require.Equal(t, want, types(rd.AfterSync), "the JoinReply waits for the batch that holds the new life")
			require.Equal(t, rd.Persist.Seq, rd.SyncSeq)
		}
		require.NotSame(t, &c.lives[0], &rd.Persist.Hard.Lives[0], "a batch's lives are a copy")

		r := durableFollower(t, 1, 3, 20, d, m)
		lives := wire.Lives{0, 20, 5}
		if m.RestoreForgetsLives {
			lives = wire.Lives{0, 20, 0}
		}
		require.Equal(t, lives, voteLives(t, r, 1), "lives after a restart from disk")
	}
}

// TestDurableReplicaRestartedWithItsClockSetBack: a durable replica whose
// disk names a life no earlier than the one it starts in takes a later
// number at once, and writes it down; one whose disk holds nothing but
// lives (it never became a member) is still empty to start from.
func TestDurableReplicaRestartedWithItsClockSetBack(t *testing.T) {
	d := storage.NewMem()
	durableFollower(t, 1, 3, 50, d, Mutation{})
	r := durableFollower(t, 1, 3, 30, d, Mutation{})
	require.Equal(t, uint64(51), r.incarnation)
	st, err := d.State()
	require.NoError(t, err)
	require.Equal(t, []uint64{0, 51, 0}, st.Hard.Lives, "the later number is on disk")

	learner := storage.NewMem()
	learner.Apply(&storage.Batch{Seq: 1, Hard: &storage.HardState{Vote: wire.NoReplica, Lives: []uint64{7, 9, 0}}})
	st, err = learner.State()
	require.NoError(t, err)
	require.True(t, st.Empty())
	c := newStepCore(t, 1, 3, func(o *Options) {
		o.Durable, o.Incarnation, o.Restore, o.StartAsMember = true, 4, st, false
	})
	require.False(t, c.Member())
	require.Equal(t, uint64(10), c.incarnation)
	require.Equal(t, []uint64{7, 10, 0}, c.lives)
}

// TestRestoredLivesAreChecked: lives on disk for another number of
// replicas, or above the highest incarnation, are refused.
func TestRestoredLivesAreChecked(t *testing.T) {
	for _, ls := range [][]uint64{{1, 2}, {1, 2, 3, 4}, {0, 1 << 63, 0}} {
		o := Options{ID: 1, N: 3, Policy: BasePolicy{}, Now: func() int64 { return 0 }, Incarnation: 1, Durable: true,
			Restore: &storage.State{Hard: storage.HardState{Vote: wire.NoReplica, Lives: ls}}}
		o.Rand = newStepCore(t, 1, 3, nil).o.Rand
		_, err := New(o)
		require.ErrorContains(t, err, "lives", "%v", ls)
	}
}
