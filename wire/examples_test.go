package wire

import (
	"bytes"
	"math"

	"swiftpaxos/kvs"
)

// example is one message for the round-trip, golden-corpus and allocation
// tests. want is what decoding its encoding must give: nil means msg itself.
// It differs only where the message holds empty (non-nil) slices, which
// decode as nil (doc.go).
type example struct {
	name string
	msg  Message
	want Message
}

func (e example) expected() Message {
	if e.want != nil {
		return e.want
	}
	return e.msg
}

var (
	bigClient = ClientID(math.MaxUint64)
	cmdA      = CmdID{Client: 0x9e3779b97f4a7c15, Seq: 1}
	cmdB      = CmdID{Client: bigClient, Seq: math.MaxUint64}
	cmdC      = CmdID{Client: 7, Seq: 300}
	// binValue has every byte value, including 0x00 and 0xff.
	binValue = func() kvs.Value {
		v := make(kvs.Value, 256)
		for i := range v {
			v[i] = byte(i)
		}
		return v
	}()
	// bigValue is longer than 16 bits can say.
	bigValue = kvs.Value(bytes.Repeat([]byte{0xa5}, 70_000))
	binKey   = kvs.Key(binValue[:40])

	putCmd     = kvs.Command{Op: kvs.OpPut, Key: "user:42", Value: kvs.Value("hello, world")}
	getCmd     = kvs.Command{Op: kvs.OpGet, Key: binKey}
	scanCmd    = kvs.Command{Op: kvs.OpScan, Key: "a", End: "b\xff", Limit: kvs.MaxScanLimit}
	scanAllCmd = kvs.Command{Op: kvs.OpScan, Limit: 1}
	noopCmd    = kvs.Command{Op: kvs.OpNoop}
	delCmd     = kvs.Command{Op: kvs.OpDelete, Key: "gone"}
	incrCmd    = kvs.Command{Op: kvs.OpIncr, Key: "counter", Delta: math.MinInt64}
	casCmds    = []kvs.Command{
		{Op: kvs.OpCAS, Key: "lock", Expect: kvs.ExpectAbsent, Value: kvs.Value("owner")},
		{Op: kvs.OpCAS, Key: "lock", Expect: kvs.ExpectValue, ExpectValue: kvs.Value("owner"), Delete: true},
		{Op: kvs.OpCAS, Key: "k", Expect: kvs.ExpectVersion, ExpectVersion: math.MaxUint64, Value: binValue},
	}
)

func sampleEntries() []Entry {
	return []Entry{
		{Slot: 1, Ballot: 0, Cmd: cmdA, Command: putCmd, Level: Strong},
		{Slot: 2, Ballot: 3, Cmd: cmdB, Command: kvs.Command{Op: kvs.OpPut, Key: binKey, Value: binValue},
			Level: Weak, CausalDep: 17, AckUpTo: 12},
		{Slot: math.MaxUint64, Ballot: math.MaxUint32, Command: noopCmd, Level: Strong},
		{Slot: 4, Ballot: 3, Cmd: cmdC, Command: delCmd, Level: Weak},
		{Slot: 5, Ballot: 3, Cmd: cmdC, Command: incrCmd, Level: Strong},
		{Slot: 6, Ballot: 3, Cmd: cmdA, Command: casCmds[0], Level: Strong},
		{Slot: 7, Ballot: 3, Cmd: cmdA, Command: casCmds[1], Level: Strong},
		{Slot: 8, Ballot: 3, Cmd: cmdA, Command: casCmds[2], Level: Strong},
	}
}

func sampleRecords() []Record {
	return []Record{
		{Cmd: cmdA, Command: putCmd, Level: Strong, Accepted: true, Ballot: 4, Arrival: 1},
		{Cmd: cmdB, Command: getCmd, Level: Strong, Accepted: false, Ballot: math.MaxUint32,
			Arrival: math.MaxUint64},
		{Cmd: cmdC, Command: kvs.Command{Op: kvs.OpPut, Key: "k5", Value: binValue}, Level: Weak,
			Accepted: true, Ballot: 0, Arrival: 99, CausalDep: 299, Age: 2_000_000_000},
		{Cmd: cmdC, Command: scanCmd, Level: Strong, Ballot: 2, Arrival: 100},
	}
}

func sampleItems() []kvs.Item {
	return []kvs.Item{
		{Key: "a", Value: kvs.Value("a"), Found: true, Version: 3},
		{Key: "b", Version: 80},
		{Key: binKey, Value: binValue, Found: true, Version: math.MaxUint64},
	}
}

