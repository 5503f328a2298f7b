package server

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"swiftpaxos/batcher"
	"swiftpaxos/wire"
)

// Idle client connections: a sweep closes the client connections on which
// nothing was read or written for clientIdleTimeoutMs.

// clientConn is what the idle sweep knows of a client connection.
type clientConn struct {
	b      *batcher.Batcher[wire.Message]
	remote string
	frames atomic.Uint64 // frames read, counted by the reader
	idle   atomic.Bool   // closed by the sweep, not by the peer

	// owned by the sweep
	last       uint64 // frames read plus messages written at the last sweep
	quietSince time.Time
}

// idleConns is the registry of client connections the sweep looks at.
type idleConns struct {
	mu    sync.Mutex
	conns map[*clientConn]struct{}
}

func (s *server) track(b *batcher.Batcher[wire.Message], remote net.Addr) *clientConn {
	cc := &clientConn{b: b, remote: remote.String(), quietSince: time.Now()}
	s.idle.mu.Lock()
	s.idle.conns[cc] = struct{}{}
	s.idle.mu.Unlock()
	return cc
}

func (s *server) untrack(cc *clientConn) {
	s.idle.mu.Lock()
	delete(s.idle.conns, cc)
	s.idle.mu.Unlock()
}

// sweepIdle closes client connections on which nothing was read or
// written for clientIdleTimeoutMs. It looks every quarter of that time, so
// a connection is closed between one and one and a quarter timeouts after
// its last frame. Counting frames instead of taking the time of each one
// keeps the cost off the reader's path.
func (s *server) sweepIdle(ctx context.Context) error {
	idle := s.cfg.ClientIdleTimeout
	t := time.NewTicker(max(idle/4, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case now := <-t.C:
			s.idle.mu.Lock()
			for cc := range s.idle.conns {
				seen := cc.frames.Load() + cc.b.Stats().Messages
				if seen != cc.last {
					cc.last, cc.quietSince = seen, now
					continue
				}
				if now.Sub(cc.quietSince) >= idle && !cc.idle.Swap(true) {
					s.counters.IdleClosed.Add(1)
					s.log.Debug("client connection closed: idle", zap.String("remote", cc.remote), zap.Duration("idle", now.Sub(cc.quietSince)))
					go cc.b.Close() // Close waits for the writer; the sweep does not
				}
			}
			s.idle.mu.Unlock()
		}
	}
}
