package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"swiftpaxos/batcher"
	"swiftpaxos/config"
	"swiftpaxos/config/certs"
	"swiftpaxos/kvs"
	"swiftpaxos/replica/wire"
)

// SessionOptions configures a Session.
type SessionOptions struct {
	Config *config.Config
	// Alias is the client process's alias; it selects the bound replica
	// from the -- Proxy -- section.
	Alias  string
	Policy Policy
	Log    *zap.Logger
	// Window is the capacity of Completions: the most operations the
	// caller keeps in flight with Submit.
	Window int
	// TLSName names the certificate the session presents when the
	// configuration turns TLS on (TLSDir/NAME.pem): by default the
	// Alias; certs.GenericClient for a client that is not in the
	// configuration.
	TLSName string

	// onIdleClose, when set, is called (on the session's goroutine) when
	// the session closes a connection it has not used (tests).
	onIdleClose func(wire.ReplicaID)
	// onEnd, when set, is told (on the session's goroutine) that the
	// cluster applied the end of the session (tests).
	onEnd func(expired bool)
}

// Session is one client session over TCP: the session core runs on one
// goroutine; one reader goroutine per replica connection feeds it, and one
// batcher per connection writes. Methods are safe for concurrent use.
type Session struct {
	o      SessionOptions
	log    *zap.Logger
	core   *Core
	start  time.Time
	invoke chan invocation
	inbox  chan reply
	done   chan Result
	// end asks the loop to end the session at the cluster; the channel it
	// carries is closed when the end is confirmed.
	end    chan chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	lost atomic.Int64 // acknowledged writes refused afterwards (Core.Lost)

	tls *certs.Material // nil: plain TCP

	// owned by the loop goroutine
	conns   []*batcher.Batcher[wire.Message]
	waiters map[wire.Seq]chan Result
	ended   chan struct{} // closed when the cluster confirms End
	// Per replica: idle means the session closed the connection because
	// it went unused, and dials again only when it next sends there
	// (queued holds what it sends meanwhile); dialing means a dial runs
	// off the loop; activity counts messages both ways, for closeIdle.
	idle       []bool
	queued     [][]wire.Message
	dialing    []bool
	activity   []uint64
	lastSeen   []uint64
	quietSince []time.Time
	// down holds replicas whose connection failed inside a step of the
	// core; the loop tells the core after the step, never from inside it.
	down []wire.ReplicaID
}

type invocation struct {
	op    Op
	reply chan Result // nil: the result goes to Completions
}

type reply struct {
	from wire.ReplicaID
	msg  wire.Message
	conn *batcher.Batcher[wire.Message] // non-nil: a connection event
	down bool
	// dialed, when set, is the outcome of a dial started by the loop.
	dialed *dialResult
}

// dialResult is a connection opened off the loop (or why not).
type dialResult struct {
	b    *batcher.Batcher[wire.Message]
	conn net.Conn
	err  error
}

// maxQueued bounds the messages a session holds for a replica it is
// dialling again after closing it for being idle; beyond it they are
// dropped, as on a broken connection, and retries resend them.
const maxQueued = 1024

// Dial connects a new session to every replica of the configuration.
func Dial(ctx context.Context, o SessionOptions) (*Session, error) {
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
	if o.Window < 1 {
		o.Window = 1
	}
	cfg := o.Config
	var material *certs.Material
	if cfg.TLSDir != "" {
		m, err := loadTLS(cfg.TLSDir, o)
		if err != nil {
			return nil, err
		}
		material = m
	}
	id := wire.ClientID(uuid.New().ID())<<32 | wire.ClientID(uuid.New().ID())
	sctx, cancel := context.WithCancel(context.Background())
	s := &Session{
		o: o, log: o.Log.With(zap.String("session", fmt.Sprintf("%x", uint64(id)))),
		start: time.Now(), invoke: make(chan invocation, o.Window), inbox: make(chan reply, 1024),
		done: make(chan Result, o.Window), end: make(chan chan struct{}), ctx: sctx, cancel: cancel,
		conns: make([]*batcher.Batcher[wire.Message], cfg.N()), waiters: make(map[wire.Seq]chan Result),
		idle: make([]bool, cfg.N()), queued: make([][]wire.Message, cfg.N()), dialing: make([]bool, cfg.N()),
		activity: make([]uint64, cfg.N()), lastSeen: make([]uint64, cfg.N()), quietSince: make([]time.Time, cfg.N()),
		tls: material,
	}
	nearest, rtts, err := s.connectAll(ctx, id)
	if err != nil {
		cancel()
		s.closeConns()
		return nil, err
	}
	if r, _, ok := cfg.BoundReplica(o.Alias); ok {
		nearest = wire.ReplicaID(r)
	}
	s.log.Debug("session connected", zap.Int32("nearest", int32(nearest)), zap.Durations("rtt", rtts))
	s.core, err = NewCore(Options{
		ID: id, N: cfg.N(), Leader: 0, Nearest: nearest, Policy: o.Policy,
		Now: s.Now, RetryAfter: cfg.Retry,
		Ended: func(expired bool) {
			if s.ended != nil {
				close(s.ended)
				s.ended = nil
			}
			if expired {
				s.log.Warn("the cluster ended the session: idle longer than sessionIdleMs")
			}
			if s.o.onEnd != nil {
				s.o.onEnd(expired)
			}
		},
		Lost: func(seq wire.Seq) {
			s.lost.Add(1)
			s.log.Warn("an acknowledged weak write was refused: the session was cut off from the leader too long", zap.Uint64("seq", uint64(seq)))
		},
		Mutation: buildMutation,
	})
	if err != nil {
		cancel()
		s.closeConns()
		return nil, err
	}
	// A replica that could not be reached is down from the start: were
	// it the bound one, every weak operation would wait a retry period
	// for it before going elsewhere. The loop dials it again.
	for i, b := range s.conns {
		if b == nil {
			s.core.ReplicaDown(wire.ReplicaID(i))
		}
	}
	s.wg.Add(1)
	go s.loop()
	return s, nil
}

