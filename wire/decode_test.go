package wire

import (
	"bytes"
	"encoding/binary"
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
)

// cat concatenates byte strings, to spell out bodies field by field.
func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func uv(v uint64) []byte { return binary.AppendUvarint(nil, v) }
func sv(v int64) []byte  { return binary.AppendVarint(nil, v) }

var cmd11 = cat(uv(1), uv(1)) // CmdID{1, 1}

func TestDecodeValidHandWritten(t *testing.T) {
	// The hand-written spelling of doc.go agrees with the encoder.
	body := cat([]byte{byte(kvs.OpPut)}, uv(1), []byte("k"), uv(2), []byte("ab"))
	m, err := Decode(TypePropose, cat(cmd11, body, uv(0), uv(9), []byte{1}))
	require.NoError(t, err)
	require.Equal(t, &Propose{Cmd: CmdID{1, 1}, Command: kvs.Command{Op: kvs.OpPut, Key: "k",
		Value: kvs.Value("ab")}, WeakDep: 9, LeaderRead: true}, m)
	cas := cat([]byte{byte(kvs.OpCAS)}, uv(1), []byte("k"), []byte{byte(kvs.ExpectVersion)}, uv(7), []byte{1})
	m, err = Decode(TypePropose, cat(cmd11, cas, uv(0), uv(0), []byte{0}))
	require.NoError(t, err)
	require.Equal(t, &Propose{Cmd: CmdID{1, 1}, Command: kvs.Command{Op: kvs.OpCAS, Key: "k",
		Expect: kvs.ExpectVersion, ExpectVersion: 7, Delete: true}}, m)
}

