package client

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"swiftpaxos/batcher"
	"swiftpaxos/config"
	"swiftpaxos/config/certs"
	"swiftpaxos/cost"
	"swiftpaxos/wire"
)

// Transport is a client process's connections to the replicas: one per
// replica, shared by every session of the process that uses it
// (wire.PeerSessions; docs/DECISIONS.md 28). A batch then carries what
// all the sessions sent, and a replica writes one batch for all of them:
// fewer, fuller writes at both ends (docs/TUNING.md). Each connection has
// one reader, which hands every reply to the session it names, and one
// batcher, which every session sends through. A Transport is safe for
// concurrent use; a session that is given none (SessionOptions.Transport)
// opens one of its own.
type Transport struct {
	cfg      *config.Config
	alias    string
	tls      *certs.Material // nil: plain TCP
	meter    *cost.Meter
	log      *zap.Logger
	links    []*link        // by replica
	local    LocalLink      // reached over a Unix socket when its Addr is set
	wg       sync.WaitGroup // the readers
	sessions uint32         // how many sessions may share each connection (replicas honour far fewer than 2^16)
	queue    int            // each connection's outbound queue
	// closing guards closed and the readers' wg.Add against Close: a
	// session may still be dialling when the Transport closes.
	closing sync.Mutex
	closed  bool
}

// TransportOptions configures a Transport; Config is required.
type TransportOptions struct {
	// Config, Alias, TLSName, Meter and Log are the sessions' options of
	// the same names (SessionOptions): a Transport serves sessions that
	// speak for one alias.
	Config  *config.Config
	Alias   string
	TLSName string
	Meter   *cost.Meter
	Log     *zap.Logger
	// Sessions is how many sessions will share the Transport (default 1).
	// It sizes each connection's outbound queue, so that every session
	// has the room a connection of its own would give it: a full queue
	// breaks the connection, for all of them. The replicas are told, and
	// size their queues for the replies likewise.
	Sessions int
	// Local, when its Addr is set, is a replica of this process, reached
	// over a Unix socket instead of TCP.
	Local LocalLink
}

// LocalLink names a replica that runs in the same process as the sessions
// (a RESP front-end's own) and the Unix socket it also listens on
// (server.Options.LocalAddr). The connection is the same as over TCP, the
// same frames, handshake and failure handling (docs/DECISIONS.md 47), but
// loopback TCP costs each message a pass through the TCP stack on both
// sides, and a front-end's traffic with its own replica is most of that
// replica's (docs/DECISIONS.md 54).
type LocalLink struct {
	Replica wire.ReplicaID
	Addr    string // a Unix socket address; one starting with '@' is in Linux's abstract namespace
}

// link is the connection to one replica, if there is one.
type link struct {
	r wire.ReplicaID
	// dialing serialises dials: sessions that need the connection while
	// one is being opened wait for it rather than open their own.
	dialing sync.Mutex
	mu      sync.RWMutex
	cur     *muxConn // nil: none open
	// refused: the replica closed the latest connection to it before
	// sending anything, as a replica does to a client it will not serve
	// (a client without TLS at a TLS cluster, a refused identity).
	refused atomic.Bool
}

// muxConn is one open connection and the sessions attached to it.
type muxConn struct {
	b     *batcher.Batcher[wire.Message]
	ports map[wire.ClientID]*port // guarded by the link's mu; nil once broken
}

// port is one session's use of a shared connection.
type port struct {
	l     *link
	c     *muxConn
	id    wire.ClientID
	inbox chan<- reply
	ctx   context.Context // the session's: ends a blocked hand-off
}

// NewTransport prepares a process's connections; they are opened as its
// sessions need them.
func NewTransport(o TransportOptions) (*Transport, error) {
	if o.Config == nil {
		return nil, errors.New("client: TransportOptions needs a Config")
	}
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
	sessions := max(1, o.Sessions)
	if o.Local.Addr != "" && int(o.Local.Replica) >= o.Config.N() {
		return nil, fmt.Errorf("client: TransportOptions.Local names replica%d of %d", o.Local.Replica, o.Config.N())
	}
	t := &Transport{cfg: o.Config, alias: o.Alias, meter: o.Meter, log: o.Log, local: o.Local, links: make([]*link, o.Config.N()),
		sessions: uint32(min(sessions, math.MaxUint16)), queue: batcher.DefaultQueueLen * sessions}
	for i := range t.links {
		t.links[i] = &link{r: wire.ReplicaID(i)}
	}
	if o.Config.TLSDir != "" {
		m, err := loadTLS(o.Config.TLSDir, o.Alias, o.TLSName)
		if err != nil {
			return nil, err
		}
		t.tls = m
	}
	return t, nil
}

// Close closes every connection and waits for their readers. The
// sessions still using the Transport see their replicas go down.
func (t *Transport) Close() error {
	t.closing.Lock()
	t.closed = true
	t.closing.Unlock()
	for _, l := range t.links {
		l.mu.RLock()
		c := l.cur
		l.mu.RUnlock()
		if c != nil {
			c.b.Close()
		}
	}
	t.wg.Wait()
	return nil
}

