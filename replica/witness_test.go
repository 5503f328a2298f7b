package replica

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// Witness records, PROTOCOL.md 1.6 and 3.4: admission (rule 1), duplicates
// (rule 2), removal by CmdID on apply or by a committed view (rule 3), weak
// records (rule 5), one record per CmdID (rule 6), and no witness duty
// before membership (6.10).

// propose steps a strong proposal of cmd from client (Seq 1 unless given)
// at c and returns what c answered the client.
func propose(c *testCore, client wire.ClientID, cmd kvs.Command, seq ...wire.Seq) []wire.Message {
	s := wire.Seq(1)
	if len(seq) > 0 {
		s = seq[0]
	}
	c.StepClient(client, &wire.Propose{Cmd: cmdID(client, s), Command: cmd})
	return c.out.take()
}

// witnessOk steps a strong proposal at a non-leader witness and returns
// the Ok of its one RecordAck.
func witnessOk(t *testing.T, c *testCore, client wire.ClientID, cmd kvs.Command, seq ...wire.Seq) bool {
	t.Helper()
	acks := msgsOf[*wire.RecordAck](propose(c, client, cmd, seq...))
	require.Len(t, acks, 1)
	require.NoError(t, c.CheckWitness())
	return acks[0].Ok
}

// TestWitnessAdmission: PROTOCOL.md 3.4 rule 1 with the conflict relation
// of 1.3. A witness accepts a strong request iff no held strong record
// conflicts with it: same key (or overlapping SCAN range) and at least
// one write. Every request is recorded, accepted or not.
func TestWitnessAdmission(t *testing.T) {
	cases := []struct {
		name string
		held kvs.Command
		req  kvs.Command
		ok   bool
	}{
		{"write after write, same key", putCmd(1, "a"), putCmd(1, "b"), false},
		{"write after write, other key", putCmd(1, "a"), putCmd(2, "b"), true},
		{"read after write", putCmd(1, "a"), getCmd(1), false},
		{"write after read", getCmd(1), putCmd(1, "b"), false},
		{"read after read", getCmd(1), getCmd(1), true},
		{"write inside a held scan", scanCmd(0, 4), putCmd(4, "b"), false},
		{"write beside a held scan", scanCmd(0, 4), putCmd(5, "b"), true},
		{"scan over a held write", putCmd(3, "a"), scanCmd(0, 4), false},
		{"scan beside a held write", putCmd(3, "a"), scanCmd(4, 4), true},
		{"scan over a held read", getCmd(3), scanCmd(0, 4), true},
		// Data model v2: ranges are [Key, End), by byte order; "" as a
		// start is the first key, as an end past the last.
		{"write at a held scan's start", rangeCmd(2, 5), putCmd(2, "b"), false},
		{"write at a held scan's end", rangeCmd(2, 5), putCmd(5, "b"), true},
		{"write before a held scan", rangeCmd(2, 5), putCmd(1, "b"), true},
		{"write under a held scan from the first key", scanRange("", key(5)), putCmd(0, "b"), false},
		{"write under a held scan to the last key", scanRange(key(2), ""), putCmd(999, "b"), false},
		{"write between a key and its prefix extension", scanRange(key(3), key(3)+"\x00"), kvs.Command{Op: kvs.OpPut, Key: key(3) + "\x00", Value: kvs.Value("b")}, true},
		{"write under a held empty scan", rangeCmd(3, 3), putCmd(3, "b"), true},
		{"delete inside a held scan", rangeCmd(2, 5), kvs.Command{Op: kvs.OpDelete, Key: key(3)}, false},
		{"cas inside a held scan", rangeCmd(2, 5), kvs.Command{Op: kvs.OpCAS, Key: key(4), Expect: kvs.ExpectAbsent, Value: kvs.Value("b")}, false},
		{"incr inside a held scan", rangeCmd(2, 5), kvs.Command{Op: kvs.OpIncr, Key: key(2), Delta: 1}, false},
		{"incr beside a held scan", rangeCmd(2, 5), kvs.Command{Op: kvs.OpIncr, Key: key(5), Delta: 1}, true},
		{"scan ending at a held write", putCmd(5, "a"), rangeCmd(2, 5), true},
		{"scan starting at a held write", putCmd(5, "a"), rangeCmd(5, 7), false},
		{"scan from the first key over a held write", putCmd(0, "a"), scanRange("", key(1)), false},
		{"scan to the last key over a held write", putCmd(999, "a"), scanRange(key(5), ""), false},
		{"empty scan at a held write", putCmd(5, "a"), rangeCmd(5, 5), true},
		{"scan over a held delete", kvs.Command{Op: kvs.OpDelete, Key: key(3)}, rangeCmd(2, 5), false},
		{"scan over a held cas", kvs.Command{Op: kvs.OpCAS, Key: key(3), Expect: kvs.ExpectVersion, Value: kvs.Value("a")}, rangeCmd(2, 5), false},
		{"scan over a held incr", kvs.Command{Op: kvs.OpIncr, Key: key(3), Delta: -1}, rangeCmd(0, 9), false},
		{"scan over a held scan", rangeCmd(0, 9), rangeCmd(3, 4), true},
		{"get inside a held scan", rangeCmd(0, 9), getCmd(3), true},
		{"cas after delete, same key", kvs.Command{Op: kvs.OpDelete, Key: key(3)}, kvs.Command{Op: kvs.OpCAS, Key: key(3), Expect: kvs.ExpectAbsent, Value: kvs.Value("a")}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newStepCore(t, 1, 3, nil)
			require.True(t, witnessOk(t, c, 10, tc.held))
			require.Equal(t, tc.ok, witnessOk(t, c, 11, tc.req))
			require.Equal(t, 2, c.RecordCount())
		})
	}
}

