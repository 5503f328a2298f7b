package kvcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"go.uber.org/zap"

	"swiftpaxos/client"
	"swiftpaxos/config"
	"swiftpaxos/kvs"
	"swiftpaxos/wire"
)

// Exit statuses.
const (
	OK       = 0 // done, and every read found a value
	NotFound = 1 // a read found nothing, or an operation failed
	Usage    = 2 // a command could not be understood
)

// Options configures a run.
type Options struct {
	Config *config.Config
	// Alias, when set, is a client of Config whose binding and latency the
	// session takes; empty, the session is an ad-hoc client.
	Alias string
	// Policy makes the protocol's client policy.
	Policy func() client.Policy
	// Level is the default level of a command (client.Strong when zero).
	Level client.Level
	// Verbose adds, for every operation, the path, the replica that
	// answered and the latency, on Err.
	Verbose bool
	// Timeout bounds a command given as arguments as a whole: connecting,
	// the operation and ending the session. Reading In, it bounds
	// connecting, each line's operation and ending the session, each
	// apart. Zero means the configuration's replyTimeout, and a negative
	// one is refused.
	Timeout time.Duration
	// Interactive says a person types the lines of In at a terminal: a
	// prompt comes before each, an error does not name its line, and the
	// exit status says how the session ended, not which line failed (each
	// error was told as it came). A script (false) gets the worst status
	// of its lines. Either way a line that fails costs only that line.
	Interactive bool
	Log         *zap.Logger
	In          io.Reader
	Out         io.Writer
	Err         io.Writer
}

// Run runs the command in args, or with no args every line of o.In, and
// returns the exit status.
func Run(ctx context.Context, o Options, args []string) int {
	if o.Level == 0 {
		o.Level = client.Strong
	}
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
	r := &runner{o: o}
	switch {
	case o.Timeout < 0:
		r.errorf("timeout %v is negative", o.Timeout)
		return Usage
	case o.Timeout == 0:
		r.o.Timeout = o.Config.ReplyTimeout
	}
	r.limits = o.Config.Limits()
	if r.limits.MaxKey == 0 {
		r.limits = kvs.DefaultLimits // a configuration built by hand
	}
	if len(args) > 0 {
		c, err := parse(argWords(args), o.Level, r.limits)
		if err != nil {
			r.errorf("%v", err)
			return Usage
		}
		r.deadline = time.Now().Add(r.o.Timeout)
		if err := r.dial(ctx); err != nil {
			return NotFound
		}
		defer r.close(ctx)
		return r.do(ctx, c)
	}
	if err := r.dial(ctx); err != nil {
		return NotFound
	}
	defer r.close(ctx)
	return r.lines(ctx)
}

type runner struct {
	o      Options
	limits kvs.Limits // the cluster's bounds on keys and values
	s      *client.Session
	// at is the number of the line of standard input being run, which
	// every message about it names; 0 for a command given as arguments.
	at int
	// deadline ends a command given as arguments, all of it; zero when
	// reading standard input, where each step has a timeout of its own.
	deadline time.Time
}

// bounded is ctx ending after the timeout, or at the command's deadline
// when that comes first. ctx itself ends only with an interrupt, which is
// how the messages tell an interrupt from a timeout.
func (r *runner) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	d := time.Now().Add(r.o.Timeout)
	if !r.deadline.IsZero() && r.deadline.Before(d) {
		d = r.deadline
	}
	return context.WithDeadline(ctx, d)
}

func (r *runner) errorf(format string, args ...any) {
	if r.at > 0 && !r.o.Interactive {
		format = fmt.Sprintf("line %d: %s", r.at, format)
	}
	fmt.Fprintf(r.o.Err, "swiftpaxos: "+format+"\n", args...)
}