func TestDecodeRejects(t *testing.T) {
	get := cat([]byte{byte(kvs.OpGet)}, uv(1), []byte("k"))
	entry := cat(uv(1), uv(0), cmd11, get, []byte{byte(Strong)}, uv(0))
	cases := []struct {
		name   string
		typ    MsgType
		body   []byte
		detail string
	}{
		{"type zero", 0, nil, "unknown message type 0"},
		{"type end", typeEnd, nil, "unknown message type"},
		{"type 255", 255, cat(uv(1)), "unknown message type 255"},
		{"empty body", TypeCommit, nil, "truncated varint"},
		{"truncated varint", TypeCollect, []byte{0x80}, "truncated varint"},
		{"varint of 11 bytes", TypeCollect, bytes.Repeat([]byte{0xff}, 11), "overflows"},
		{"non-minimal varint", TypeCollect, []byte{0x81, 0x00}, "non-minimal"},
		{"non-minimal zero", TypeCollect, []byte{0x80, 0x00}, "non-minimal"},
		{"ballot over 32 bits", TypeCollect, uv(math.MaxUint32 + 1), "ballot exceeds 32 bits"},
		{"replica over 32 bits", TypeNewView, cat(uv(1), sv(math.MaxInt32+1), uv(1), []byte{0}),
			"replica id exceeds"},
		{"replica under 32 bits", TypeNewView, cat(uv(1), sv(math.MinInt32-1), uv(1), []byte{0}),
			"replica id exceeds"},
		{"bool 2", TypeNewView, cat(uv(1), sv(0), uv(1), []byte{2}), "bool not 0 or 1"},
		{"trailing byte", TypeCommit, cat(uv(1), uv(2), []byte{0}), "1 trailing bytes"},
		{"routed hello", TypeRouted, cat(uv(7), []byte{byte(TypeHello)}, []byte{byte(PeerClient)}, sv(0), uv(7), uv(0)),
			"a Routed cannot carry a Hello"},
		{"routed routed", TypeRouted, cat(uv(7), []byte{byte(TypeRouted)}, uv(7), []byte{byte(TypeSync)}, cmd11),
			"a Routed cannot carry a Routed"},
		{"routed unknown", TypeRouted, cat(uv(7), []byte{byte(typeEnd)}), "a Routed cannot carry a MsgType"},
		{"routed empty", TypeRouted, uv(7), "truncated"},
		{"routed bad inner", TypeRouted, cat(uv(7), []byte{byte(TypeSync)}, cmd11, []byte{0}), "trailing bytes"},
		{"peer kind 0", TypeHello, cat([]byte{0}, sv(0), uv(0)), "invalid PeerKind 0"},
		{"peer kind 4", TypeHello, cat([]byte{4}, sv(0), uv(0)), "invalid PeerKind 4"},
		{"op 0 in propose", TypePropose, cat(cmd11, []byte{0}, uv(0), uv(0)), "invalid Op 0"},
		{"op 8 in propose", TypePropose, cat(cmd11, []byte{8}, uv(0), uv(0)), "invalid Op 8"},
		{"expect 4", TypePropose, cat(cmd11, []byte{byte(kvs.OpCAS)}, uv(1), []byte("k"), []byte{4}, []byte{1}, uv(0), uv(0)),
			"invalid Expect 4"},
		{"key too long", TypePropose, cat(cmd11, []byte{byte(kvs.OpGet)}, uv(kvs.MaxKeyLimit+1),
			make([]byte, kvs.MaxKeyLimit+1), uv(0), uv(0)), "key length 65537 over 65536"},
		{"value too long", TypePropose, cat(cmd11, []byte{byte(kvs.OpPut)}, uv(0), uv(kvs.MaxValueLimit+1)),
			"value length 15728641 over 15728640"},
		{"value past end", TypePropose, cat(cmd11, []byte{byte(kvs.OpPut)}, uv(0), uv(10),
			[]byte("short")), "exceeds the 5 bytes left"},
		{"scan limit over 63 bits", TypePropose, cat(cmd11, []byte{byte(kvs.OpScan)}, uv(0), uv(0), uv(math.MaxUint64), uv(0), uv(0)),
			"SCAN limit exceeds 63 bits"},
		{"value length huge", TypeSyncReply, cat(sv(0), uv(0), cmd11, []byte{0, 0}, uv(math.MaxUint64)), "over"},
		{"result flags", TypeSyncReply, cat(sv(0), uv(0), cmd11, []byte{8, 0}), "invalid result flags 0x8"},
		{"result error", TypeSyncReply, cat(sv(0), uv(0), cmd11, []byte{0, 3}), "invalid result error 3"},
		{"readdep kind 3", TypeLeaderReply, cat(sv(0), uv(0), cmd11, []byte{0, 0}, []byte{0, 0}, uv(0), uv(0), uv(0), uv(0),
			[]byte{3}), "invalid ReadDepKind 3"},
		{"readdep one without cmd", TypeLeaderReply, cat(sv(0), uv(0), cmd11, []byte{0, 0}, []byte{0, 0}, uv(0), uv(0), uv(0),
			uv(0), []byte{byte(DepOne)}), "truncated"},
		{"readdep none with cmd", TypeLeaderReply, cat(sv(0), uv(0), cmd11, []byte{0, 0}, []byte{0, 0}, uv(0), uv(0), uv(0),
			uv(0), []byte{byte(DepNone)}, uv(0), cmd11), "2 trailing bytes"},
		{"level 0", TypeAccept, cat(uv(1), sv(0), uv(0), uv(0), uv(1),
			cat(uv(1), uv(0), cmd11, get, []byte{0}, uv(0)), uv(0)), "invalid Level 0"},
		{"level 3", TypeWitnessSync, cat(uv(1), cmd11, get, []byte{3}, []byte{1}, uv(0), uv(0), uv(0), uv(0)),
			"invalid Level 3"},
		{"entry count over remaining", TypeAccept, cat(uv(1), sv(0), uv(0), uv(0), uv(2), entry, uv(0)),
			"list of 2 elements cannot fit in 10 bytes"},
		{"entry count huge", TypeAccept, cat(uv(1), sv(0), uv(0), uv(0), uv(math.MaxUint64)),
			"list of 18446744073709551615 elements"},
		{"record count huge", TypeCollectReply, cat(uv(1), sv(0), uv(1<<40)), "cannot fit"},
		{"causal deps count", TypeRecordAck, cat(sv(0), uv(0), cmd11, []byte{1}, uv(3), cmd11, cmd11),
			"list of 3 elements cannot fit in 4 bytes"},
		{"slotof count", TypeWeakCommit, cat(uv(0), uv(2), cmd11, uv(1), []byte{0}), "list of 2 elements"},
		{"item count", TypeWeakReadReply, cat(sv(0), uv(0), cmd11, uv(0), []byte{0}, []byte{0, 0}, uv(0), uv(0),
			uv(2), uv(0), uv(0), []byte{0}, uv(0), uv(0), uv(0)), "list of 2 elements cannot fit in 6 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Decode(c.typ, c.body)
			require.ErrorIs(t, err, ErrMalformed)
			require.ErrorContains(t, err, c.detail)
			require.Nil(t, m)
		})
	}
}

