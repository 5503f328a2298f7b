package cost

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"time"
)

// Roles of a process in Usage.Role.
const (
	RoleReplica = "replica"
	RoleClient  = "client"
)

// Usage is what one process spent over its lifetime, as raw counts.
type Usage struct {
	Alias string `json:"alias"`
	Role  string `json:"role"`
	// WallS is how long the process had run when it was measured.
	WallS float64 `json:"wall_s"`
	// UserUs and SysUs are the process's CPU time in user and kernel
	// mode (getrusage, RUSAGE_SELF), in microseconds.
	UserUs int64 `json:"user_us"`
	SysUs  int64 `json:"sys_us"`
	// IO counts the Read and Write calls on the process's connections.
	IO
	// KernelIO is the kernel's count of all the process's read and write
	// system calls: the calls above, plus a read that returned EAGAIN
	// before the reader waited for the poller (about one per Read call
	// that found no data), plus file I/O (logs, results). Absent where
	// /proc/self/io is not available.
	KernelIO *IO    `json:"kernel_io,omitempty"`
	Links    []Link `json:"links"`
	// Allocs and AllocBytes are the heap allocations of the whole
	// lifetime (runtime.MemStats Mallocs and TotalAlloc: what go test
	// -benchmem counts).
	Allocs     uint64 `json:"allocs"`
	AllocBytes uint64 `json:"alloc_bytes"`
	GCCycles   uint32 `json:"gc_cycles"`
	// GCPauseTotalUs is the total stop-the-world pause of the garbage
	// collector; GCPauseMaxUs the longest, exact over the last 256
	// cycles and otherwise the lower bound of its histogram bucket
	// (/sched/pauses/total/gc:seconds, a few percent wide).
	GCPauseTotalUs int64 `json:"gc_pause_total_us"`
	GCPauseMaxUs   int64 `json:"gc_pause_max_us"`
	// Fsyncs is how many fsyncs a durable replica's log cost (dataDir;
	// absent in memory mode): one per group of batches written together;
	// FsyncUs the time they took together.
	Fsyncs  uint64 `json:"fsyncs,omitempty"`
	FsyncUs uint64 `json:"fsync_us,omitempty"`
}

// Sent sums the process's links.
func (u *Usage) Sent() Link { return Total(u.Links) }

// Total sums links (its To is empty).
func Total(links []Link) Link {
	var t Link
	for _, l := range links {
		t.Conns += l.Conns
		t.Messages += l.Messages
		t.Bytes += l.Bytes
		t.Batches += l.Batches
	}
	t.AvgBatch = ratio(t.Messages, t.Batches)
	return t
}

// started approximates the process's start: package variables are set
// before main runs.
var started = time.Now()

// Take measures the calling process now: its CPU time, m's counts (nil:
// none) and the runtime's allocation and GC statistics. Call it once the
// process has closed its connections, so that every batcher has
// reported. It stops the world once (runtime.ReadMemStats).
func Take(alias, role string, m *Meter) Usage {
	u := Usage{Alias: alias, Role: role, WallS: time.Since(started).Seconds()}
	user, sys := cpuTime()
	u.UserUs, u.SysUs = user.Microseconds(), sys.Microseconds()
	if m != nil {
		u.IO = m.IO()
		u.Links = m.Links()
	}
	u.KernelIO = kernelIO()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	u.Allocs, u.AllocBytes, u.GCCycles = ms.Mallocs, ms.TotalAlloc, ms.NumGC
	u.GCPauseTotalUs = int64(ms.PauseTotalNs / 1000)
	var longest uint64
	for i := range min(int(ms.NumGC), len(ms.PauseNs)) {
		longest = max(longest, ms.PauseNs[i])
	}
	u.GCPauseMaxUs = max(int64(longest/1000), histogramMaxUs("/sched/pauses/total/gc:seconds"))
	return u
}

// histogramMaxUs is the lower bound, in microseconds, of the highest
// non-empty bucket of a runtime/metrics histogram in seconds (0 if the
// runtime does not have it).
func histogramMaxUs(name string) int64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return 0
	}
	h := s[0].Value.Float64Histogram()
	for i := len(h.Counts) - 1; i >= 0; i-- {
		if h.Counts[i] > 0 {
			lo := h.Buckets[i] // bucket i is [Buckets[i], Buckets[i+1])
			if math.IsInf(lo, 0) || lo <= 0 {
				return 0
			}
			return int64(lo * 1e6)
		}
	}
	return 0
}

// WriteFile writes u to path as JSON, atomically, for the summary to
// read (ReadFile).
func WriteFile(path string, u Usage) error {
	b, err := json.MarshalIndent(u, "", "  ")
	if err == nil {
		err = WriteAtomic(path, append(b, '\n'))
	}
	if err != nil {
		return fmt.Errorf("cost %s: %w", path, err)
	}
	return nil
}

// WriteAtomic writes data to a temporary file next to path and renames it
// over path, so that a reader finds the whole file or none: the
// processes' reports (this package's, and the clients' results files)
// are read by the summary after the processes exit, some of them killed.
func WriteAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

// ReadFile reads a file written by WriteFile.
func ReadFile(path string) (Usage, error) {
	var u Usage
	b, err := os.ReadFile(path)
	if err != nil {
		return u, fmt.Errorf("cost: %w", err)
	}
	if err := json.Unmarshal(b, &u); err != nil {
		return u, fmt.Errorf("cost %s: %w", path, err)
	}
	return u, nil
}