// attach gives session id a port on the connection to replica r, opening
// the connection if there is none, and attaches the session there (a
// PeerClient Hello) before anything of the session's is sent on it.
// Replies for the session go to inbox while the session's context live
// lasts; ctx bounds the dialling.
func (t *Transport) attach(ctx, live context.Context, r wire.ReplicaID, id wire.ClientID, inbox chan<- reply) (*port, error) {
	l := t.links[r]
	l.dialing.Lock()
	defer l.dialing.Unlock()
	l.mu.RLock()
	c := l.cur
	l.mu.RUnlock()
	if c == nil {
		var err error
		if c, err = t.open(ctx, l); err != nil {
			return nil, err
		}
	}
	p := &port{l: l, c: c, id: id, inbox: inbox, ctx: live}
	l.mu.Lock()
	broken := c.ports == nil
	if !broken {
		c.ports[id] = p
	}
	l.mu.Unlock()
	if broken {
		return nil, fmt.Errorf("replica%d: connection closed as the session attached", r)
	}
	if err := c.b.TrySend(&wire.Hello{Kind: wire.PeerClient, Client: id, Alias: t.alias, Protocol: string(t.cfg.Protocol)}); err != nil {
		p.detach()
		return nil, fmt.Errorf("replica%d: %w", r, err)
	}
	return p, nil
}

// open connects to replica r (with TLS when it is on, checking that the
// server is r), says it carries sessions, and starts its reader. The
// caller holds l.dialing.
func (t *Transport) open(ctx context.Context, l *link) (*muxConn, error) {
	replica := t.cfg.Replica(int(l.r))
	addr := replica.Addr()
	d := net.Dialer{Timeout: time.Second}
	network := "tcp"
	if t.local.Addr != "" && t.local.Replica == l.r {
		network, addr = "unix", t.local.Addr
	}
	conn, err := d.DialContext(ctx, network, addr)
	if err != nil {
		l.refused.Store(false)
		return nil, fmt.Errorf("replica%d at %s: %w", l.r, addr, err)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	conn = t.meter.Wrap(conn)
	if t.tls != nil {
		hctx, cancel := context.WithTimeout(ctx, t.cfg.HandshakeTimeout)
		conn, err = t.tls.Client(hctx, conn, certs.Identity{Role: certs.Replica, Alias: replica.Alias})
		cancel()
		if err != nil {
			l.refused.Store(false)
			if closedByPeer(err) {
				// What a replica without TLS does with a ClientHello.
				return nil, fmt.Errorf("replica%d at %s: TLS handshake: %w (the replica closed the connection: a cluster without TLS?)", l.r, addr, err)
			}
			return nil, fmt.Errorf("replica%d at %s: TLS handshake: %w", l.r, addr, err)
		}
	}
	// The emulated one-way delay to this replica (PROTOCOL.md 7.3); the
	// replica delays its replies likewise.
	opts := batcher.Options{Delay: t.cfg.OneWayDelay(t.alias, replica.Alias), QueueLen: t.queue,
		Stopped: func(s batcher.Stats) { t.meter.Sent(replica.Alias, s.Messages, s.Bytes, s.Batches) }}
	b := batcher.New[wire.Message](conn, wire.AppendFrame, opts, t.log)
	if err := b.Send(&wire.Hello{Kind: wire.PeerSessions, Alias: t.alias, Sessions: t.sessions, Protocol: string(t.cfg.Protocol)}); err != nil {
		b.Close()
		return nil, fmt.Errorf("replica%d at %s: %w", l.r, addr, err)
	}
	c := &muxConn{b: b, ports: make(map[wire.ClientID]*port)}
	// A connection opened once Close began would be left open, its
	// reader unwaited for; one opened before is in l.cur for Close.
	t.closing.Lock()
	defer t.closing.Unlock()
	if t.closed {
		b.Close()
		return nil, fmt.Errorf("replica%d at %s: %w", l.r, addr, net.ErrClosed)
	}
	l.mu.Lock()
	l.cur = c
	l.mu.Unlock()
	t.wg.Add(1)
	go t.read(l, c, conn, opts.Delay)
	return c, nil
}

// send queues m for the replica without waiting; an error means the
// connection is broken (the session's reader-side down event follows).
func (p *port) send(m wire.Message) error { return p.c.b.TrySend(wire.RouteTo(p.id, m)) }

// detach ends the session's use of the connection; the last session to
// leave closes it.
func (p *port) detach() {
	l, c := p.l, p.c
	l.mu.Lock()
	if c.ports != nil && c.ports[p.id] == p {
		delete(c.ports, p.id)
	}
	last := c.ports != nil && len(c.ports) == 0
	if last {
		// Retired before it closes, so that no session attaches to it
		// meanwhile.
		c.ports = nil
		if l.cur == c {
			l.cur = nil
		}
	}
	l.mu.Unlock()
	if last {
		c.b.Close()
	}
}
