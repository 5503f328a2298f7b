// Package cost measures what one process of a deployment spends, so that a
// run's summary can say what an operation costs (summary.json's "cost"
// section; README.md lists its fields).
//
// A process keeps one Meter. The transport wraps every TCP connection with
// Meter.Wrap, which counts each Read and Write call on it, and gives each
// batcher a Stopped hook that passes the batcher's final counters
// (messages, bytes, batches) to Meter.Sent(destination, ...). cost imports
// no package of the project: the transport above it adapts. At exit the
// process calls Take, which adds its own CPU time (getrusage, RUSAGE_SELF:
// the whole process lifetime) and its allocations and GC pauses (the
// runtime's statistics), and writes the resulting Usage where the summary
// finds it: a client in its results file, a replica in its own file
// (WriteFile). Merge combines the processes of a run and divides by the
// run's completed operations.
//
// # What is counted
//
// Reads and writes are calls on the raw TCP connection, below TLS: each is
// at least one read or write system call. A Read that finds no data makes
// one more, which returns EAGAIN before the reader waits for the poller;
// the wrapper cannot see it. Usage.KernelIO therefore also records the
// kernel's own count of the process's read and write system calls
// (/proc/self/io), those included, file I/O too. Other system calls
// (epoll_pwait, futex, nanosleep, ...) are in neither count: perf stat
// over the whole deployment counts them. Messages and bytes are what the
// batchers wrote, every frame included (Hellos, heartbeats, replies).
//
// CPU time is exact in total, but with tick-based CPU accounting (the
// usual kernel configuration) its split into user and system time is
// sampled at each timer tick, so over a short run the split is
// approximate.
//
// # Cost on the hot path
//
// One atomic add on a counter of the connection per Read or Write call;
// a connection's counts join the Meter's totals once, when it closes.
//
// # Thread safety
//
// A Meter's methods and the connections it wraps are safe for concurrent
// use. Usage, Link and Section are plain values.
package cost