// rangeCmd is a SCAN of key numbers [from, to), limit 10.
func rangeCmd(from, to int) kvs.Command { return scanRange(key(from), key(to)) }

// scanRange is a SCAN of [start, end), limit 10.
func scanRange(start, end kvs.Key) kvs.Command {
	return kvs.Command{Op: kvs.OpScan, Key: start, End: end, Limit: 10}
}

// TestRejectedRecordBlocksToo: PROTOCOL.md 3.4 rule 1, "both accepted and
// rejected records block later conflicting requests": a request this
// witness rejected may have been accepted by witnesses that saw it first,
// and so may complete on the fast path. A record leaves only when its own
// command applies.
func TestRejectedRecordBlocksToo(t *testing.T) {
	c := newStepCore(t, 1, 3, nil)
	require.True(t, witnessOk(t, c, 10, putCmd(1, "a")))
	require.False(t, witnessOk(t, c, 11, putCmd(1, "b")))

	require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, Entries: []wire.Entry{put(10, 1, 1, "a")}, LeaderCommit: 1}))
	require.Equal(t, 1, c.RecordCount(), "the applied command's record is gone")
	require.False(t, witnessOk(t, c, 12, putCmd(1, "c")), "the rejected record of client 11 still blocks key 1")

	require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, PrevSlot: 1,
		Entries: []wire.Entry{put(11, 1, 1, "b"), put(12, 1, 1, "c")}, LeaderCommit: 3}))
	require.Zero(t, c.RecordCount())
	require.True(t, witnessOk(t, c, 13, putCmd(1, "d")))
}