// examples covers every message type, most more than once: large and
// negative values, nil and empty slices, and each ReadDep kind.
func examples() []example {
	return []example{
		{name: "hello-replica", msg: &Hello{Kind: PeerReplica, Replica: 4, Protocol: "curpho", Durable: true, Leases: true}},
		{name: "hello-client", msg: &Hello{Kind: PeerClient, Replica: NoReplica, Client: bigClient, Alias: "client0"}},
		{name: "hello-sessions", msg: &Hello{Kind: PeerSessions, Replica: NoReplica, Alias: "client1", Sessions: 128, Protocol: "curpht"}},

		{name: "propose-put", msg: &Propose{Cmd: cmdA, Command: putCmd, AckUpTo: 0, WeakDep: 0}},
		{name: "propose-get-ho", msg: &Propose{Cmd: cmdB, Command: getCmd, AckUpTo: math.MaxUint64 - 1,
			WeakDep: 12}},
		{name: "propose-leader-read", msg: &Propose{Cmd: cmdB, Command: getCmd, AckUpTo: 3, WeakDep: 2, LeaderRead: true}},
		{name: "propose-empty-value",
			msg:  &Propose{Cmd: cmdC, Command: kvs.Command{Op: kvs.OpPut, Key: "e", Value: kvs.Value{}}},
			want: &Propose{Cmd: cmdC, Command: kvs.Command{Op: kvs.OpPut, Key: "e"}}},
		{name: "propose-big-value", msg: &Propose{Cmd: cmdC, Command: kvs.Command{Op: kvs.OpPut, Key: "b",
			Value: bigValue}}},
		{name: "propose-delete", msg: &Propose{Cmd: cmdC, Command: delCmd}},
		{name: "propose-cas-absent", msg: &Propose{Cmd: cmdA, Command: casCmds[0]}},
		{name: "propose-cas-value-delete", msg: &Propose{Cmd: cmdA, Command: casCmds[1]}},
		{name: "propose-cas-version", msg: &Propose{Cmd: cmdA, Command: casCmds[2]}},
		{name: "propose-incr", msg: &Propose{Cmd: cmdB, Command: incrCmd}},
		{name: "propose-scan-all", msg: &Propose{Cmd: cmdB, Command: scanAllCmd}},

		{name: "leaderreply-ok", msg: &LeaderReply{Replica: 0, Ballot: 9, Cmd: cmdA, Ok: true,
			Result: kvs.Result{Value: binValue, Found: true, Version: 77}, Slot: 78, ReadDep: ReadDep{Kind: DepOne, Cmd: cmdB},
			Lives: Lives{1795000000000000001, 1, math.MaxInt64}}},
		{name: "leaderreply-scan", msg: &LeaderReply{Replica: 1, Ballot: 9, Cmd: cmdC, Ok: true,
			Result: kvs.Result{Version: 80, Items: sampleItems(), More: true}, Slot: 81, ReadDep: ReadDep{Kind: DepNone}}},
		{name: "leaderreply-cas", msg: &LeaderReply{Replica: 1, Ballot: 9, Cmd: cmdC, Ok: true,
			Result: kvs.Result{Value: kvs.Value("owner"), Found: true, Applied: true, Version: 82}, Slot: 82}},
		{name: "leaderreply-incr-error", msg: &LeaderReply{Replica: 1, Ballot: 9, Cmd: cmdC, Ok: true,
			Result: kvs.Result{Value: kvs.Value("x"), Found: true, Version: 70, Err: kvs.ErrNotInteger}, Slot: 83}},
		{name: "leaderreply-retry", msg: &LeaderReply{Replica: math.MaxInt32, Ballot: math.MaxUint32,
			Cmd: cmdC, Retry: true, ReadDep: ReadDep{Kind: DepMulti}}},

		{name: "recordack-ht", msg: &RecordAck{Replica: 2, Ballot: 1, Cmd: cmdA, Ok: true}},
		{name: "recordack-ho", msg: &RecordAck{Replica: math.MinInt32, Ballot: 5, Cmd: cmdB,
			CausalDeps: []CmdID{cmdA, cmdB, cmdC}, DepCommittedSeq: 41,
			ReadDep: ReadDep{Kind: DepOne, Cmd: cmdC}, Life: 1795000000000000001}},
		{name: "recordack-empty-deps",
			msg:  &RecordAck{Replica: 1, Cmd: cmdC, CausalDeps: []CmdID{}, ReadDep: ReadDep{Kind: DepMulti}},
			want: &RecordAck{Replica: 1, Cmd: cmdC, ReadDep: ReadDep{Kind: DepMulti}}},

		{name: "syncreply", msg: &SyncReply{Replica: 1, Ballot: 2, Cmd: cmdA, Result: kvs.Result{Value: kvs.Value("v"),
			Found: true, Version: 3}, Slot: 4, WeakCommittedSeq: 5}},
		{name: "syncreply-scan", msg: &SyncReply{Replica: 1, Ballot: 2, Cmd: cmdC, Result: kvs.Result{Version: 80,
			Items: sampleItems()}, Slot: 81}},
		{name: "syncreply-overflow", msg: &SyncReply{Replica: 1, Ballot: 2, Cmd: cmdC, Result: kvs.Result{
			Value: kvs.Value("9223372036854775807"), Found: true, Version: 9, Err: kvs.ErrOverflow}, Slot: 81}},
		{name: "syncreply-refused", msg: &SyncReply{Replica: 0, Ballot: 7, Cmd: cmdB, Slot: 90, Refused: true}},
		{name: "sync", msg: &Sync{Cmd: cmdC}},

		{name: "accept", msg: &Accept{Ballot: 3, Leader: 1, PrevSlot: 10, PrevBallot: 2,
			Entries: sampleEntries(), LeaderCommit: 9, Life: 1_700_000_000_123_456_789}},
		{name: "accept-heartbeat", msg: &Accept{Ballot: 3, Leader: 1, PrevSlot: 12, PrevBallot: 3,
			LeaderCommit: 12, Round: math.MaxUint64}},
		{name: "accept-empty-entries",
			msg:  &Accept{Ballot: 1, Entries: []Entry{}},
			want: &Accept{Ballot: 1}},

		{name: "acceptack", msg: &AcceptAck{Ballot: 3, Replica: 2, Success: true, MatchSlot: 1 << 40}},
		{name: "acceptack-fail", msg: &AcceptAck{Ballot: math.MaxUint32, Replica: 4}},
		{name: "acceptack-round", msg: &AcceptAck{Ballot: 3, Replica: 1, MatchSlot: 7, Round: 300}},
		{name: "commit", msg: &Commit{Ballot: 8, CommitIndex: 123456789}},
		{name: "notleader", msg: &NotLeader{Ballot: 2, Leader: NoReplica, Cmd: cmdB}},

		{name: "witnesssync", msg: &WitnessSync{Records: sampleRecords()}},
		{name: "witnesssync-nil", msg: &WitnessSync{}},

		{name: "weakpropose", msg: &WeakPropose{Cmd: cmdA, Command: putCmd, CausalDep: 0, AckUpTo: 0}},
		{name: "weakpropose-chain", msg: &WeakPropose{Cmd: cmdC, Command: kvs.Command{Op: kvs.OpPut,
			Key: binKey, Value: binValue}, CausalDep: 299, AckUpTo: 250}},
		{name: "weakpropose-delete", msg: &WeakPropose{Cmd: cmdC, Command: delCmd, CausalDep: 300, AckUpTo: 250}},
		{name: "weakreply", msg: &WeakReply{Replica: 0, Ballot: 6, Cmd: cmdB, Slot: 600, Committed: true}},
		{name: "weakreply-refused", msg: &WeakReply{Replica: 0, Ballot: 6, Cmd: cmdB, Slot: 601, Committed: true,
			Refused: true}},

		{name: "weakcommit", msg: &WeakCommit{Ballot: 6, Commits: []SlotOf{{Cmd: cmdA, Slot: 1},
			{Cmd: cmdB, Slot: math.MaxUint64}, {Cmd: cmdC, Slot: 3, Refused: true}}}},
		{name: "weakcommit-empty",
			msg:  &WeakCommit{Ballot: 6, Commits: []SlotOf{}},
			want: &WeakCommit{Ballot: 6}},

		{name: "weakread-get", msg: &WeakRead{Cmd: cmdA, Command: getCmd, MinSlot: 55, Ballot: 2, Attempt: 7}},
		{name: "weakread-scan", msg: &WeakRead{Cmd: cmdC, Command: scanCmd}},
		{name: "weakreadreply", msg: &WeakReadReply{Replica: 3, Ballot: 2, Cmd: cmdA, Result: kvs.Result{Value: binValue,
			Found: true, Version: 54}, AppliedIndex: 56, WeakApplied: 9, Attempt: math.MaxUint32}},
		{name: "weakreadreply-scan", msg: &WeakReadReply{Replica: 1, Ballot: 2, Cmd: cmdC, Result: kvs.Result{Version: 80,
			Items: sampleItems()}, AppliedIndex: 90}},
		{name: "weakreadreply-empty-items",
			msg:  &WeakReadReply{Replica: 1, Cmd: cmdC, Result: kvs.Result{Items: []kvs.Item{}}},
			want: &WeakReadReply{Replica: 1, Cmd: cmdC}},
		{name: "weakreadreply-retry", msg: &WeakReadReply{Replica: 3, Ballot: 2, Cmd: cmdA, Retry: true}},

		{name: "causalpropose", msg: &CausalPropose{Cmd: cmdC, Command: putCmd, CausalDep: 298, Bound: 2,
			AckUpTo: 100}},
		{name: "causalreply", msg: &CausalReply{Replica: 2, Ballot: 0, Cmd: cmdC}},

		{name: "requestvote", msg: &RequestVote{Ballot: 11, Candidate: 3, LastSlot: 1000, LastBallot: 10}},
		{name: "requestvotereply", msg: &RequestVoteReply{Ballot: 11, Replica: 1, Granted: true, Lives: Lives{3, 1 << 50, 0}}},
		{name: "collect", msg: &Collect{Ballot: 11}},
		{name: "collectreply", msg: &CollectReply{Ballot: 11, Replica: 4, Records: sampleRecords(),
			LastSlot: 1000, LastBallot: 10}},
		{name: "collectreply-empty",
			msg:  &CollectReply{Ballot: 11, Replica: 0, Records: []Record{}},
			want: &CollectReply{Ballot: 11, Replica: 0}},
		{name: "newview", msg: &NewView{Ballot: 11, Leader: 3, ViewStart: 1004}},
		{name: "newview-committed", msg: &NewView{Ballot: 11, Leader: 3, ViewStart: 1004, Committed: true}},
		{name: "prevote", msg: &PreVote{Ballot: 12, Candidate: 2, LastSlot: 1000, LastBallot: 11}},
		{name: "prevotereply", msg: &PreVoteReply{Ballot: 11, PreBallot: 12, Replica: 4, Granted: true, Lives: Lives{1, 2, 3, 4, 5}}},
		{name: "installsnapshot", msg: &InstallSnapshot{Ballot: 3, Leader: 1, LastSlot: 900, LastBallot: 2, Chunk: 0,
			Sessions: []SessionState{{Client: bigClient, Floor: 10, WeakCommittedSeq: 9, Results: []SessionResult{
				{Seq: 11, Slot: 800, Result: kvs.Result{Value: kvs.Value("v"), Found: true, Version: 799}},
				{Seq: 12, Slot: 801, Refused: true},
				{Seq: 13, Slot: 802, Result: kvs.Result{Items: sampleItems(), More: true}},
				{Seq: 14, Slot: 803, Result: kvs.Result{Found: true, Applied: true, Version: 803}}}},
				{Client: 7}, {Client: 8, Ended: 640}}, Items: sampleItems()}},
		{name: "endsession", msg: &EndSession{Client: bigClient}},
		{name: "installsnapshot-done", msg: &InstallSnapshot{Ballot: 3, Leader: 1, LastSlot: 900, LastBallot: 2, Chunk: 7, Done: true}},
		{name: "installsnapshotack", msg: &InstallSnapshotAck{Ballot: 3, Replica: 2, LastSlot: 900, Chunk: 7}},
		{name: "acceptack-learner", msg: &AcceptAck{Ballot: 3, Replica: 2, Success: true, MatchSlot: 5, Learner: true}},
		{name: "join", msg: &Join{Replica: 2, Incarnation: math.MaxUint64}},
		{name: "joinreply", msg: &JoinReply{Ballot: 4, Replica: 0, Leader: 0, LastSlot: 77, Member: true, Mark: 77,
			Incarnation: 5, Founders: []uint64{5, 1 << 40, 9}, ClusterNew: true, PreGranted: 5, Lives: Lives{5, 7, 9}}},
		{name: "statusrequest", msg: &StatusRequest{Nonce: 1 << 40}},
		{name: "routed-newview", msg: &Routed{Session: bigClient, Msg: &NewView{Ballot: 3, Leader: 1, ViewStart: 9,
			Committed: true}}},
		{name: "routed-sync", msg: &Routed{Session: 7, Msg: &Sync{Cmd: cmdA}}},
		{name: "statusreply", msg: &StatusReply{Nonce: 3, Replica: 2, Role: 2, Member: true, Ballot: 7, Leader: 2,
			CommitIndex: 900, AppliedIndex: 899, LastSlot: 901, SnapshotSlot: 512, Sessions: 12, WitnessRecords: 4,
			UptimeMs: 1 << 33, Durable: true, Fsyncs: 5683, FsyncMeanNs: 448_061}},
		{name: "statusreply-founding", msg: &StatusReply{Replica: 1, Leader: NoReplica, Joining: JoinFounding,
			ClusterNew: true, Fresh: 2, FreshNew: 1, RESPConns: 3, Leases: true, LeaseMs: 372, Quiet: true, Founding: true}},
		{name: "statusreply-none", msg: &StatusReply{Leader: NoReplica}},
		{name: "joinreply-none", msg: &JoinReply{Ballot: 0, Replica: 1, Leader: NoReplica}},
	}
}