// dial opens the session, saying why when no replica answers.
func (r *runner) dial(ctx context.Context) error {
	dctx, cancel := r.bounded(ctx)
	defer cancel()
	s, err := client.Dial(dctx, client.SessionOptions{Config: r.o.Config, Alias: r.o.Alias, Policy: r.o.Policy(), Log: r.o.Log})
	if err != nil {
		if errors.Is(err, client.ErrUnreachable) {
			r.errorf("no replica reachable:")
			for _, l := range strings.Split(strings.TrimPrefix(err.Error(), client.ErrUnreachable.Error()+": "), "\n") {
				fmt.Fprintf(r.o.Err, "  %s\n", l)
			}
		} else {
			r.errorf("%v", err)
		}
		return err
	}
	r.s = s
	return nil
}

// close ends the session at the cluster. The wait for the leader's
// confirmation is bounded by the session (one retry period) and by the
// timeout, what is left of it for a command given as arguments; an
// interrupted run does not wait for it.
func (r *runner) close(ctx context.Context) {
	if r.s != nil {
		cctx, cancel := r.bounded(ctx)
		defer cancel()
		_ = r.s.CloseContext(cctx)
		r.s = nil
	}
}

// do runs one command and prints its outcome.
func (r *runner) do(ctx context.Context, c command) int {
	octx, cancel := r.bounded(ctx)
	defer cancel()
	start := time.Now()
	res, err := r.s.Do(octx, client.Op{Level: c.level, Command: c.cmd})
	took := time.Since(start)
	if err != nil {
		return r.failed(ctx, c, err)
	}
	if r.o.Verbose {
		r.describe(c, res, took)
	}
	out := r.o.Out
	switch c.cmd.Op {
	case kvs.OpPut:
		fmt.Fprintln(out, "OK")
	case kvs.OpGet:
		if !res.Found {
			r.errorf("%s: not found", c.text)
			return NotFound
		}
		fmt.Fprintf(out, "%s\n", res.Value)
	case kvs.OpDelete:
		switch {
		case !res.Known:
			// A weak DELETE is acknowledged before it executes.
			fmt.Fprintln(out, "OK (weak: whether the key existed is not known)")
		case res.Found:
			fmt.Fprintln(out, "deleted")
		default:
			fmt.Fprintln(out, "absent already")
		}
	case kvs.OpIncr:
		if err := res.Code.Error(); err != nil {
			r.errorf("%s: %v; nothing changed", c.text, err)
			return NotFound
		}
		fmt.Fprintf(out, "%s\n", res.Value)
	case kvs.OpCAS:
		if res.Applied {
			fmt.Fprintln(out, "applied")
			return OK
		}
		state := fmt.Sprintf("the key holds %q", res.Value)
		if !res.Found {
			state = "the key is absent"
		}
		fmt.Fprintf(out, "not applied: %s (version %d)\n", state, res.Version)
		return NotFound
	case kvs.OpScan:
		for _, it := range res.Items {
			fmt.Fprintf(out, "%s\t%s\n", display(it.Key), it.Value)
		}
		if res.More {
			last := res.Items[len(res.Items)-1].Key
			level := ""
			if c.level == client.Weak {
				level = "weak "
			}
			r.errorf("%s: more keys follow; go on with %sscan %s %s %d", c.text, level, display(last+"\x00"), display(c.cmd.End), c.cmd.Limit)
		}
		if len(res.Items) == 0 {
			r.errorf("%s: no key holds a value", c.text)
			return NotFound
		}
	}
	return OK
}

// describe writes the path, replica and latency of a completed operation.
func (r *runner) describe(c command, res client.Result, took time.Duration) {
	path := ""
	if c.level == client.Strong {
		path = res.Path.String() + " path, "
	}
	version := ""
	switch {
	case c.cmd.IsWrite() && res.Slot > 0:
		version = fmt.Sprintf(", slot %d", res.Slot)
	case !c.cmd.IsWrite() && res.Version > 0:
		version = fmt.Sprintf(", version %d", res.Version)
	}
	fmt.Fprintf(r.o.Err, "%s %s: %sanswered by %s in %.3f ms%s\n", c.level, op(c.cmd), path, r.replica(res.Replica), float64(took.Microseconds())/1000, version)
}