// TestWitnessDuplicateGetsTheHeldAnswer: PROTOCOL.md 3.4 rule 2. "A
// duplicate of a held request returns the held record's Ok" and is not
// recorded again: re-judging it would reject client 10's re-sent request
// because of client 11's record, which itself exists only because client
// 10's was there first. The answer keeps the ballot the record was made in,
// so that a fast path counts acceptances of one ballot (1.7, 6.4). A
// request already applied is neither recorded nor acknowledged.
func TestWitnessDuplicateGetsTheHeldAnswer(t *testing.T) {
	c := newStepCore(t, 1, 3, nil)
	require.True(t, witnessOk(t, c, 10, putCmd(1, "a")))
	require.False(t, witnessOk(t, c, 11, putCmd(1, "b")))
	arrivals := c.Records()

	require.True(t, witnessOk(t, c, 10, putCmd(1, "a")))
	require.False(t, witnessOk(t, c, 11, putCmd(1, "b")))
	require.Equal(t, arrivals, c.Records(), "no record added or replaced")

	require.NoError(t, c.StepReplica(2, &wire.Accept{Ballot: 1, Leader: 2, PrevSlot: 7, PrevBallot: 1}))
	require.Equal(t, wire.Ballot(1), c.Ballot())
	acks := msgsOf[*wire.RecordAck](propose(c, 10, putCmd(1, "a")))
	require.Len(t, acks, 1)
	require.True(t, acks[0].Ok)
	require.Equal(t, wire.Ballot(0), acks[0].Ballot, "accepted in ballot 0")

	require.NoError(t, c.StepReplica(2, &wire.Accept{Ballot: 1, Leader: 2,
		Entries: []wire.Entry{putIn(1, 10, 1, 1, "a")}, LeaderCommit: 1}))
	// Client 10's record goes with its execution, client 11's because an
	// entry of ballot 1 is committed (6.3 step 6).
	require.Zero(t, c.RecordCount())
	require.Empty(t, msgsOf[*wire.RecordAck](propose(c, 10, putCmd(1, "a"))), "applied: no record, no acknowledgement")
	require.Zero(t, c.RecordCount())
}

// TestWitnessRecordLeavesWhenApplied: PROTOCOL.md 3.4 rule 3 and 3.3.
// Records are removed by CmdID when the command is applied here: being in
// the log is not enough (an uncommitted entry can still be replaced by a
// new ballot, and then only the witness remembers the request), and with
// execution deferred, being committed is not enough either. Only the
// applied command's record goes.
func TestWitnessRecordLeavesWhenApplied(t *testing.T) {
	c := newStepCore(t, 1, 3, func(o *Options) { o.DeferApply = true })
	require.True(t, witnessOk(t, c, 10, putCmd(1, "a")))
	require.True(t, witnessOk(t, c, 11, putCmd(2, "b")))

	require.NoError(t, c.StepReplica(0, &wire.Accept{Ballot: 0, Leader: 0, Entries: []wire.Entry{put(10, 1, 1, "a")}}))
	require.Equal(t, 2, c.RecordCount(), "in the log")
	require.NoError(t, c.StepReplica(0, &wire.Commit{Ballot: 0, CommitIndex: 1}))
	require.Equal(t, kvs.Slot(1), c.CommitIndex())
	require.Equal(t, 2, c.RecordCount(), "committed, not applied")
	c.Apply(-1)
	require.Equal(t, []wire.CmdID{cmdID(11, 1)}, ids(c.Records()))
	require.NoError(t, c.CheckWitness())
	require.True(t, witnessOk(t, c, 12, putCmd(1, "c")), "key 1 is free again")
}

// TestWitnessPurgedWhenViewCommits: PROTOCOL.md 3.4 rule 3 and 6.3 step 6.
// Records of older ballots stay until the new view's start is committed
// (a second crash during recovery must lose nothing), then go, by the
// leader's NewView{Committed} or, should that be lost, when the follower
// sees an entry of its ballot committed. Records of the current ballot
// stay.
func TestWitnessPurgedWhenViewCommits(t *testing.T) {
	for _, how := range []string{"NewView", "commit of the ballot's entry"} {
		t.Run(how, func(t *testing.T) {
			c := newStepCore(t, 1, 3, nil)
			require.True(t, witnessOk(t, c, 10, putCmd(1, "a")))
			require.NoError(t, c.StepReplica(2, &wire.NewView{Ballot: 1, Leader: 2, ViewStart: 2}))
			require.True(t, witnessOk(t, c, 11, putCmd(2, "b")))
			require.Equal(t, 2, c.RecordCount(), "the view start is not committed yet")

			if how == "NewView" {
				require.NoError(t, c.StepReplica(2, &wire.NewView{Ballot: 1, Leader: 2, ViewStart: 2, Committed: true}))
			} else {
				require.NoError(t, c.StepReplica(2, &wire.Accept{Ballot: 1, Leader: 2, Entries: []wire.Entry{noopIn(1)}, LeaderCommit: 1}))
			}
			require.Equal(t, []wire.CmdID{cmdID(11, 1)}, ids(c.Records()))
			require.NoError(t, c.CheckWitness())
		})
	}
}

