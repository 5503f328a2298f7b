package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"swiftpaxos/kvs"
	"swiftpaxos/wire"
	"swiftpaxos/wire/applog"
)

// readAppliedLog decodes the complete lines of the applied log at path;
// a last line the writer has not finished is left out. The checker's
// reader accepts the same lines (check's TestAppendLine).
func readAppliedLog(t *testing.T, path string) []applog.Entry {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []applog.Entry
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return out
		}
		var e applog.Entry
		require.NoError(t, json.Unmarshal(b[:i], &e))
		out = append(out, e)
		b = b[i+1:]
	}
}

func TestAppliedLogRefusesAnEarlierLifetimesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log-replica2.1.jsonl")
	require.NoError(t, os.WriteFile(path, []byte("{\"slot\":1,\"op\":\"noop\"}\n"), 0o644))
	_, err := openAppliedLog(path, zaptest.NewLogger(t))
	require.ErrorContains(t, err, "already exists")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "{\"slot\":1,\"op\":\"noop\"}\n", string(b), "the earlier log is untouched")
}

// TestAppliedLogIsWrittenAsItGoes: what is recorded reaches the file
// without Close (a kill -9 keeps it), in order, with a snapshot marker and
// a SCAN and every other kind of command, one line each; a PUT's value is
// copied when recorded.
func TestAppliedLogIsWrittenAsItGoes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log-replica0.1.jsonl")
	w, err := openAppliedLog(path, zaptest.NewLogger(t))
	require.NoError(t, err)
	flushed := make(chan struct{}, 1)
	w.flushed = func() {
		select {
		case flushed <- struct{}{}:
		default:
		}
	}
	w.start()
	defer func() { require.NoError(t, w.Close()) }()

	value := []byte("v1")
	w.snapshot(4)
	w.record(&wire.Entry{Slot: 5, Cmd: wire.CmdID{Client: 0xab, Seq: 1}, Command: kvs.Command{Op: kvs.OpPut, Key: key(7), Value: value}}, kvs.Result{Version: 5})
	copy(value, "zz") // the decoder reuses its buffer
	w.record(&wire.Entry{Slot: 6, Cmd: wire.CmdID{Client: 0xcd, Seq: 3}, Command: kvs.Command{Op: kvs.OpScan, Key: key(6), End: key(9), Limit: 1}},
		kvs.Result{Items: []kvs.Item{{Key: key(7), Value: kvs.Value("v1"), Found: true, Version: 5}}, More: true, Version: 5})
	w.record(&wire.Entry{Slot: 7, Cmd: wire.CmdID{Client: 0xcd, Seq: 4}, Command: kvs.Command{Op: kvs.OpCAS, Key: key(7), Expect: kvs.ExpectVersion, ExpectVersion: 5, Value: kvs.Value("v2")}},
		kvs.Result{Applied: true, Value: kvs.Value("v2"), Found: true, Version: 7})
	w.record(&wire.Entry{Slot: 8, Cmd: wire.CmdID{Client: 0xab, Seq: 2}, Command: kvs.Command{Op: kvs.OpIncr, Key: key(8), Delta: 2}},
		kvs.Result{Value: kvs.Value("2"), Found: true, Version: 8})
	w.record(&wire.Entry{Slot: 9, Cmd: wire.CmdID{Client: 0xab, Seq: 3}, Command: kvs.Command{Op: kvs.OpDelete, Key: key(7)}},
		kvs.Result{Found: true, Version: 9})
	w.record(&wire.Entry{Slot: 10, Command: kvs.Command{Op: kvs.OpNoop}}, kvs.Result{})
	// A SCAN is one line, whatever it returned: its range, limit, how many
	// keys it returned and whether more exist.
	want := []applog.Entry{
		{Slot: 4, Kind: applog.Snapshot},
		{Slot: 5, Session: "ab", Seq: 1, Kind: applog.Put, Key: key(7), Value: "v1"},
		{Slot: 6, Session: "cd", Seq: 3, Kind: applog.Scan, Key: key(6), End: key(9), Limit: 1, Items: 1, More: true},
		{Slot: 7, Session: "cd", Seq: 4, Kind: applog.CAS, Key: key(7), Value: "v2", Applied: true, Found: true, Ret: "v2"},
		{Slot: 8, Session: "ab", Seq: 2, Kind: applog.Incr, Key: key(8), Delta: 2, Applied: true, Found: true, Ret: "2"},
		{Slot: 9, Session: "ab", Seq: 3, Kind: applog.Delete, Key: key(7), Found: true},
		{Slot: 10, Kind: applog.Noop},
	}
	const first = 11
	// Enough more to wake the writer before its period.
	for i := range appliedLogFlushAt {
		s := kvs.Slot(first + i)
		w.record(&wire.Entry{Slot: s, Cmd: wire.CmdID{Client: 0xab, Seq: wire.Seq(first + i)}, Command: kvs.Command{Op: kvs.OpGet, Key: key(7)}}, kvs.Result{Value: kvs.Value("v1"), Found: true, Version: 5})
		want = append(want, applog.Entry{Slot: s, Session: "ab", Seq: wire.Seq(first + i), Kind: applog.Get, Key: key(7), Ret: "v1", Found: true})
	}
	for {
		<-flushed
		got := readAppliedLog(t, path)
		if len(got) == len(want) {
			require.Equal(t, want, got)
			break
		}
		require.Less(t, len(got), len(want))
		require.Equal(t, want[:len(got)], got, "a prefix while writing")
	}
}

// TestAppliedLogCopiesCASValue: a CAS's line carries the value it writes,
// which is copied when recorded, as a PUT's is (record: the command's
// buffer may be reused once the loop moves on).
func TestAppliedLogCopiesCASValue(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log-replica1.jsonl")
	w, err := openAppliedLog(path, zaptest.NewLogger(t))
	require.NoError(t, err)
	value := []byte("v2")
	w.record(&wire.Entry{Slot: 1, Cmd: wire.CmdID{Client: 1, Seq: 1}, Command: kvs.Command{Op: kvs.OpCAS, Key: key(1), Expect: kvs.ExpectAbsent, Value: value}},
		kvs.Result{Applied: true, Value: kvs.Value("v2"), Found: true, Version: 1})
	copy(value, "zz")
	w.start()
	require.NoError(t, w.Close())
	require.Equal(t, []applog.Entry{{Slot: 1, Session: "1", Seq: 1, Kind: applog.CAS, Key: key(1), Value: "v2", Applied: true, Found: true, Ret: "v2"}},
		readAppliedLog(t, path))
}

// TestAppliedLogWrittenAtClose: Close writes what is still pending.
func TestAppliedLogWrittenAtClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log-replica1.jsonl")
	w, err := openAppliedLog(path, zaptest.NewLogger(t))
	require.NoError(t, err)
	w.record(&wire.Entry{Slot: 1, Cmd: wire.CmdID{Client: 1, Seq: 1}, Command: kvs.Command{Op: kvs.OpGet, Key: key(1)}}, kvs.Result{})
	w.start()
	require.NoError(t, w.Close())
	got := readAppliedLog(t, path)
	require.Equal(t, []applog.Entry{{Slot: 1, Session: "1", Seq: 1, Kind: applog.Get, Key: key(1)}}, got)
}

func key(i int) kvs.Key { return kvs.Key(fmt.Sprintf("k%03d", i)) }