// Lost is how many operations of the session completed but were refused
// afterwards: acknowledged CURP-HO weak writes lost because the session was
// cut off from the leader for too long (docs/DECISIONS.md 15).
func (s *Session) Lost() int64 { return s.lost.Load() }

// ID is the session's client id.
func (s *Session) ID() wire.ClientID { return s.core.ID() }

// Now is the session's monotonic clock in nanoseconds since it started.
func (s *Session) Now() int64 { return int64(time.Since(s.start)) }

// connectAll dials every replica and returns the one with the lowest
// connect time (a measured round trip, PROTOCOL.md 10.14).
func (s *Session) connectAll(ctx context.Context, id wire.ClientID) (wire.ReplicaID, []time.Duration, error) {
	n := s.o.Config.N()
	rtts := make([]time.Duration, n)
	best := wire.NoReplica
	var errs []error
	for i := range n {
		t0 := time.Now()
		b, conn, err := s.open(ctx, wire.ReplicaID(i), id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s.attach(wire.ReplicaID(i), b, conn)
		rtts[i] = time.Since(t0)
		if best == wire.NoReplica || rtts[i] < rtts[best] {
			best = wire.ReplicaID(i)
		}
	}
	if best == wire.NoReplica {
		return 0, nil, fmt.Errorf("%w: %w", ErrUnreachable, errors.Join(errs...))
	}
	return best, rtts, nil
}

// loadTLS loads the certificate the session presents.
func loadTLS(dir string, o SessionOptions) (*certs.Material, error) {
	name := o.TLSName
	if name == "" {
		name = strings.ToLower(o.Alias)
	}
	m, err := certs.Load(dir, name)
	if err != nil {
		return nil, err
	}
	if m.Self().Role != certs.Client {
		return nil, fmt.Errorf("tls: the certificate %s names %s, not a client", name, m.Self())
	}
	return m, nil
}

// open connects to replica r (with TLS when it is on, checking that the
// server is r) and queues the Hello. It touches no state of the loop, so
// the loop runs it on a goroutine of its own (dial): a replica that is
// slow to answer never stalls the session.
func (s *Session) open(ctx context.Context, r wire.ReplicaID, id wire.ClientID) (*batcher.Batcher[wire.Message], net.Conn, error) {
	cfg := s.o.Config
	replica := cfg.Replica(int(r))
	addr := replica.Addr()
	d := net.Dialer{Timeout: time.Second}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("replica%d at %s: %w", r, addr, err)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	if s.tls != nil {
		hctx, cancel := context.WithTimeout(ctx, cfg.HandshakeTimeout)
		conn, err = s.tls.Client(hctx, conn, certs.Identity{Role: certs.Replica, Alias: replica.Alias})
		cancel()
		if err != nil {
			return nil, nil, fmt.Errorf("replica%d at %s: TLS handshake: %w", r, addr, err)
		}
	}
	// The emulated one-way delay to this replica (PROTOCOL.md 7.3); the
	// replica delays its replies likewise.
	delay := cfg.OneWayDelay(s.o.Alias, replica.Alias)
	b := batcher.New[wire.Message](conn, wire.AppendFrame, batcher.Options{Delay: delay}, s.log)
	if err := b.Send(&wire.Hello{Kind: wire.PeerClient, Client: id, Alias: s.o.Alias}); err != nil {
		b.Close()
		return nil, nil, fmt.Errorf("replica%d at %s: %w", r, addr, err)
	}
	return b, conn, nil
}

// attach makes an opened connection the session's connection to r and
// starts its reader. Loop state: called by Dial before the loop starts,
// then only by the loop.
func (s *Session) attach(r wire.ReplicaID, b *batcher.Batcher[wire.Message], conn net.Conn) {
	s.conns[r] = b
	s.idle[r] = false
	s.lastSeen[r], s.quietSince[r] = s.activity[r], time.Now()
	s.wg.Add(1)
	go s.read(r, conn, b)
}

// dial opens a connection to r off the loop and hands the outcome to the
// loop (dialed); at most one dial per replica runs at a time.
func (s *Session) dial(r wire.ReplicaID) {
	if s.dialing[r] {
		return
	}
	s.dialing[r] = true
	id := s.core.ID()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		b, conn, err := s.open(s.ctx, r, id)
		select {
		case s.inbox <- reply{from: r, dialed: &dialResult{b, conn, err}}:
		case <-s.ctx.Done():
			if b != nil {
				b.Close()
			}
		}
	}()
}

