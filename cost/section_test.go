package cost

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMergeSumsAndDividesByTheRunsOperations(t *testing.T) {
	replica := Usage{Alias: "replica0", Role: RoleReplica, UserUs: 300_000, SysUs: 100_000,
		IO:     IO{Reads: 20_000, Writes: 10_000},
		Links:  []Link{{To: "clients", Conns: 4, Messages: 40_000, Bytes: 4_000_000, Batches: 10_000}, {To: "replica1", Conns: 1, Messages: 10_000, Bytes: 1_000_000, Batches: 5_000}},
		Allocs: 500_000, AllocBytes: 50_000_000, GCCycles: 10, GCPauseTotalUs: 3_000, GCPauseMaxUs: 800}
	client := Usage{Alias: "client0", Role: RoleClient, UserUs: 100_000, SysUs: 100_000,
		IO:     IO{Reads: 5_000, Writes: 5_000},
		Links:  []Link{{To: "replica0", Conns: 2, Messages: 10_000, Bytes: 1_000_000, Batches: 5_000}},
		Allocs: 100_000, AllocBytes: 10_000_000, GCCycles: 2, GCPauseTotalUs: 1_000, GCPauseMaxUs: 1_200}

	s := Merge(10_000, []Usage{replica, client}, []string{"replica2"})
	assert.Nil(t, s.PerOp.KernelSyscalls, "only when every process has it")

	assert.Equal(t, PerOp{CPUUs: 60, UserUs: 40, SysUs: 20, Syscalls: 4, Reads: 2.5, Writes: 1.5,
		Msgs: 6, Bytes: 600, Allocs: 60, AllocBytes: 6000}, s.PerOp)
	assert.InDelta(t, 60_000.0/20_000, s.AvgBatch, 1e-9)
	assert.EqualValues(t, 12, s.GCCycles)
	assert.InDelta(t, 4.0, s.GCPauseTotalMs, 1e-9, "summed")
	assert.InDelta(t, 1.2, s.GCPauseMaxMs, 1e-9, "the longest of any process")
	assert.Equal(t, []string{"replica2"}, s.Missing)

	require.Len(t, s.Processes, 2)
	r := s.Processes[0]
	assert.Equal(t, replica, r.Usage)
	assert.InDelta(t, 40.0, r.PerOp.CPUUs, 1e-9, "over the run's operations")
	assert.InDelta(t, 5.0, r.PerOp.Msgs, 1e-9)
	assert.InDelta(t, 50_000.0/15_000, r.AvgBatch, 1e-9)
	var sum float64
	for _, p := range s.Processes {
		sum += p.PerOp.CPUUs
	}
	assert.InDelta(t, s.PerOp.CPUUs, sum, 1e-9, "the processes add up to the run")

	assert.Equal(t, "Cost per op: 60.0 us CPU (user 40.0, sys 20.0), 4.0 syscalls, 6.0 msgs, 600 B, 60.0 allocs; "+
		"GC pause total 4.0 ms, max 1.2 ms (without replica2: no report)", s.Line())
}

func TestMergeKernelCounts(t *testing.T) {
	a := Usage{IO: IO{Reads: 10, Writes: 10}, KernelIO: &IO{Reads: 30, Writes: 12}}
	b := Usage{KernelIO: &IO{Reads: 8}}
	s := Merge(10, []Usage{a, b}, nil)
	require.NotNil(t, s.PerOp.KernelSyscalls)
	assert.InDelta(t, 5.0, *s.PerOp.KernelSyscalls, 1e-9)
	assert.InDelta(t, 2.0, s.PerOp.Syscalls, 1e-9)
	assert.InDelta(t, 4.2, *s.Processes[0].PerOp.KernelSyscalls, 1e-9)
	assert.Contains(t, s.Line(), ", 2.0 syscalls (5.0 by the kernel's count), ")
	assert.Nil(t, Merge(10, []Usage{a, {}}, nil).PerOp.KernelSyscalls)
}

func TestMergeFsyncs(t *testing.T) {
	a := Usage{Alias: "replica0", Role: RoleReplica, Fsyncs: 300, FsyncUs: 150_000}
	b := Usage{Alias: "replica1", Role: RoleReplica, Fsyncs: 100, FsyncUs: 90_000}
	c := Usage{Alias: "client0", Role: RoleClient}
	s := Merge(4_000, []Usage{a, b, c}, nil)
	assert.InDelta(t, 0.1, s.PerOp.Fsyncs, 1e-9, "summed over the replicas, per operation")
	assert.InDelta(t, 600.0, s.FsyncMeanUs, 1e-9, "their total time over their number")
	assert.InDelta(t, 0.075, s.Processes[0].PerOp.Fsyncs, 1e-9)
	assert.Contains(t, s.Line(), ", 0.100 fsyncs (mean 600 us); GC pause")
	assert.NotContains(t, Merge(4_000, []Usage{c}, nil).Line(), "fsyncs", "in memory")
}

func TestMergeWithoutOperations(t *testing.T) {
	s := Merge(0, []Usage{{Alias: "client0", UserUs: 5}}, nil)
	assert.Equal(t, PerOp{}, s.PerOp)
	assert.Equal(t, PerOp{}, s.Processes[0].PerOp)
	assert.Equal(t, "Cost per op: no completed operations", s.Line())
}

func TestLineUnits(t *testing.T) {
	s := Merge(1, []Usage{{Links: []Link{{Bytes: 1400}}, GCPauseTotalUs: 12_300, GCPauseMaxUs: 40}}, nil)
	assert.Contains(t, s.Line(), ", 1.4 KB,")
	assert.Contains(t, s.Line(), "GC pause total 12 ms, max 0.04 ms")
}

// Take sees the CPU and the allocations of the process, and the file
// round-trips.
func TestTakeAndFile(t *testing.T) {
	before := Take("replica0", RoleReplica, nil)
	var keep [][]byte
	for deadline := time.Now().Add(30 * time.Millisecond); time.Now().Before(deadline); {
		keep = append(keep, make([]byte, 64))
	}
	runtime.GC()
	m := NewMeter()
	m.Sent("replica1", 3, 0, 2)
	u := Take("replica0", RoleReplica, m)
	runtime.KeepAlive(keep)

	assert.Greater(t, u.UserUs+u.SysUs, before.UserUs+before.SysUs)
	assert.GreaterOrEqual(t, u.Allocs-before.Allocs, uint64(len(keep)))
	assert.Greater(t, u.GCCycles, before.GCCycles)
	assert.GreaterOrEqual(t, u.GCPauseTotalUs, u.GCPauseMaxUs)
	assert.Equal(t, []Link{{To: "replica1", Conns: 1, Messages: 3, Batches: 2, AvgBatch: 1.5}}, u.Links)
	assert.Positive(t, u.WallS)
	if _, err := os.Stat("/proc/self/io"); err == nil {
		require.NotNil(t, u.KernelIO)
		assert.GreaterOrEqual(t, u.KernelIO.Reads, uint64(1), "it read /proc/self/io")
	}

	path := filepath.Join(t.TempDir(), "cost-replica0.json")
	require.NoError(t, WriteFile(path, u))
	got, err := ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, u, got)
	_, err = ReadFile(filepath.Join(t.TempDir(), "none.json"))
	assert.Error(t, err)
}
