package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
)

func stream(t testing.TB, ms ...Message) []byte {
	t.Helper()
	var b []byte
	for _, m := range ms {
		b = AppendFrame(b, m)
	}
	return b
}

func TestReaderStream(t *testing.T) {
	var msgs, want []Message
	for _, ex := range examples() {
		msgs = append(msgs, ex.msg)
		want = append(want, ex.expected())
	}
	data := stream(t, msgs...)
	// One byte per Read exercises every partial-read path of the Reader.
	for name, src := range map[string]io.Reader{
		"whole":    bytes.NewReader(data),
		"one-byte": iotest.OneByteReader(bytes.NewReader(data)),
	} {
		t.Run(name, func(t *testing.T) {
			r := NewReader(src, 0)
			var got []Message
			for {
				m, err := r.Next()
				if err == io.EOF {
					break
				}
				require.NoError(t, err)
				got = append(got, m)
			}
			// Messages kept across Next calls are intact: nothing aliases
			// the Reader's reused buffer.
			require.Equal(t, want, got)
			_, err := r.Next()
			require.Equal(t, io.EOF, err, "EOF is sticky")
		})
	}
}

func TestReaderErrors(t *testing.T) {
	propose := AppendFrame(nil, &Propose{Cmd: cmdA, Command: putCmd})
	header := func(n uint32, typ MsgType) []byte {
		return append(binary.LittleEndian.AppendUint32(nil, n), byte(typ))
	}
	cases := []struct {
		name      string
		data      []byte
		maxFrame  int
		malformed bool
		err       error
	}{
		{"empty stream", nil, 0, false, io.EOF},
		{"partial header", propose[:3], 0, false, io.ErrUnexpectedEOF},
		{"header only", propose[:frameHeader], 0, false, io.ErrUnexpectedEOF},
		{"partial body", propose[:len(propose)-1], 0, false, io.ErrUnexpectedEOF},
		{"unknown type", header(0, 0), 0, true, nil},
		{"type past end", header(1, typeEnd), 0, true, nil},
		{"over MaxFrame", header(MaxFrame+1, TypeAccept), 0, true, nil},
		{"over own limit", propose, len(propose) - frameHeader - 1, true, nil},
		{"bad body", append(header(1, TypeCommit), 0x80), 0, true, nil},
		{"huge frame, little data", append(header(MaxFrame, TypeAccept), 1, 2, 3), 0, false,
			io.ErrUnexpectedEOF},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := NewReader(bytes.NewReader(c.data), c.maxFrame)
			m, err := r.Next()
			require.Nil(t, m)
			if c.malformed {
				require.ErrorIs(t, err, ErrMalformed)
			} else {
				require.Equal(t, c.err, err)
			}
			_, again := r.Next()
			require.Equal(t, err, again, "errors are sticky")
		})
	}
}

func TestReaderLimit(t *testing.T) {
	f := AppendFrame(nil, &Propose{Cmd: cmdA, Command: putCmd})
	n := len(f) - frameHeader
	m, err := NewReader(bytes.NewReader(f), n).Next()
	require.NoError(t, err, "a frame of exactly the limit is accepted")
	require.Equal(t, &Propose{Cmd: cmdA, Command: putCmd}, m)
	require.Equal(t, MaxFrame, NewReader(nil, MaxFrame+1).max, "limit clamped to MaxFrame")
}

// TestReaderHugeFrameAllocatesLittle: a peer that announces MaxFrame and
// sends a few bytes costs about growStep, not MaxFrame.
func TestReaderHugeFrameAllocatesLittle(t *testing.T) {
	data := append(binary.LittleEndian.AppendUint32(nil, MaxFrame), byte(TypeAccept), 1, 2, 3)
	r := NewReader(bytes.NewReader(data), 0)
	_, err := r.Next()
	require.Equal(t, io.ErrUnexpectedEOF, err)
	require.LessOrEqual(t, cap(r.buf), 2*growStep)
}

