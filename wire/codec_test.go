package wire

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
)

// frameOf encodes m and checks the frame header against the body.
func frameOf(t testing.TB, m Message) (MsgType, []byte) {
	t.Helper()
	f := AppendFrame(nil, m)
	require.GreaterOrEqual(t, len(f), frameHeader)
	require.Equal(t, uint32(len(f)-frameHeader), binary.LittleEndian.Uint32(f), "length field")
	require.Equal(t, byte(m.Type()), f[4], "type byte")
	return MsgType(f[4]), f[frameHeader:]
}

func TestRoundTrip(t *testing.T) {
	for _, ex := range examples() {
		t.Run(ex.name, func(t *testing.T) {
			typ, body := frameOf(t, ex.msg)
			got, err := Decode(typ, body)
			require.NoError(t, err)
			// DeepEqual: a nil slice does not equal an empty one, so the
			// nil/empty rule of doc.go is checked through ex.want.
			require.Equal(t, ex.expected(), got)
			// Canonical: the decoded message re-encodes to the same bytes.
			_, again := frameOf(t, got)
			require.Equal(t, body, again)
		})
	}
}

// TestEveryTypeHasACase fails when a message type is added without an
// example, and hence without proof that the codec handles it.
func TestEveryTypeHasACase(t *testing.T) {
	covered := map[MsgType]bool{}
	for _, ex := range examples() {
		covered[ex.msg.Type()] = true
	}
	for typ := TypeHello; typ < typeEnd; typ++ {
		require.True(t, covered[typ], "no round-trip example for %v (type %d)", typ, uint8(typ))
		require.True(t, typ.Valid())
		require.NotEqual(t, "", typeNames[typ], "type %d has no name", uint8(typ))
	}
	require.False(t, MsgType(0).Valid())
	require.False(t, typeEnd.Valid())
	require.Equal(t, "MsgType(0)", MsgType(0).String())
	require.Equal(t, "Propose", TypePropose.String())
}

// TestWireBytes pins the byte layout of doc.go's worked example.
func TestWireBytes(t *testing.T) {
	got := AppendFrame(nil, &Sync{Cmd: CmdID{Client: 5, Seq: 300}})
	require.Equal(t, []byte{0x03, 0, 0, 0, 0x06, 0x05, 0xac, 0x02}, got)

	got = AppendFrame([]byte("xy"), &Hello{Kind: PeerClient, Replica: NoReplica, Client: 1})
	require.Equal(t, []byte{'x', 'y', 0x08, 0, 0, 0, 0x01, 0x02, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00}, got, "appends after dst")
}

// TestMinimumSizes checks the list-element bounds used against forged
// counts: an element smaller than its bound would be rejected wrongly.
func TestMinimumSizes(t *testing.T) {
	smallest := kvs.Command{Op: kvs.OpNoop}
	require.Len(t, appendCmdID(nil, CmdID{}), minCmdID)
	require.Len(t, appendCommand(nil, &smallest), minCommand)
	require.Len(t, appendEntry(nil, &Entry{Command: smallest, Level: Strong}), minEntry)
	require.Len(t, appendRecords(nil, []Record{{Command: smallest, Level: Strong}}), 1+minRecord)
	_, body := frameOf(t, &WeakCommit{Commits: []SlotOf{{}}})
	require.Len(t, body, 1+1+minSlotOf)
}

func TestEncodeDoesNotAllocate(t *testing.T) {
	buf := make([]byte, 0, 1<<20)
	for _, ex := range examples() {
		allocs := testing.AllocsPerRun(100, func() {
			buf = AppendFrame(buf[:0], ex.msg)
		})
		require.Zero(t, allocs, "%s: AppendFrame allocated", ex.name)
	}
}

func TestDecodeDoesNotAlias(t *testing.T) {
	for _, ex := range examples() {
		typ, body := frameOf(t, ex.msg)
		got, err := Decode(typ, body)
		require.NoError(t, err)
		for i := range body {
			body[i] ^= 0xff
		}
		require.Equal(t, ex.expected(), got, "%s: message changed with its input", ex.name)
	}
}

// TestEveryPrefixFails: every field is mandatory, so each strict prefix of a
// valid body is truncated, and one extra byte is trailing garbage.
func TestEveryPrefixFails(t *testing.T) {
	for _, ex := range examples() {
		if ex.name == "propose-max-value" {
			continue // 64 KiB of prefixes of one value add nothing
		}
		typ, body := frameOf(t, ex.msg)
		for n := 0; n < len(body); n++ {
			m, err := Decode(typ, body[:n])
			require.ErrorIs(t, err, ErrMalformed, "%s: prefix of %d bytes", ex.name, n)
			require.Nil(t, m)
		}
		_, err := Decode(typ, append(body[:len(body):len(body)], 0))
		require.ErrorIs(t, err, ErrMalformed, "%s: trailing byte", ex.name)
		require.ErrorContains(t, err, "trailing")
	}
}

type bogus struct{}

func (bogus) Type() MsgType { return TypeSync }

func TestAppendFrameRejectsForeignMessages(t *testing.T) {
	require.PanicsWithValue(t, "wire: AppendFrame of unsupported message wire.bogus", func() {
		AppendFrame(nil, bogus{})
	})
}

func TestErrorsWrapMalformed(t *testing.T) {
	_, err := Decode(TypeAccept, []byte{1, 1, 1, 1, 0xff, 0x01})
	require.True(t, errors.Is(err, ErrMalformed))
	require.ErrorContains(t, err, "Accept body of 6 bytes")
}

func TestHelloAliasTooLongIsRejected(t *testing.T) {
	long := strings.Repeat("a", MaxAliasLen+1)
	frame := AppendFrame(nil, &Hello{Kind: PeerClient, Replica: NoReplica, Alias: long})
	_, err := Decode(MsgType(frame[4]), frame[5:])
	require.ErrorIs(t, err, ErrMalformed)
	ok := AppendFrame(nil, &Hello{Kind: PeerClient, Replica: NoReplica, Alias: long[1:]})
	m, err := Decode(MsgType(ok[4]), ok[5:])
	require.NoError(t, err)
	require.Equal(t, long[1:], m.(*Hello).Alias)
}