// op names a command for describe, its keys printed as commands take them.
func op(c kvs.Command) string {
	k := display(c.Key)
	switch c.Op {
	case kvs.OpPut:
		return fmt.Sprintf("put %s (%d B)", k, len(c.Value))
	case kvs.OpGet:
		return "get " + k
	case kvs.OpDelete:
		return "del " + k
	case kvs.OpIncr:
		return fmt.Sprintf("incr %s %d", k, c.Delta)
	case kvs.OpCAS:
		return "cas " + k
	}
	return fmt.Sprintf("scan %s %s %d", display(c.Key), display(c.End), c.Limit)
}

// replica names replica id with its address.
func (r *runner) replica(id wire.ReplicaID) string {
	if id < 0 || int(id) >= r.o.Config.N() {
		return "no replica"
	}
	h := r.o.Config.Replica(int(id))
	return fmt.Sprintf("%s (%s)", h.Alias, h.Addr())
}

// failed reports a failed operation. An expired session is replaced for
// the next command (reading standard input): the failed one is not run
// again, since it may have executed before the end.
func (r *runner) failed(ctx context.Context, c command, err error) int {
	var te *client.TimeoutError
	switch {
	case errors.Is(err, kvs.ErrInvalidCommand), errors.Is(err, client.ErrStrongOnly):
		r.errorf("%s: %v", c.text, err)
		return Usage
	case ctx.Err() != nil:
		r.errorf("%s: interrupted; the operation may still execute", c.text)
	case errors.As(err, &te):
		r.errorf("%s: %s", c.text, r.timeoutText(te))
	case errors.Is(err, client.ErrExpired), errors.Is(err, client.ErrRefused):
		r.errorf("%s: %v; the next command opens a new session", c.text, err)
		r.close(ctx)
	default:
		r.errorf("%s: %v", c.text, err)
	}
	return NotFound
}

// timeoutText says what the session waited for when the timeout came, with
// the replicas' addresses.
func (r *runner) timeoutText(te *client.TimeoutError) string {
	var b strings.Builder
	fmt.Fprintf(&b, "no reply within %v", r.o.Timeout)
	switch {
	case te.Target != client.NoReplica:
		fmt.Fprintf(&b, " from %s, asked for the weak read", r.replica(te.Target))
	case te.Op.Level == client.Strong:
		fmt.Fprintf(&b, ": a strong operation completes with the leader's reply; the session took %s for the leader", r.replica(te.Leader))
	case r.o.Config.Protocol == config.CURPHO:
		fmt.Fprintf(&b, ": a weak write completes with the reply of the session's bound replica, %s", r.replica(te.Nearest))
	default:
		fmt.Fprintf(&b, ": a weak write completes with the leader's reply; the session took %s for the leader", r.replica(te.Leader))
	}
	if te.Attempts > 0 {
		fmt.Fprintf(&b, " (sent %d times)", te.Attempts+1)
	}
	// The replicas that refused the client are named apart, with the
	// likely reason.
	var down, refused []string
	for _, d := range te.Unreachable() {
		down = append(down, r.replica(d))
	}
	for _, d := range te.Refused {
		refused = append(refused, r.replica(d))
	}
	if len(down) > 0 {
		fmt.Fprintf(&b, "; unreachable: %s", strings.Join(down, ", "))
	}
	if len(refused) > 0 {
		fmt.Fprintf(&b, "; %s closed the connection before any reply, as a replica does to a client it refuses", strings.Join(refused, ", "))
		if r.o.Config.TLSDir == "" {
			b.WriteString(": a TLS cluster? give -tls DIR (or tls: DIR in the configuration)")
		} else {
			b.WriteString(": does it take this client's certificate?")
		}
		fmt.Fprintf(&b, "; or does it run another protocol than %s? (its log says why it refused)", r.o.Config.Protocol)
	}
	return b.String()
}