// dialed takes the outcome of a dial. A replica that was down is up again;
// one the session had closed for being idle gets what was queued for it,
// or, if it cannot be reached, is down from now on.
func (s *Session) dialed(r wire.ReplicaID, d *dialResult) {
	s.dialing[r] = false
	wasIdle := s.idle[r]
	if d.err != nil {
		s.log.Debug("cannot connect to a replica", zap.Int32("replica", int32(r)), zap.Bool("idle", wasIdle), zap.Error(d.err))
		if wasIdle {
			s.idle[r], s.queued[r] = false, nil
			s.down = append(s.down, r)
		}
		return
	}
	if s.conns[r] != nil { // cannot happen: one dial at a time, and only without a connection
		d.b.Close()
		return
	}
	s.attach(r, d.b, d.conn)
	if !wasIdle {
		s.core.ReplicaUp(r)
	}
	q := s.queued[r]
	s.queued[r] = nil
	for _, m := range q {
		s.send(r, m)
	}
}

// read feeds one connection's messages to the loop in arrival order.
func (s *Session) read(r wire.ReplicaID, conn net.Conn, b *batcher.Batcher[wire.Message]) {
	defer s.wg.Done()
	rd := wire.NewReader(conn, 16<<20)
	for {
		m, err := rd.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) && s.ctx.Err() == nil {
				s.log.Debug("replica connection closed", zap.Int32("replica", int32(r)), zap.Error(err))
			}
			b.Close()
			select {
			case s.inbox <- reply{from: r, conn: b, down: true}:
			case <-s.ctx.Done():
			}
			return
		}
		select {
		case s.inbox <- reply{from: r, msg: m}:
		case <-s.ctx.Done():
			return
		}
	}
}

// loop owns the core.
func (s *Session) loop() {
	defer s.wg.Done()
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	redial := time.NewTicker(s.o.Config.Retry / 4)
	defer redial.Stop()
	s.drain() // what Dial's ReplicaDown calls produced
	for {
		select {
		case <-s.ctx.Done():
			s.closeConns()
			return
		case ch := <-s.end:
			s.ended = ch
			s.core.End()
		case in := <-s.invoke:
			// The waiter is in place before Invoke, which may complete
			// the operation at once (an expired session).
			if in.reply != nil {
				s.waiters[s.core.NextSeq()] = in.reply
			}
			s.core.Invoke(in.op)
		case r := <-s.inbox:
			if r.dialed != nil {
				s.dialed(r.from, r.dialed)
				break
			}
			if r.conn != nil {
				if s.conns[r.from] == r.conn {
					s.conns[r.from] = nil
					s.core.ReplicaDown(r.from)
				}
				break
			}
			s.activity[r.from]++
			s.core.Step(r.from, r.msg)
		case now := <-t.C:
			s.core.Tick()
			s.closeIdle(now)
		case <-redial.C:
			for i, b := range s.conns {
				if b == nil && !s.idle[i] {
					s.dial(wire.ReplicaID(i))
				}
			}
		}
		s.drain()
	}
}

// drain acts on what the core produced: messages go to their connections
// and completed operations to their callers. A connection found broken
// while sending is reported to the core afterwards (never from inside
// one of its steps), and what the core does about it is drained in turn.
func (s *Session) drain() {
	for {
		rd := s.core.Ready()
		for _, e := range rd.Messages {
			s.send(e.To, e.Msg)
		}
		for _, r := range rd.Completed {
			s.complete(r)
		}
		if len(s.down) == 0 {
			return
		}
		down := s.down
		s.down = nil
		for _, r := range down {
			s.core.ReplicaDown(r)
		}
	}
}

