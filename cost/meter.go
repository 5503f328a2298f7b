package cost

import (
	"errors"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// IO counts the Read and Write calls on a process's connections.
type IO struct {
	Reads  uint64 `json:"reads"`
	Writes uint64 `json:"writes"`
}

// Link is what a process's batchers sent to one destination (a replica's
// alias, or "clients" for all of a replica's client connections), summed
// over the connections to it.
type Link struct {
	To       string `json:"to"`
	Conns    int    `json:"conns"` // batchers (connections) to To over the lifetime
	Messages uint64 `json:"messages"`
	Bytes    uint64 `json:"bytes"`
	Batches  uint64 `json:"batches"` // successful writes of a batch
	// AvgBatch is Messages / Batches: the mean number of messages per
	// write on these connections.
	AvgBatch float64 `json:"avg_batch"`
}

// ToClients is the destination of a replica's client connections, kept as
// one link: the clients' aliases are theirs to choose.
const ToClients = "clients"

// Meter counts a process's transport: read and write calls per
// connection, and what its batchers sent per destination. A nil *Meter
// counts nothing: Wrap returns the connection itself and Batches nil.
type Meter struct {
	mu     sync.Mutex
	open   map[*conn]struct{}
	closed IO // the counts of the connections already closed
	links  map[string]*Link
}

// NewMeter returns an empty Meter.
func NewMeter() *Meter {
	return &Meter{open: make(map[*conn]struct{}), links: make(map[string]*Link)}
}

// Wrap returns c counting its Read and Write calls into m. Wrap the raw
// socket, TCP or Unix (under TLS, if any): then every call counted is a
// system call. The result is not a *net.TCPConn: set TCP options before
// wrapping.
func (m *Meter) Wrap(c net.Conn) net.Conn {
	if m == nil {
		return c
	}
	w := &conn{Conn: c, m: m}
	m.mu.Lock()
	m.open[w] = struct{}{}
	m.mu.Unlock()
	return w
}

// IO returns the calls counted so far, on open and closed connections.
func (m *Meter) IO() IO {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.closed
	for c := range m.open {
		t.Reads += c.reads.Load()
		t.Writes += c.writes.Load()
	}
	return t
}

// Sent adds the final counters of a stopped batcher (batcher.Stats) of
// a connection to destination to: messages and bytes written in batches
// write calls. The caller passes plain numbers, so that cost, below the
// transport, knows nothing of it. A nil Meter counts nothing.
func (m *Meter) Sent(to string, messages, bytes, batches uint64) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	l := m.links[to]
	if l == nil {
		l = &Link{To: to}
		m.links[to] = l
	}
	l.Conns++
	l.Messages += messages
	l.Bytes += bytes
	l.Batches += batches
}

// Links returns what the stopped batchers sent, by destination, sorted.
func (m *Meter) Links() []Link {
	m.mu.Lock()
	defer m.mu.Unlock()
	ls := make([]Link, 0, len(m.links))
	for _, l := range m.links {
		c := *l
		c.AvgBatch = ratio(c.Messages, c.Batches)
		ls = append(ls, c)
	}
	slices.SortFunc(ls, func(a, b Link) int { return strings.Compare(a.To, b.To) })
	return ls
}

// conn counts its calls on its own counters, so that connections served
// by different cores do not share a cache line; Close moves them into the
// Meter.
type conn struct {
	net.Conn
	m             *Meter
	reads, writes atomic.Uint64
	once          sync.Once
}

func (c *conn) Read(p []byte) (int, error) {
	c.reads.Add(1)
	return c.Conn.Read(p)
}

func (c *conn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// CountRead and CountWrite count the reads and writes made on the
// descriptor itself (wire.Reader.Each, the batcher's socket writer).
func (c *conn) CountRead() { c.reads.Add(1) }

func (c *conn) CountWrite() { c.writes.Add(1) }

// SyscallConn exposes the descriptor of a socket, so that wire.Reader can
// read on it; other connections report that they have none.
func (c *conn) SyscallConn() (syscall.RawConn, error) {
	if sc, ok := c.Conn.(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, errNoDescriptor
}

// errNoDescriptor is SyscallConn's answer for a connection that is not a
// socket of this process.
var errNoDescriptor = errors.New("cost: the connection has no descriptor")

// Close closes the connection and, the first time, retires its counts
// into the Meter. A call made after that fails without a system call, so
// losing its count loses nothing.
func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		m := c.m
		m.mu.Lock()
		delete(m.open, c)
		m.closed.Reads += c.reads.Load()
		m.closed.Writes += c.writes.Load()
		m.mu.Unlock()
	})
	return err
}

// ratio is a / b, 0 when b is 0.
func ratio(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
