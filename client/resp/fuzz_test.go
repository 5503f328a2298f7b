package resp

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strconv"
	"testing"
)

// fuzzLimits are small, so that arbitrary input reaches every bound; the
// first byte of an input chooses them, so that the real bounds are
// fuzzed too.
var fuzzLimits = []Limits{
	{Bulk: 16, Args: 4, Command: 40, Inline: 32},
	{Bulk: 64, Args: 8, Command: 100, Inline: 128},
	{Bulk: 8, Args: 64, Command: 512, Inline: 1024}, // Inline larger than the other bounds
	limitsFor(1024, 1<<20),
}

// FuzzParse reads arbitrary bytes as commands until the parser fails: it
// must not panic, must return only commands within its Limits, must
// stop at the end of the input, and every command it returns, sent again
// as a multibulk, must read back the same.
func FuzzParse(f *testing.F) {
	// The seed corpus is in testdata/fuzz/FuzzParse; these are more.
	f.Add([]byte("\x00*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"))
	f.Add([]byte("\x01SET a \"b c\"\r\nGET 'x\\'y'\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		lim := fuzzLimits[int(data[0])%len(fuzzLimits)]
		p := newParser(bytes.NewReader(data[1:]), lim)
		// The caller keeps a command's arguments: reading the next must
		// not change them.
		var got, kept [][][]byte
		defer func() {
			for i := range got {
				if !slices.EqualFunc(got[i], kept[i], bytes.Equal) {
					t.Fatalf("command %d was %q when read, %q after the next ones", i, kept[i], got[i])
				}
			}
		}()
		// Each command consumes at least one byte, so the input bounds
		// the number of commands.
		for n := 0; ; n++ {
			if n > len(data) {
				t.Fatalf("more than %d commands from %d bytes", n, len(data))
			}
			args, err := p.next()
			if err != nil {
				var pe *ProtocolError
				if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.As(err, &pe) {
					t.Fatalf("error %v (%T): want EOF, unexpected EOF or a protocol error", err, err)
				}
				if args != nil {
					t.Fatalf("arguments %q with an error", args)
				}
				return
			}
			if len(args) == 0 {
				t.Fatal("an empty command: empty lines and *0 are skipped")
			}
			if len(args) > lim.Args {
				t.Fatalf("%d arguments, limit %d", len(args), lim.Args)
			}
			total := 0
			for _, a := range args {
				if len(a) > lim.Bulk {
					t.Fatalf("argument of %d bytes, limit %d", len(a), lim.Bulk)
				}
				total += len(a)
			}
			if total > lim.Command {
				t.Fatalf("command of %d bytes, limit %d", total, lim.Command)
			}
			got = append(got, args)
			kept = append(kept, cloneArgs(args))
			again, err := newParser(bytes.NewReader(multibulk(args...)), lim).next()
			if err != nil || !slices.EqualFunc(args, again, bytes.Equal) {
				t.Fatalf("%q sent as a multibulk reads back as %q, %v", args, again, err)
			}
		}
	})
}

func cloneArgs(args [][]byte) [][]byte {
	out := make([][]byte, len(args))
	for i, a := range args {
		out[i] = bytes.Clone(a)
	}
	return out
}

// multibulk encodes a command as a client library sends it.
func multibulk(args ...[]byte) []byte {
	b := []byte("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b = append(b, "$"+strconv.Itoa(len(a))+"\r\n"...)
		b = append(append(b, a...), "\r\n"...)
	}
	return b
}
