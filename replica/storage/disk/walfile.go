package disk

import (
	"strings"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// walFS is the file system pebble runs on: the files of its write-ahead
// log (*.log) are walFiles, the others pebble's own.
type walFS struct {
	vfs.FS
	clock  *syncClock
	reused *atomic.Uint64 // log files pebble recycled
}

func (fs walFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.Create(name, category)
	if err != nil || !strings.HasSuffix(name, ".log") {
		return f, err
	}
	return newWALFile(f, 0, fs.clock)
}

func (fs walFS) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.ReuseForWrite(oldname, newname, category)
	if err != nil || !strings.HasSuffix(newname, ".log") {
		return f, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	fs.reused.Add(1)
	return newWALFile(f, fi.Size(), fs.clock)
}

// walFile is a log file pebble appends to. It counts and times the fsyncs
// (with several Starts in flight the number of commits is not the number
// of fsyncs), and it keeps the file written with zeros up to a chunk ahead
// of pebble's writes, so that those overwrite blocks the file already
// has: an fdatasync then writes the data and flushes the disk, instead of
// also writing the inode's new size and the extents that became written
// (on this machine's ext4, one writer's 4 KiB write and fdatasync 118-132
// us instead of 167-223, three writers at once 218-228 us instead of
// 320-383, with a third less kernel CPU; docs/DECISIONS.md 31). The zeros
// are written with the write that reaches them, at most once per
// zeroChunk of log, and synced with it. Pebble takes zeros after the last
// record of its newest log for the end of the log, as it does after its
// own preallocation and recycling; an older log ends with pebble's EOF
// trailer, written and synced before the next log is created.
type walFile struct {
	vfs.File
	clock *syncClock
	// off is where pebble's next write goes (pebble writes a log in
	// order, from the start, also a recycled one); zeroed is the end of
	// what the file holds, zeros past pebble's data.
	off, zeroed int64
}

// zeroChunk is how far ahead of pebble the zeros go: small against a log
// (pebble rotates it with its memtable, from 256 KiB up to MemTableSize),
// large against one batch.
const zeroChunk = 1 << 20

// zeros is what walFile writes ahead, a piece at a time.
var zeros [64 << 10]byte

func newWALFile(f vfs.File, size int64, clock *syncClock) (*walFile, error) {
	w := &walFile{File: f, clock: clock, zeroed: size}
	if err := w.zeroTo(zeroChunk); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// zeroTo writes zeros from the end of the file up to end.
func (w *walFile) zeroTo(end int64) error {
	for w.zeroed < end {
		n := min(int64(len(zeros)), end-w.zeroed)
		if _, err := w.File.WriteAt(zeros[:n], w.zeroed); err != nil {
			return err
		}
		w.zeroed += n
	}
	return nil
}

func (w *walFile) Write(p []byte) (int, error) {
	if end := w.off + int64(len(p)); end > w.zeroed {
		if err := w.zeroTo(end + zeroChunk); err != nil {
			return 0, err
		}
	}
	n, err := w.File.Write(p)
	w.off += int64(n)
	return n, err
}

// Preallocate does not reserve the space pebble asks for, 110% of
// MemTableSize (35 MiB) at a log's second write, whatever the log's length:
// the zeros written ahead already give pebble's writes blocks the file
// has, so the reservation would only hold disk, in every log file pebble
// keeps (the live ones and up to three it recycles), while their data is
// a few kilobytes on a replica that has little to log.
func (w *walFile) Preallocate(offset, length int64) error { return nil }

func (w *walFile) Sync() error     { return w.timed(w.File.Sync) }
func (w *walFile) SyncData() error { return w.timed(w.File.SyncData) }

func (w *walFile) timed(sync func() error) error {
	t := time.Now()
	err := sync()
	w.clock.observe(time.Since(t))
	return err
}
