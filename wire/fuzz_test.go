package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
)

// FuzzDecode feeds arbitrary bytes to a Reader (as a stream of frames) and to
// Decode (as the body of every type, both the whole input and the input after
// a frame header). Whatever decodes must re-encode to exactly the input bytes
// (the encoding is canonical) and decode again to an equal message; whatever
// does not decode must fail with ErrMalformed or a truncation error.
func FuzzDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzReader(t, data)
		bodies := [][]byte{data}
		if len(data) >= frameHeader {
			bodies = append(bodies, data[frameHeader:])
		}
		for _, body := range bodies {
			for typ := MsgType(0); typ <= typeEnd; typ++ {
				fuzzBody(t, typ, body)
			}
		}
	})
}

func fuzzReader(t *testing.T, data []byte) {
	r := NewReader(bytes.NewReader(data), 1<<16)
	off := 0
	for {
		m, err := r.Next()
		if err != nil {
			if err == io.EOF {
				require.Equal(t, len(data), off, "EOF only at the end of the input")
			} else if !errors.Is(err, ErrMalformed) {
				require.Equal(t, io.ErrUnexpectedEOF, err)
			}
			require.Nil(t, m)
			return
		}
		frame := AppendFrame(nil, m)
		require.True(t, bytes.HasPrefix(data[off:], frame), "%v does not re-encode to its frame", m.Type())
		off += len(frame)
	}
}

func fuzzBody(t *testing.T, typ MsgType, body []byte) {
	// Decode from a scratch copy, then wreck it: the message must not change.
	scratch := bytes.Clone(body)
	m, err := Decode(typ, scratch)
	if err != nil {
		// Plain checks: most inputs take this path, and require is slow.
		if !errors.Is(err, ErrMalformed) || m != nil {
			t.Fatalf("Decode(%v) = %v, %v; want nil and ErrMalformed", typ, m, err)
		}
		return
	}
	for i := range scratch {
		scratch[i] ^= 0x5a
	}
	require.Equal(t, typ, m.Type())
	gotType, again := frameOf(t, m)
	require.Equal(t, typ, gotType)
	require.Equal(t, body, again, "%v: decoded message re-encodes differently", typ)
	m2, err := Decode(typ, again)
	require.NoError(t, err)
	require.Equal(t, m, m2)
}

var updateCorpus = flag.Bool("update-corpus", false,
	"rewrite the seed files of testdata/fuzz/FuzzDecode")

// corpusEntry renders data in the format of Go's fuzzing corpus files.
func corpusEntry(data []byte) []byte {
	return fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", data)
}

// seeds returns the seed inputs: the frame of every example small enough to
// mutate quickly, a stream of several frames, and truncated and garbage
// inputs. They double as golden files of the wire format.
func seeds() map[string][]byte {
	s := map[string][]byte{}
	var all []byte
	for _, ex := range examples() {
		f := AppendFrame(nil, ex.msg)
		if len(f) > 4096 {
			continue
		}
		s["seed-"+ex.name] = f
		all = append(all, f...)
	}
	s["seed-stream-all"] = all
	accept := AppendFrame(nil, &Accept{Ballot: 3, Leader: 1, Entries: sampleEntries()})
	s["seed-truncated-accept"] = accept[:len(accept)/2]
	s["seed-truncated-header"] = accept[:3]
	s["seed-trailing-garbage"] = append(AppendFrame(nil, &Commit{Ballot: 1, CommitIndex: 2}), 0xde, 0xad)
	s["seed-unknown-type"] = []byte{1, 0, 0, 0, byte(typeEnd), 0}
	s["seed-oversized"] = append(binary.LittleEndian.AppendUint32(nil, 1<<31), byte(TypeAccept), 0)
	s["seed-bad-op"] = AppendFrame(nil, &Propose{Cmd: cmdA, Command: kvs.Command{Op: 9}})
	s["seed-bad-level"] = AppendFrame(nil, &Accept{Entries: []Entry{{Command: getCmd, Level: 7}}})
	s["seed-forged-count"] = append([]byte{4, 0, 0, 0, byte(TypeWitnessSync)}, 0xff, 0xff, 0xff, 0x7f)
	s["seed-garbage"] = []byte("\xff\xff\xff\xff\xff\x00\x80\x80\x80")
	return s
}

// TestSeedCorpus checks that the committed seeds equal what the codec
// produces today: a change to the wire format fails here. Regenerate with
// go test ./wire -run TestSeedCorpus -update-corpus after an
// intended change.
func TestSeedCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzDecode")
	s := seeds()
	require.GreaterOrEqual(t, len(s), 25)
	if *updateCorpus {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		for name, data := range s {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), corpusEntry(data), 0o644))
		}
	}
	for name, data := range s {
		got, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err, "seed %s missing: run with -update-corpus", name)
		require.Equal(t, string(corpusEntry(data)), string(got), "seed %s is stale", name)
	}
}