// send queues m on the connection to replica to, without waiting: a
// connection whose queue is full counts as broken. If the session closed
// that connection for being idle, m waits in queued while the connection
// is dialled again.
func (s *Session) send(to wire.ReplicaID, m wire.Message) {
	if s.conns[to] == nil && s.idle[to] {
		if len(s.queued[to]) < maxQueued {
			s.queued[to] = append(s.queued[to], m)
		}
		s.dial(to)
		return
	}
	if b := s.conns[to]; b != nil {
		s.activity[to]++
		if err := b.TrySend(m); err != nil {
			s.conns[to] = nil
			s.down = append(s.down, to)
		}
	}
}

// closeIdle closes the connections on which nothing was sent or received
// for half of clientIdleTimeoutMs. The replica closes a client connection
// silent for the whole timeout; closing first, the session knows the
// close is not a failure: the replica is not marked down, and the
// connection is dialled again when the session next sends there. The half
// leaves room for a reply the session still waits for (the configuration
// requires the timeout to be at least twice retryMs and readWaitMs).
func (s *Session) closeIdle(now time.Time) {
	limit := s.o.Config.ClientIdleTimeout / 2
	if limit <= 0 {
		return
	}
	for i, b := range s.conns {
		if b == nil {
			continue
		}
		if s.activity[i] != s.lastSeen[i] {
			s.lastSeen[i], s.quietSince[i] = s.activity[i], now
			continue
		}
		if now.Sub(s.quietSince[i]) < limit {
			continue
		}
		s.conns[i], s.idle[i] = nil, true
		b.Close()
		s.log.Debug("closed an idle replica connection", zap.Int("replica", i), zap.Duration("idle", now.Sub(s.quietSince[i])))
		if s.o.onIdleClose != nil {
			s.o.onIdleClose(wire.ReplicaID(i))
		}
	}
}

func (s *Session) complete(r Result) {
	if w, ok := s.waiters[r.Seq]; ok {
		delete(s.waiters, r.Seq)
		w <- r
		return
	}
	s.done <- r
}

// Submit starts op asynchronously; its Result arrives on Completions. The
// caller keeps at most Window operations in flight.
func (s *Session) Submit(op Op) error {
	select {
	case s.invoke <- invocation{op: op}:
		return nil
	case <-s.ctx.Done():
		return ErrClosed
	}
}

// Completions delivers the results of submitted operations.
func (s *Session) Completions() <-chan Result { return s.done }

// Do runs op and waits for its result or for ctx to end. On ctx's end the
// error says so; no result is ever made up.
func (s *Session) Do(ctx context.Context, op Op) (Result, error) {
	ch := make(chan Result, 1)
	select {
	case s.invoke <- invocation{op: op, reply: ch}:
	case <-ctx.Done():
		return Result{}, fmt.Errorf("%s: %w (%w)", op, ErrTimeout, ctx.Err())
	case <-s.ctx.Done():
		return Result{}, ErrClosed
	}
	select {
	case r := <-ch:
		return r, r.Err
	case <-ctx.Done():
		return Result{}, fmt.Errorf("%s: %w (%w)", op, ErrTimeout, ctx.Err())
	case <-s.ctx.Done():
		return Result{}, ErrClosed
	}
}

// Put writes value under key at the given level.
func (s *Session) Put(ctx context.Context, key kvs.Key, value kvs.Value, level wire.Level) error {
	_, err := s.Do(ctx, Op{Level: level, Command: kvs.Command{Op: kvs.OpPut, Key: key, Value: value}})
	return err
}

// Get reads key at the given level.
func (s *Session) Get(ctx context.Context, key kvs.Key, level wire.Level) (kvs.Value, error) {
	r, err := s.Do(ctx, Op{Level: level, Command: kvs.Command{Op: kvs.OpGet, Key: key}})
	return r.Value, err
}

// Close ends the session at the cluster, so that the replicas release its
// state (PROTOCOL.md 6.10), waiting at most one retry period for the
// leader's confirmation, and stops it; safe to call twice.
func (s *Session) Close() error {
	ended := make(chan struct{})
	select {
	case s.end <- ended:
		t := time.NewTimer(s.o.Config.Retry)
		select {
		case <-ended:
		case <-t.C:
			s.log.Debug("session end not confirmed within the retry period; the leader expires it when idle")
		}
		t.Stop()
	case <-s.ctx.Done():
	}
	s.cancel()
	s.wg.Wait()
	// A dial that finished as the loop stopped left its connection here.
	for {
		select {
		case r := <-s.inbox:
			if r.dialed != nil && r.dialed.b != nil {
				r.dialed.b.Close()
			}
		default:
			return nil
		}
	}
}

func (s *Session) closeConns() {
	for _, b := range s.conns {
		if b != nil {
			b.Close()
		}
	}
}
