package replica

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"go.uber.org/zap"

	"swiftpaxos/batcher"
	"swiftpaxos/replica/wire"
)

// maxFrame bounds one frame read from the network.
const maxFrame = 16 << 20

// redialEvery is the retry period for a lost peer connection.
const redialEvery = 100 * time.Millisecond

// accept serves incoming connections until ctx ends.
func (s *server) accept(ctx context.Context, ln net.Listener) error {
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("accept: %w", err)
		}
		go s.serveConn(ctx, conn)
	}
}

// serveConn reads the Hello of an incoming connection, then every frame,
// handing each decoded message to the loop in arrival order.
func (s *server) serveConn(ctx context.Context, conn net.Conn) {
	defer conn.Close()
	setKeepAlive(conn)
	r := wire.NewReader(conn, maxFrame)
	first, err := r.Next()
	if err != nil {
		s.log.Debug("connection closed before hello", zap.Error(err))
		return
	}
	hello, ok := first.(*wire.Hello)
	if !ok {
		s.log.Warn("first frame is not a hello; closing", zap.Stringer("remote", conn.RemoteAddr()))
		return
	}
	in := inbound{conn: conn}
	switch hello.Kind {
	case wire.PeerClient:
		in.isClient, in.fromClient = true, hello.Client
		b := batcher.New[wire.Message](conn, wire.AppendFrame, s.optsTo(hello.Alias), s.log)
		defer func() {
			s.post(ctx, inbound{isClient: true, fromClient: hello.Client, peer: b, closed: true})
			b.Close()
		}()
		if !s.post(ctx, inbound{isClient: true, fromClient: hello.Client, peer: b}) {
			return
		}
	case wire.PeerReplica:
		if hello.Replica < 0 || int(hello.Replica) >= s.cfg.N() || hello.Replica == s.id {
			s.log.Warn("hello from an unknown replica; closing", zap.Int32("replica", int32(hello.Replica)))
			return
		}
		in.fromReplica = hello.Replica
		defer s.post(ctx, inbound{fromReplica: hello.Replica, down: true})
	}
	for {
		m, err := r.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) && ctx.Err() == nil {
				s.log.Info("connection closed", zap.Stringer("remote", conn.RemoteAddr()), zap.Error(err))
			}
			return
		}
		in.msg = m
		if !s.post(ctx, in) {
			return
		}
	}
}

// post hands in to the loop unless the replica is stopping.
func (s *server) post(ctx context.Context, in inbound) bool {
	select {
	case s.inbox <- in:
		return true
	case <-ctx.Done():
		return false
	}
}

// dial keeps an outgoing connection to peer p, redialling when it breaks.
func (s *server) dial(ctx context.Context, p wire.ReplicaID) error {
	addr := s.cfg.Replica(int(p)).Addr()
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		d := net.Dialer{Timeout: time.Second}
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			t.Reset(redialEvery)
			continue
		}
		setKeepAlive(conn)
		b := batcher.New[wire.Message](conn, wire.AppendFrame, s.optsTo(s.cfg.Replica(int(p)).Alias), s.log)
		if b.Send(&wire.Hello{Kind: wire.PeerReplica, Replica: s.id, Alias: s.o.Alias}) != nil || !s.post(ctx, inbound{fromReplica: p, peer: b}) {
			b.Close()
			t.Reset(redialEvery)
			continue
		}
		s.log.Info("connected to peer", zap.Int32("peer", int32(p)), zap.String("addr", addr))
		// The peer never writes on this connection; a read returns when
		// it breaks.
		go func() { _, _ = io.Copy(io.Discard, conn); b.Close() }()
		select {
		case <-ctx.Done():
			b.Close()
			return nil
		case <-b.Done():
		}
		s.post(ctx, inbound{fromReplica: p, peer: b, closed: true})
		t.Reset(redialEvery)
	}
}

// optsTo returns the batcher options of a connection to the process alias:
// the emulated one-way delay of the configuration's latency model
// (networkDelay, latencyFile, co-location; PROTOCOL.md 7.3) is added on
// the sending side, one per-connection FIFO queue ordered by release time.
func (s *server) optsTo(alias string) batcher.Options {
	o := s.bopts
	if alias != "" {
		o.Delay = s.cfg.OneWayDelay(s.o.Alias, alias)
	}
	return o
}

func setKeepAlive(conn net.Conn) {
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetKeepAlive(true)
		_ = tc.SetKeepAlivePeriod(time.Second)
		_ = tc.SetNoDelay(true)
	}
}