// TestWeakRecordsNeverReject: PROTOCOL.md 3.4 rule 5 and 5.3. A weak-write
// record (CURP-HO) never makes a witness reject a strong request; a strong
// record still does.
func TestWeakRecordsNeverReject(t *testing.T) {
	c := newStepCore(t, 1, 3, nil)
	c.wit.add(wire.Record{Cmd: cmdID(10, 1), Command: putCmd(1, "w"), Level: wire.Weak, Accepted: true}, c.now)
	require.True(t, witnessOk(t, c, 11, putCmd(1, "s")))
	require.False(t, witnessOk(t, c, 12, putCmd(1, "t")), "the strong record of client 11 does reject")
}

// TestOneRecordPerCmdAtNewLeader: PROTOCOL.md 3.4 rule 6. Replica 1 holds
// client 7's request as a witness record of ballot 0, then leads ballot 1;
// recovery does not replay it (one holder of two answers is below R = 2,
// 6.4), and when the client re-sends it the leader appends it. It keeps
// one record for it, of its own ballot and with the Ok it answered; a
// second one would outlive the command's execution and block key 1's fast
// path for good.
func TestOneRecordPerCmdAtNewLeader(t *testing.T) {
	c := newStepCore(t, 1, 3, nil)
	p := &wire.Propose{Cmd: cmdID(7, 1), Command: putCmd(1, "a")}
	c.StepClient(7, p)
	c.out.take()
	c.win(t, 2)
	c.finishRecovery(t, 2)
	require.Equal(t, kvs.Slot(1), c.LastSlot(), "nothing replayed, the no-op appended")
	require.Equal(t, 1, c.RecordCount())

	c.StepClient(7, p)
	replies := msgsOf[*wire.LeaderReply](c.out.take())
	require.Len(t, replies, 1)
	require.Equal(t, kvs.Slot(2), replies[0].Slot)
	held := c.Records()
	require.Len(t, held, 1)
	require.Equal(t, wire.Ballot(1), held[0].Ballot)
	require.Equal(t, replies[0].Ok, held[0].Accepted)
	require.NoError(t, c.CheckWitness())

	c.ack(t, 2, 2)
	require.Equal(t, kvs.Slot(2), c.AppliedIndex())
	require.Zero(t, c.RecordCount())
	require.NoError(t, c.CheckWitness(), "no record left listed under key 1")
}

// TestLeaderRecordCarriesItsOk: PROTOCOL.md 1.6 and 3.4 rule 1. The leader
// keeps witness records too, with Accepted = the Ok of its reply (3.5), so
// that an old leader surviving into a recovery counts like any witness.
func TestLeaderRecordCarriesItsOk(t *testing.T) {
	c := leaderWith(t, 3)
	var oks []bool
	for i, client := range []wire.ClientID{7, 8} {
		replies := msgsOf[*wire.LeaderReply](propose(c, client, putCmd(1, fmt.Sprint(i))))
		require.Len(t, replies, 1)
		oks = append(oks, replies[0].Ok)
	}
	require.Equal(t, []bool{true, false}, oks, "slot 1 conflicts and is not committed")
	held := c.Records()
	require.Len(t, held, 2)
	for i, r := range held {
		require.Equal(t, oks[i], r.Accepted, "record of %v", r.Cmd)
	}
}

// TestNonMemberIsNoWitness: PROTOCOL.md 6.10. A replica that restarted
// without its state "MUST NOT count as a witness": it sends no RecordAck a
// client could count and keeps no record a recovery could collect.
func TestNonMemberIsNoWitness(t *testing.T) {
	c := newStepCore(t, 1, 3, func(o *Options) { o.StartAsMember = false })
	require.Empty(t, msgsOf[*wire.RecordAck](propose(c, 10, putCmd(1, "a"))))
	require.Zero(t, c.RecordCount())
}