// TestForgedCountsAllocateLittle: a tiny body claiming a huge list is
// rejected before any slice is made.
func TestForgedCountsAllocateLittle(t *testing.T) {
	body := cat(uv(1), sv(0), uv(0), uv(0), uv(1<<40))
	allocs := testing.AllocsPerRun(50, func() {
		_, _ = Decode(TypeAccept, body)
	})
	require.LessOrEqual(t, allocs, 6.0, "error path only formats the error")
}

func TestDecodeAllocations(t *testing.T) {
	// One allocation for the message, one for a command's key and value,
	// and per list one for its elements and one for all their keys and
	// values.
	cases := []struct {
		msg    Message
		allocs float64
	}{
		{&Commit{Ballot: 1, CommitIndex: 2}, 1},
		{&Propose{Cmd: cmdA, Command: putCmd}, 2},
		{&LeaderReply{Cmd: cmdA, Result: kvs.Result{Value: binValue}}, 2},
		{&Accept{Entries: sampleEntries()[:3]}, 1 + 1 + 1},
		{&Accept{Entries: sampleEntries()}, 1 + 1 + 1 + 1}, // a CAS's expected value is copied on its own
		{&WitnessSync{Records: sampleRecords()[:3]}, 1 + 1 + 1},
		{&WitnessSync{Records: sampleRecords()}, 1 + 1 + 1 + 1}, // a SCAN's end is copied on its own
		{&Accept{Entries: []Entry{{Command: getCmd, Level: Weak}}}, 1 + 1 + 1},
		{&Accept{Entries: []Entry{{Command: noopCmd, Level: Weak}}}, 1 + 1},
	}
	for _, c := range cases {
		typ, body := frameOf(t, c.msg)
		got := testing.AllocsPerRun(100, func() {
			if _, err := Decode(typ, body); err != nil {
				panic(err)
			}
		})
		require.Equal(t, c.allocs, got, "%v", typ)
	}
}

// TestListValuesDoNotOverlap: the values of one list share an array, but
// appending to one must not overwrite the next.
func TestListValuesDoNotOverlap(t *testing.T) {
	typ, body := frameOf(t, &Accept{Entries: sampleEntries()})
	m, err := Decode(typ, body)
	require.NoError(t, err)
	es := m.(*Accept).Entries
	require.Equal(t, len(es[0].Command.Value), cap(es[0].Command.Value))
	_ = append(es[0].Command.Value, 'X')
	require.Equal(t, binValue, es[1].Command.Value)
	require.Nil(t, es[2].Command.Value)
}

// TestDecodeMemoryBound: the worst case for allocation per input byte is a
// list of minimal elements; decoding stays within doc.go's bound of about
// the message's struct plus 21 bytes allocated per input byte (an 8-byte
// Entry of a NOOP fills 168 bytes).
func TestDecodeMemoryBound(t *testing.T) {
	const n = 100_000
	cases := map[MsgType]Message{
		TypeAccept:      &Accept{Entries: make([]Entry, n)},
		TypeWitnessSync: &WitnessSync{Records: make([]Record, n)},
		TypeRecordAck:   &RecordAck{CausalDeps: make([]CmdID, n)},
		TypeWeakCommit:  &WeakCommit{Commits: make([]SlotOf, n)},
		TypeSyncReply:   &SyncReply{Result: kvs.Result{Items: make([]kvs.Item, n)}},
	}
	smallest := kvs.Command{Op: kvs.OpGet}
	for i := range n {
		cases[TypeAccept].(*Accept).Entries[i] = Entry{Command: smallest, Level: Strong}
		cases[TypeWitnessSync].(*WitnessSync).Records[i] = Record{Command: smallest, Level: Weak}
	}
	for typ, m := range cases {
		_, body := frameOf(t, m)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got, err := Decode(typ, body)
		runtime.ReadMemStats(&after)
		require.NoError(t, err)
		require.Equal(t, m, got)
		perByte := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(body))
		t.Logf("%v: %d body bytes, %.1f bytes allocated per byte (%d allocs)", typ, len(body), perByte,
			after.Mallocs-before.Mallocs)
		require.LessOrEqual(t, after.TotalAlloc-before.TotalAlloc, uint64(160+21*len(body)), "%v", typ)
	}
}
