package server

import (
	"net"
	"sync"
)

// connSet is the incoming connections being served. When the replica
// stops it closes them all and waits for their goroutines, so that nothing
// a connection does (a batcher's last log line, a post to the loop)
// outlives Serve.
type connSet struct {
	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	stopped bool
	wg      sync.WaitGroup
}

// serve runs f for conn on a goroutine of its own, unless the set is
// stopped, in which case conn is closed at once.
func (c *connSet) serve(conn net.Conn, f func()) {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		conn.Close()
		return
	}
	if c.conns == nil {
		c.conns = make(map[net.Conn]struct{})
	}
	c.conns[conn] = struct{}{}
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		defer func() {
			c.mu.Lock()
			delete(c.conns, conn)
			c.mu.Unlock()
		}()
		f()
	}()
}

// stop closes every connection, which ends each one's reads, and waits
// until every goroutine started by serve has returned.
func (c *connSet) stop() {
	c.mu.Lock()
	c.stopped = true
	for conn := range c.conns {
		conn.Close()
	}
	c.mu.Unlock()
	c.wg.Wait()
}
