package replica

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/applog"
	"swiftpaxos/replica/wire"
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
// a SCAN; a PUT's value is copied when recorded.
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
	w.record(&wire.Entry{Slot: 5, Cmd: wire.CmdID{Client: 0xab, Seq: 1}, Command: kvs.Command{Op: kvs.OpPut, Key: 7, Value: value}}, kvs.Result{Version: 5})
	copy(value, "zz") // the decoder reuses its buffer
	w.record(&wire.Entry{Slot: 6, Cmd: wire.CmdID{Client: 0xcd, Seq: 3}, Command: kvs.Command{Op: kvs.OpScan, Key: 6, Count: 1}},
		kvs.Result{Items: []kvs.Item{{Key: 7, Value: kvs.Value("v1"), Version: 5}}})
	want := []applog.Entry{
		{Slot: 4, Kind: applog.Snapshot},
		{Slot: 5, Session: "ab", Seq: 1, Kind: applog.Put, Key: 7, Value: "v1"},
		{Slot: 6, Session: "cd", Seq: 3, Kind: applog.Get, Key: 6, Value: "", Scan: true},
		{Slot: 6, Session: "cd", Seq: 3, Kind: applog.Get, Key: 7, Value: "v1", Scan: true},
	}
	// Enough more to wake the writer before its period.
	for i := range appliedLogFlushAt {
		s := kvs.Slot(7 + i)
		w.record(&wire.Entry{Slot: s, Cmd: wire.CmdID{Client: 0xab, Seq: wire.Seq(2 + i)}, Command: kvs.Command{Op: kvs.OpGet, Key: 7}}, kvs.Result{Value: kvs.Value("v1")})
		want = append(want, applog.Entry{Slot: s, Session: "ab", Seq: wire.Seq(2 + i), Kind: applog.Get, Key: 7, Value: "v1"})
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

// TestAppliedLogWrittenAtClose: Close writes what is still pending.
func TestAppliedLogWrittenAtClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log-replica1.jsonl")
	w, err := openAppliedLog(path, zaptest.NewLogger(t))
	require.NoError(t, err)
	w.record(&wire.Entry{Slot: 1, Cmd: wire.CmdID{Client: 1, Seq: 1}, Command: kvs.Command{Op: kvs.OpGet, Key: 1}}, kvs.Result{})
	w.start()
	require.NoError(t, w.Close())
	got := readAppliedLog(t, path)
	require.Equal(t, []applog.Entry{{Slot: 1, Session: "1", Seq: 1, Kind: applog.Get, Key: 1}}, got)
}