// TestWitnessReusesKeyLists: a record on a key no other record touches
// costs the record itself, not a new list for the key; the lists kept are
// the emptied ones, and the indexes stay consistent.
func TestWitnessReusesKeyLists(t *testing.T) {
	w := newWitness(nil)
	seq, v := wire.Seq(0), kvs.Value("v")
	keys := make([]kvs.Key, 1200)
	for i := range keys {
		keys[i] = key(i)
	}
	step := func() {
		seq++
		id := wire.CmdID{Client: 1, Seq: seq}
		w.add(wire.Record{Cmd: id, Command: kvs.Command{Op: kvs.OpPut, Key: keys[seq], Value: v},
			Level: wire.Strong}, 0)
		w.remove(id)
	}
	for range 100 {
		step()
	}
	require.Equal(t, 1.0, testing.AllocsPerRun(1000, step), "allocations beyond the record")
	require.Empty(t, w.byKey)
	require.NoError(t, w.check())
}

// TestWitnessIndexAgreesWithScan: records of reads and writes on a few
// keys, added and removed at random (seeded), the SCANs and no-ops among
// them, some added again under a CmdID already held (which replaces the
// record held, PROTOCOL.md 3.4 rule 6); after
// every step the witness's answers are those of a plain scan of every
// record held: whether a strong record conflicts with a command, and the
// writes on a key or range in arrival order (KeptWrites).
func TestWitnessIndexAgreesWithScan(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		w := newWitness(nil)
		var held []wire.Record // in arrival order
		cmd := func() kvs.Command {
			n := rng.IntN(4)
			k := key(n)
			switch rng.IntN(7) {
			case 6:
				return kvs.Command{Op: kvs.OpNoop}
			case 0:
				return kvs.Command{Op: kvs.OpScan, Key: k, End: key(n + 1 + rng.IntN(3)), Limit: 10}
			case 1, 2:
				return kvs.Command{Op: kvs.OpPut, Key: k, Value: kvs.Value("v")}
			case 3:
				return kvs.Command{Op: kvs.OpDelete, Key: k}
			default:
				return kvs.Command{Op: kvs.OpGet, Key: k}
			}
		}
		for i := range 2000 {
			if len(held) > 0 && rng.IntN(5) < 2 {
				j := rng.IntN(len(held))
				w.remove(held[j].Cmd)
				held = slices.Delete(held, j, j+1)
			} else {
				level := wire.Strong
				if rng.IntN(4) == 0 {
					level = wire.Weak
				}
				rec := wire.Record{Cmd: wire.CmdID{Client: 1, Seq: wire.Seq(i + 1)}, Command: cmd(), Level: level}
				if len(held) > 0 && rng.IntN(8) == 0 {
					j := rng.IntN(len(held))
					rec.Cmd = held[j].Cmd
					held = slices.Delete(held, j, j+1)
				}
				w.add(rec, 0)
				held = append(held, rec)
			}
			require.NoError(t, w.check(), "seed %d step %d", seed, i)
			c := cmd()
			want := false
			var writes []wire.Record
			for _, r := range held {
				want = want || r.Level == wire.Strong && r.Command.Conflicts(c)
				if r.Command.IsWrite() && (c.Op == kvs.OpScan && c.Covers(r.Command.Key) || c.Op != kvs.OpScan && r.Command.Key == c.Key) {
					writes = append(writes, r)
				}
			}
			require.Equal(t, want, w.conflictsStrong(c), "seed %d step %d: %v", seed, i, c)
			got := w.writesOn(c, nil, 0)
			if c.Op == kvs.OpScan {
				// Key by key, each key's in arrival order.
				slices.SortStableFunc(writes, func(a, b wire.Record) int { return strings.Compare(string(a.Command.Key), string(b.Command.Key)) })
			}
			require.Equal(t, len(writes), len(got), "seed %d step %d: %v", seed, i, c)
			for j := range writes {
				require.Equal(t, writes[j].Cmd, got[j].Cmd, "seed %d step %d: %v", seed, i, c)
			}
			two := w.writesOn(c, nil, 2)
			require.Equal(t, min(2, len(writes)), len(two), "seed %d step %d: %v", seed, i, c)
			for j := range two {
				require.Equal(t, writes[j].Cmd, two[j].Cmd, "seed %d step %d: %v", seed, i, c)
			}
		}
	}
}