// TestReaderLargeFrame crosses several growth steps and the keepBuf limit.
func TestReaderLargeFrame(t *testing.T) {
	big := &Accept{Ballot: 1}
	for i := range 40 {
		big.Entries = append(big.Entries, Entry{Slot: kvs.Slot(1 + i), Cmd: cmdA, Command: putCmd,
			Level: Strong})
		big.Entries[i].Command.Value = bigValue
	}
	data := stream(t, big, &Commit{Ballot: 1, CommitIndex: 40})
	require.Greater(t, len(data), keepBuf)
	r := NewReader(iotest.HalfReader(bytes.NewReader(data)), 0)
	m, err := r.Next()
	require.NoError(t, err)
	require.Equal(t, big, m)
	require.Greater(t, cap(r.buf), keepBuf)
	m, err = r.Next()
	require.NoError(t, err)
	require.Equal(t, &Commit{Ballot: 1, CommitIndex: 40}, m)
	_, err = r.Next()
	require.Equal(t, io.EOF, err)
	require.LessOrEqual(t, cap(r.buf), keepBuf, "an empty buffer above keepBuf is released")
}

// loop repeats one frame forever, so Next can be measured in steady state.
type loop struct {
	frame []byte
	off   int
}

func (l *loop) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], l.frame[l.off:])
		n += c
		l.off = (l.off + c) % len(l.frame)
	}
	return n, nil
}

func TestReaderSteadyStateAllocations(t *testing.T) {
	for _, m := range []Message{
		&Propose{Cmd: cmdA, Command: putCmd},
		&Accept{Ballot: 3, Entries: sampleEntries()},
	} {
		typ, body := frameOf(t, m)
		decodeAllocs := testing.AllocsPerRun(100, func() { _, _ = Decode(typ, body) })
		r := NewReader(&loop{frame: AppendFrame(nil, m)}, 0)
		readAllocs := testing.AllocsPerRun(100, func() {
			got, err := r.Next()
			if err != nil || got.Type() != typ {
				panic(errors.Join(err, errors.New("wrong message")))
			}
		})
		require.Equal(t, decodeAllocs, readAllocs, "%v: Reader allocates beyond the message", typ)
	}
}

// Buffered is true exactly while a whole frame waits in the buffer.
func TestReaderBuffered(t *testing.T) {
	frames := AppendFrame(nil, &Sync{Cmd: CmdID{Client: 1, Seq: 1}})
	frames = AppendFrame(frames, &Sync{Cmd: CmdID{Client: 1, Seq: 2}})
	pr, pw := io.Pipe()
	r := NewReader(pr, 0)
	assert.False(t, r.Buffered(), "nothing has arrived")
	go func() {
		// The second frame arrives without its last byte, then the byte.
		_, _ = pw.Write(frames[:len(frames)-1])
		_, _ = pw.Write(frames[len(frames)-1:])
		pw.Close()
	}()
	m, err := r.Next()
	require.NoError(t, err)
	assert.Equal(t, Seq(1), m.(*Sync).Cmd.Seq)
	// An io.Pipe read returns one write's bytes: the buffer holds the
	// second frame but its last byte.
	require.False(t, r.Buffered(), "a frame without its last byte counted as buffered")
	m, err = r.Next()
	require.NoError(t, err)
	assert.Equal(t, Seq(2), m.(*Sync).Cmd.Seq)
	_, err = r.Next()
	require.ErrorIs(t, err, io.EOF)
	assert.True(t, r.Buffered(), "a failed reader returns at once")
}

// emptyReader returns nothing, and no error, for ever.
type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

// TestReaderNoProgress: a source that keeps returning nothing is an error,
// not a loop without end.
func TestReaderNoProgress(t *testing.T) {
	_, err := NewReader(emptyReader{}, 0).Next()
	require.ErrorIs(t, err, io.ErrNoProgress)
}
