package disk

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// writeback starts writing [off, off+n) of f to disk and waits until
// [prev, off), the range started before, is written: at most two ranges
// are in flight. Waiting consumes a write error the fsync would otherwise
// report, so it is returned; a file system without sync_file_range
// (ENOSYS, EINVAL, ESPIPE) is not paced, and its fsync writes it all.
func writeback(f *os.File, prev, off, n int64) error {
	fd := int(f.Fd())
	if err := unix.SyncFileRange(fd, off, n, unix.SYNC_FILE_RANGE_WRITE); err != nil {
		return nil
	}
	if off == prev {
		return nil
	}
	err := unix.SyncFileRange(fd, prev, off-prev, unix.SYNC_FILE_RANGE_WAIT_BEFORE|unix.SYNC_FILE_RANGE_WRITE|unix.SYNC_FILE_RANGE_WAIT_AFTER)
	if err == nil || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ESPIPE) {
		return nil
	}
	return fmt.Errorf("writing back bytes %d-%d: %w", prev, off, err)
}
