package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"swiftpaxos/config"
	"swiftpaxos/cost"
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
	"swiftpaxos/wire/applog"
)

// SessionOptions configures a Session. Config and Policy are required.
type SessionOptions struct {
	// Config describes the cluster: its replicas' addresses, TLS, the
	// retry period and, for a client it names, the emulated latency.
	Config *config.Config
	// Alias, when set, is a client of Config that the session speaks
	// for: its "-- Proxy --" binding chooses the nearest (CURP-HO:
	// bound) replica and its latency settings apply. Empty, the session
	// is an ad-hoc client: the nearest replica is the one that answered
	// the connection fastest.
	Alias string
	// Policy is the protocol's client side, matching Config.Protocol:
	// curpht.NewClientPolicy() or curpho.NewClientPolicy(). One policy
	// value per session.
	Policy Policy
	// Nearest, when set, names the replica the session treats as its
	// nearest (CURP-HO: its bound replica) whatever Alias says: the
	// replica a front-end such as RESP runs in.
	Nearest string
	// Log receives the session's diagnostics (nil: none).
	Log *zap.Logger
	// Window is the capacity of Completions: the most operations the
	// caller keeps in flight with Submit (default 1).
	Window int
	// TLSName names the certificate the session presents when the
	// configuration turns TLS on (TLSDir/NAME.pem): by default the
	// Alias, or certs.GenericClient for an ad-hoc client (no Alias).
	TLSName string
	// Meter, when set, counts the read and write calls on the session's
	// connections and what its batchers sent, by replica: the process's
	// cost report (nil: not counted).
	Meter *cost.Meter
	// Transport, when set, is the process's connections, shared with its
	// other sessions (NewTransport with this Alias, TLSName and Meter):
	// one connection per replica for them all. Nil: the session opens
	// connections of its own, and closes them when it closes.
	Transport *Transport

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
	where  chan where // a timed-out Do asks what its operation waits for
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	lost atomic.Int64 // acknowledged writes refused afterwards (Core.Lost)
	// limits are the configuration's bounds on keys and values (Op.Validate).
	limits kvs.Limits

	t    *Transport
	ownT bool // t is the session's own: Close closes it

	// owned by the loop goroutine
	conns   []*port
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
	msgs []wire.Message // in arrival order
	conn *port          // non-nil: a connection event
	down bool
	// dialed, when set, is the outcome of a dial started by the loop.
	dialed *dialResult
}

// Dial opens a new session: it connects to every replica of the
// configuration it can reach (at least one, else ErrUnreachable; the
// others are dialled again in the background) and returns once connected.
// ctx bounds the connecting only. Close the session when done.
func Dial(ctx context.Context, o SessionOptions) (*Session, error) {
	if o.Config == nil || o.Policy == nil {
		return nil, errors.New("client: SessionOptions needs a Config and a Policy (curpht.NewClientPolicy() or curpho.NewClientPolicy(), as Config.Protocol says)")
	}
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
	if o.Window < 1 {
		o.Window = 1
	}
	cfg := o.Config
	near := wire.NoReplica
	if o.Nearest != "" {
		i, ok := cfg.ReplicaIndex(o.Nearest)
		if !ok {
			return nil, fmt.Errorf("client: SessionOptions.Nearest: %q is not a replica of the configuration", o.Nearest)
		}
		near = wire.ReplicaID(i)
	}
	t, ownT := o.Transport, false
	if t == nil {
		var err error
		t, err = NewTransport(TransportOptions{Config: cfg, Alias: o.Alias, TLSName: o.TLSName, Meter: o.Meter, Log: o.Log})
		if err != nil {
			return nil, err
		}
		ownT = true
	}
	if t.alias != o.Alias {
		return nil, fmt.Errorf("client: the session speaks for %q, its Transport for %q", o.Alias, t.alias)
	}
	id := wire.ClientID(uuid.New().ID())<<32 | wire.ClientID(uuid.New().ID())
	sctx, cancel := context.WithCancel(context.Background())
	s := &Session{
		o: o, log: o.Log.With(zap.String("session", string(applog.SessionOf(id)))), limits: limitsOf(cfg),
		start: time.Now(), invoke: make(chan invocation, o.Window), inbox: make(chan reply, 1024),
		done: make(chan Result, o.Window), end: make(chan chan struct{}), where: make(chan where), ctx: sctx, cancel: cancel,
		conns: make([]*port, cfg.N()), waiters: make(map[wire.Seq]chan Result),
		idle: make([]bool, cfg.N()), queued: make([][]wire.Message, cfg.N()), dialing: make([]bool, cfg.N()),
		activity: make([]uint64, cfg.N()), lastSeen: make([]uint64, cfg.N()), quietSince: make([]time.Time, cfg.N()),
		t: t, ownT: ownT,
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
	if near != wire.NoReplica {
		nearest = near
	}
	s.log.Debug("session connected", zap.Int32("nearest", int32(nearest)), zap.Durations("rtt", rtts))
	s.core, err = NewCore(Options{
		ID: id, N: cfg.N(), Leader: 0, Nearest: nearest, Policy: o.Policy,
		Now: s.Now, RetryAfter: cfg.Retry, LeaderReads: cfg.StrongReads == "leader",
		LeaderWrites: cfg.StrongWrites == "leader",
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
	for i, p := range s.conns {
		if p == nil {
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
		case q := <-s.where:
			s.answerWhere(q)
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
			for _, m := range r.msgs {
				s.activity[r.from]++
				s.core.Step(r.from, m)
			}
		case now := <-t.C:
			s.core.Tick()
			s.closeIdle(now)
		case <-redial.C:
			for i, p := range s.conns {
				if p == nil && !s.idle[i] {
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

func (s *Session) complete(r Result) {
	if w, ok := s.waiters[r.Seq]; ok {
		delete(s.waiters, r.Seq)
		w <- r
		return
	}
	s.done <- r
}

// Close ends the session at the cluster, so that the replicas release its
// state (PROTOCOL.md 6.10), waiting at most one retry period for the
// leader's confirmation, and stops it; safe to call twice. It is
// CloseContext without a deadline.
func (s *Session) Close() error { return s.CloseContext(context.Background()) }

// CloseContext is Close waiting for the confirmation no longer than ctx
// lasts either: a program with a deadline of its own (kv's -timeout) stops
// by then. The end is asked for even when ctx has already ended; a session
// whose end is not confirmed is expired by the leader once idle
// (sessionIdleMs), so not waiting costs the cluster memory for a while,
// never correctness. It returns nil: the session is stopped either way.
func (s *Session) CloseContext(ctx context.Context) error {
	ended := make(chan struct{})
	select {
	case s.end <- ended:
		t := time.NewTimer(s.o.Config.Retry)
		select {
		case <-ended:
		case <-t.C:
			s.log.Debug("session end not confirmed within the retry period; the leader expires it when idle")
		case <-ctx.Done():
			s.log.Debug("session end not confirmed before the caller's deadline; the leader expires it when idle")
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
			if r.dialed != nil && r.dialed.p != nil {
				r.dialed.p.detach()
			}
		default:
			return nil
		}
	}
}

// limitsOf is cfg's bounds on keys and values; a configuration built by
// hand rather than parsed, which has none, gets the defaults.
func limitsOf(cfg *config.Config) kvs.Limits {
	if l := cfg.Limits(); l.MaxKey > 0 {
		return l
	}
	return kvs.DefaultLimits
}
