package disk

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"swiftpaxos/kvs"
	"swiftpaxos/replica/storage"
	"swiftpaxos/wire"
)

// A snapshot file is the magic, then the snapshot as the InstallSnapshot
// frames a leader would send (the real codec: chunk 0 carries the client
// table, the last says Done), then a CRC-32C (Castagnoli) of everything
// before it, little-endian. The whole file is checked before any of it is
// used.

var snapMagic = []byte("SWPXSNP1")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// snapChunkBytes bounds the values of one frame of a snapshot file.
const snapChunkBytes = 1 << 20

// ErrCorrupt is wrapped by the error for a snapshot file that fails its
// checksum or does not decode.
var ErrCorrupt = errors.New("corrupt snapshot")

// writeSnapshotFile writes sn to path atomically: a temporary file in the
// same directory, written back a range at a time (pacedWriter), synced,
// renamed over path, and the directory synced, so that after a crash path
// holds either the old snapshot or the new one, whole.
func writeSnapshotFile(path string, sn *storage.Snapshot) (int64, error) {
	return writeSnapshotFileWith(path, sn, true)
}

// writeSnapshotFileWith is writeSnapshotFile, paced or not (a benchmark
// compares the two).
func writeSnapshotFileWith(path string, sn *storage.Snapshot, paced bool) (int64, error) {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return 0, fmt.Errorf("snapshot: %w", err)
	}
	var w io.Writer = f
	if paced {
		w = newPacedWriter(f)
	}
	if err := encodeSnapshot(w, sn); err != nil {
		f.Close()
		os.Remove(tmp)
		return 0, fmt.Errorf("snapshot %s: %w", tmp, err)
	}
	fi, err := f.Stat()
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		f.Close()
		return 0, fmt.Errorf("snapshot %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("snapshot %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return 0, fmt.Errorf("snapshot: %w", err)
	}
	return fi.Size(), syncDir(filepath.Dir(path))
}

func encodeSnapshot(w io.Writer, sn *storage.Snapshot) error {
	h := crc32.New(castagnoli)
	bw := bufio.NewWriterSize(io.MultiWriter(w, h), 1<<16)
	bw.Write(snapMagic)
	var buf []byte
	var pos wire.SnapshotCursor
	for chunk := uint32(0); ; chunk++ {
		m := &wire.InstallSnapshot{LastSlot: sn.LastSlot, LastBallot: sn.LastBallot, Chunk: chunk, Leader: wire.NoReplica}
		pos = wire.FillChunk(m, sn.Sessions, sn.Store, pos, snapChunkBytes)
		buf = wire.AppendFrame(buf[:0], m)
		if n := len(buf); n > wire.MaxFrame {
			// The reader refuses such a frame: a file written anyway
			// could never be read back, with the log behind it cut.
			return fmt.Errorf("snapshot chunk %d of %d bytes exceeds the %d-byte frame limit (%d sessions, %d items)",
				chunk, n, wire.MaxFrame, len(m.Sessions), len(m.Items))
		}
		if _, err := bw.Write(buf); err != nil {
			return err
		}
		if m.Done {
			break
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	_, err := w.Write(binary.LittleEndian.AppendUint32(nil, h.Sum32()))
	return err
}

// readSnapshotFile reads the snapshot at path; (nil, nil) if there is
// none. Any damage is an error wrapping ErrCorrupt that names the file.
func readSnapshotFile(path string) (*storage.Snapshot, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	sn, err := decodeSnapshot(b)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrCorrupt, path, err)
	}
	return sn, nil
}

func decodeSnapshot(b []byte) (*storage.Snapshot, error) {
	if len(b) < len(snapMagic)+4 || !bytes.Equal(b[:len(snapMagic)], snapMagic) {
		return nil, errors.New("not a snapshot file (bad magic or too short)")
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if got := crc32.Checksum(body, castagnoli); got != sum {
		return nil, fmt.Errorf("checksum %08x, the file says %08x", got, sum)
	}
	r := wire.NewReader(bytes.NewReader(body[len(snapMagic):]), 0)
	var sn *storage.Snapshot
	store := kvs.NewStore()
	for chunk := uint32(0); ; chunk++ {
		m, err := r.Next()
		if err != nil {
			return nil, fmt.Errorf("frame %d: %w", chunk, err)
		}
		is, ok := m.(*wire.InstallSnapshot)
		if !ok || is.Chunk != chunk || sn != nil && (is.LastSlot != sn.LastSlot || is.LastBallot != sn.LastBallot) {
			return nil, fmt.Errorf("frame %d is not chunk %d of one snapshot", chunk, chunk)
		}
		if chunk == 0 {
			sn = &storage.Snapshot{LastSlot: is.LastSlot, LastBallot: is.LastBallot}
		}
		sn.Sessions = append(sn.Sessions, is.Sessions...)
		store.Load(is.Items)
		if is.Done {
			break
		}
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		return nil, errors.New("data after the last chunk")
	}
	store.SetLastApplied(sn.LastSlot)
	sn.Store = store.Snapshot()
	return sn, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
