package cost

import (
	"fmt"
	"strings"
)

// PerOp is a cost divided by the run's completed operations.
type PerOp struct {
	CPUUs  float64 `json:"cpu_us"` // UserUs + SysUs
	UserUs float64 `json:"user_us"`
	SysUs  float64 `json:"sys_us"`
	// Syscalls is Reads + Writes: the read and write calls on the
	// connections, not every system call (see the package doc).
	Syscalls float64 `json:"syscalls"`
	Reads    float64 `json:"reads"`
	Writes   float64 `json:"writes"`
	// KernelSyscalls is every read and write system call by the kernel's
	// count (Usage.KernelIO), absent unless every process had it.
	KernelSyscalls *float64 `json:"kernel_syscalls,omitempty"`
	Msgs           float64  `json:"msgs"` // messages sent
	Bytes          float64  `json:"bytes"`
	Allocs         float64  `json:"allocs"`
	AllocBytes     float64  `json:"alloc_bytes"`
	// Fsyncs are the durable replicas' log fsyncs (absent in memory
	// mode).
	Fsyncs float64 `json:"fsyncs,omitempty"`
}

// ProcessCost is one process in a Section: its raw Usage and the same
// divided by the run's operations (not the process's own, so that the
// processes' figures add up to the Section's).
type ProcessCost struct {
	Usage
	PerOp    PerOp   `json:"per_op"`
	AvgBatch float64 `json:"avg_batch"` // messages per write over all its links
}

// Section is the "cost" of summary.json: every process that reported,
// summed, and each on its own.
type Section struct {
	// Ops is what the per-operation figures divide by: the run's
	// completed operations.
	Ops   int64 `json:"ops"`
	PerOp PerOp `json:"per_op"`
	// AvgBatch is messages per batch write over every connection of
	// every process; each process's links have their own.
	AvgBatch       float64 `json:"avg_batch"`
	GCCycles       uint64  `json:"gc_cycles"`
	GCPauseTotalMs float64 `json:"gc_pause_total_ms"` // summed over the processes
	GCPauseMaxMs   float64 `json:"gc_pause_max_ms"`   // the longest in any process
	// FsyncMeanUs is the mean log fsync of the durable replicas (absent
	// in memory mode).
	FsyncMeanUs float64 `json:"fsync_mean_us,omitempty"`
	// Missing names the processes of the run with no report (a replica
	// killed with kill -9 writes none): the sums leave them out.
	Missing   []string      `json:"missing,omitempty"`
	Processes []ProcessCost `json:"processes"`
}

// Merge sums the processes' usages over a run of ops completed operations.
// missing names the processes that did not report.
func Merge(ops int64, us []Usage, missing []string) *Section {
	s := &Section{Ops: ops, Missing: missing, Processes: make([]ProcessCost, 0, len(us))}
	var total Usage
	var sent Link
	kernel := len(us) > 0
	total.KernelIO = &IO{}
	for _, u := range us {
		p := u.Sent()
		s.Processes = append(s.Processes, ProcessCost{Usage: u, PerOp: perOp(&u, p, ops), AvgBatch: p.AvgBatch})
		total.UserUs += u.UserUs
		total.SysUs += u.SysUs
		total.Reads += u.Reads
		total.Writes += u.Writes
		if u.KernelIO == nil {
			kernel = false
		} else {
			total.KernelIO.Reads += u.KernelIO.Reads
			total.KernelIO.Writes += u.KernelIO.Writes
		}
		total.Allocs += u.Allocs
		total.AllocBytes += u.AllocBytes
		total.GCPauseTotalUs += u.GCPauseTotalUs
		total.GCPauseMaxUs = max(total.GCPauseMaxUs, u.GCPauseMaxUs)
		total.Fsyncs += u.Fsyncs
		total.FsyncUs += u.FsyncUs
		s.GCCycles += uint64(u.GCCycles)
		sent.Messages += p.Messages
		sent.Bytes += p.Bytes
		sent.Batches += p.Batches
	}
	if !kernel {
		total.KernelIO = nil
	}
	s.PerOp = perOp(&total, sent, ops)
	s.AvgBatch = ratio(sent.Messages, sent.Batches)
	s.GCPauseTotalMs = float64(total.GCPauseTotalUs) / 1000
	s.GCPauseMaxMs = float64(total.GCPauseMaxUs) / 1000
	s.FsyncMeanUs = ratio(total.FsyncUs, total.Fsyncs)
	return s
}

func perOp(u *Usage, sent Link, ops int64) PerOp {
	if ops <= 0 {
		return PerOp{}
	}
	n := float64(ops)
	var kernel *float64
	if u.KernelIO != nil {
		k := float64(u.KernelIO.Reads+u.KernelIO.Writes) / n
		kernel = &k
	}
	return PerOp{
		KernelSyscalls: kernel,
		CPUUs:          float64(u.UserUs+u.SysUs) / n, UserUs: float64(u.UserUs) / n, SysUs: float64(u.SysUs) / n,
		Syscalls: float64(u.Reads+u.Writes) / n, Reads: float64(u.Reads) / n, Writes: float64(u.Writes) / n,
		Msgs: float64(sent.Messages) / n, Bytes: float64(sent.Bytes) / n,
		Allocs: float64(u.Allocs) / n, AllocBytes: float64(u.AllocBytes) / n,
		Fsyncs: float64(u.Fsyncs) / n,
	}
}

// Line is the section in one line of summary.txt.
func (s *Section) Line() string {
	var b strings.Builder
	if s.Ops <= 0 {
		b.WriteString("Cost per op: no completed operations")
	} else {
		p := s.PerOp
		fmt.Fprintf(&b, "Cost per op: %.1f us CPU (user %.1f, sys %.1f), %.1f syscalls", p.CPUUs, p.UserUs, p.SysUs, p.Syscalls)
		if p.KernelSyscalls != nil {
			fmt.Fprintf(&b, " (%.1f by the kernel's count)", *p.KernelSyscalls)
		}
		fmt.Fprintf(&b, ", %.1f msgs, %s, %.1f allocs", p.Msgs, size(p.Bytes), p.Allocs)
		if p.Fsyncs > 0 {
			fmt.Fprintf(&b, ", %.3f fsyncs (mean %.0f us)", p.Fsyncs, s.FsyncMeanUs)
		}
		fmt.Fprintf(&b, "; GC pause total %s, max %s", millis(s.GCPauseTotalMs), millis(s.GCPauseMaxMs))
	}
	if len(s.Missing) > 0 {
		fmt.Fprintf(&b, " (without %s: no report)", strings.Join(s.Missing, ", "))
	}
	return b.String()
}

// size prints a byte count in B or KB (1000 bytes).
func size(bytes float64) string {
	if bytes < 1000 {
		return fmt.Sprintf("%.0f B", bytes)
	}
	return fmt.Sprintf("%.1f KB", bytes/1000)
}

// millis prints milliseconds to two significant digits, or whole above 10.
func millis(ms float64) string {
	if ms < 1 {
		return fmt.Sprintf("%.2f ms", ms)
	}
	if ms < 10 {
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.0f ms", ms)
}
