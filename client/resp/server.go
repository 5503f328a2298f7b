package resp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"swiftpaxos/client"
	"swiftpaxos/config"
	"swiftpaxos/config/certs"
	"swiftpaxos/wire"
)

// Options configures a RESP front-end.
type Options struct {
	// Config is the cluster's; its respPort says where replica Alias
	// serves RESP, and its settings the connections' limits and default
	// level.
	Config *config.Config
	// Alias is the replica the front-end runs beside: its address, and
	// the nearest replica of every session (CURP-HO: the bound one).
	Alias string
	// NewPolicy makes the client side of the configured protocol, one
	// per session (curpht.NewClientPolicy or curpho.NewClientPolicy).
	NewPolicy func() client.Policy
	Log       *zap.Logger
	// Metrics, when set, is where the front-end registers its metrics.
	Metrics prometheus.Registerer
	// Ready, when set, is called once the front-end listens.
	Ready func(addr net.Addr)
	// Status asks the replica beside the front-end for its status (INFO);
	// nil: INFO says it is not known.
	Status func(ctx context.Context) (*wire.StatusReply, error)
	// LocalAddr, when set, is the Unix socket the replica beside the
	// front-end also listens on (server.Options.LocalAddr): the sessions
	// reach it there rather than over TCP (LocalAddr, the function).
	LocalAddr string
}

// Server is a running RESP front-end.
type Server struct {
	o      Options
	cfg    *config.Config
	log    *zap.Logger
	limits Limits
	level  client.Level
	tls    *certs.Material
	t      *client.Transport

	metrics *metricSet
	cursors cursors

	open   atomic.Int64 // connections open
	nextID atomic.Int64
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[*conn]struct{}
}

// New checks o and prepares a front-end; Serve runs it.
func New(o Options) (*Server, error) {
	if o.Config == nil || o.NewPolicy == nil {
		return nil, errors.New("resp: Options needs a Config and NewPolicy")
	}
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
	cfg := o.Config.For(o.Alias)
	i, ok := cfg.ReplicaIndex(o.Alias)
	if !ok {
		return nil, fmt.Errorf("resp: %q is not a replica of the configuration", o.Alias)
	}
	s := &Server{o: o, cfg: cfg, log: o.Log.With(zap.String("frontend", "resp")), conns: map[*conn]struct{}{},
		limits: limitsFor(cfg.MaxKeyBytes, cfg.MaxValueBytes), level: client.Strong}
	if cfg.RESPLevel == "weak" {
		s.level = client.Weak
	}
	if cfg.TLSDir != "" {
		m, err := certs.Load(cfg.TLSDir, o.Alias)
		if err != nil {
			return nil, fmt.Errorf("resp: %w", err)
		}
		s.tls = m
	}
	// The sessions of every RESP connection share one connection to each
	// replica (docs/DECISIONS.md 28): a RESP connection costs the cluster
	// a session, not connections. A TLS cluster sees them as the generic
	// client (config/certs).
	t, err := client.NewTransport(client.TransportOptions{Config: cfg, Log: s.log, Sessions: 64,
		Local: client.LocalLink{Replica: wire.ReplicaID(i), Addr: o.LocalAddr}})
	if err != nil {
		return nil, fmt.Errorf("resp: %w", err)
	}
	s.t = t
	s.metrics = newMetrics(o.Metrics, func() float64 { return float64(s.open.Load()) })
	return s, nil
}

// Conns is how many RESP connections are open.
func (s *Server) Conns() int64 { return s.open.Load() }

// Serve listens on the replica's RESP address and serves connections
// until ctx ends; it then closes them all and returns.
func (s *Server) Serve(ctx context.Context) error {
	defer s.t.Close()
	i, _ := s.cfg.ReplicaIndex(s.o.Alias)
	addr, ok := s.cfg.RESPAddr(i)
	if !ok {
		return errors.New("resp: respPort is not set")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("resp: %w", err)
	}
	s.log.Info("serving the Redis protocol", zap.Stringer("addr", ln.Addr()), zap.Bool("tls", s.tls != nil),
		zap.Stringer("level", s.level), zap.Bool("password", s.cfg.RESPPassword != ""))
	if s.o.Ready != nil {
		s.o.Ready(ln.Addr())
	}
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	err = s.accept(ctx, ln)
	s.mu.Lock()
	for c := range s.conns {
		c.nc.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

func (s *Server) accept(ctx context.Context, ln net.Listener) error {
	backoff := time.Duration(0)
	for {
		nc, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return fmt.Errorf("resp: accept: %w", err)
			}
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.log.Warn("accept failed; retrying", zap.Error(err), zap.Duration("after", backoff))
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(backoff):
			}
			continue
		}
		backoff = 0
		if limit := s.cfg.MaxConns; limit > 0 && s.open.Load() >= int64(limit) {
			s.log.Debug("RESP connection refused: maxConns connections are open", zap.Stringer("remote", nc.RemoteAddr()))
			_, _ = nc.Write(appendError(nil, "ERR max number of clients reached"))
			nc.Close()
			continue
		}
		s.open.Add(1)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer s.open.Add(-1)
			s.serveConn(ctx, nc)
		}()
	}
}

// serveConn authenticates a connection (TLS), opens its session and
// serves it.
func (s *Server) serveConn(ctx context.Context, nc net.Conn) {
	defer nc.Close()
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	c := &conn{srv: s, nc: nc, id: s.nextID.Add(1), level: s.level, authed: s.cfg.RESPPassword == "",
		cmds: make(chan parsed, 128), async: make(chan *job, 16), inflight: map[wire.Seq]opRef{}}
	c.log = s.log.With(zap.Int64("conn", c.id))
	hctx, cancel := context.WithTimeout(ctx, s.cfg.HandshakeTimeout)
	defer cancel()
	if s.tls != nil {
		tc, peer, err := s.tls.Server(hctx, nc)
		if err != nil {
			s.log.Info("RESP connection refused: TLS handshake", zap.Stringer("remote", nc.RemoteAddr()), zap.Error(err))
			return
		}
		if peer.Role != certs.Client {
			s.log.Info("RESP connection refused: the certificate is not a client's", zap.Stringer("remote", nc.RemoteAddr()), zap.Stringer("identity", peer))
			return
		}
		c.nc = tc
		defer tc.Close()
	}
	sess, err := client.Dial(hctx, client.SessionOptions{Config: s.cfg, Policy: s.o.NewPolicy(), Nearest: s.o.Alias,
		Log: c.log, Window: window, Transport: s.t})
	if err != nil {
		s.log.Warn("RESP connection closed: no session", zap.Error(err))
		_, _ = c.nc.Write(appendError(nil, "ERR cannot open a session with the cluster: "+err.Error()))
		return
	}
	c.sess = sess
	s.mu.Lock()
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		cctx, cancel := context.WithTimeout(context.Background(), s.cfg.Retry)
		defer cancel()
		_ = sess.CloseContext(cctx)
	}()
	cancel()
	c.serve(ctx)
}
