package disk

import (
	"os"

	"golang.org/x/sys/unix"
)

// writeback starts writing [off, off+n) of f to disk and waits until
// everything before off is written: at most two ranges are in flight.
func writeback(f *os.File, off, n int64) {
	fd := int(f.Fd())
	_ = unix.SyncFileRange(fd, off, n, unix.SYNC_FILE_RANGE_WRITE)
	if off > 0 {
		_ = unix.SyncFileRange(fd, 0, off, unix.SYNC_FILE_RANGE_WAIT_BEFORE|unix.SYNC_FILE_RANGE_WRITE|unix.SYNC_FILE_RANGE_WAIT_AFTER)
	}
}
