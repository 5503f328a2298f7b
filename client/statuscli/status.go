package statuscli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"swiftpaxos/config"
	"swiftpaxos/config/certs"
	"swiftpaxos/config/quorum"
	"swiftpaxos/wire"
)

// Options configures a run.
type Options struct {
	Config *config.Config
	// Timeout bounds connecting to and hearing from each replica; zero
	// means the configuration's replyTimeout (or 2 s without one), and a
	// negative one is refused.
	Timeout time.Duration
	Out     io.Writer
	Err     io.Writer
}

// Answer is one replica's answer, or why there is none.
type Answer struct {
	Alias  string
	Addr   string
	Status *wire.StatusReply // nil when Err is set
	Err    error
}

// roles names wire.StatusReply.Role (replica.Role's numbers: the package
// does not import the replica core for three words).
var roles = []string{"follower", "candidate", "leader"}

// RoleName is the name of a StatusReply's role.
func RoleName(st *wire.StatusReply) string {
	if int(st.Role) < len(roles) {
		if !st.Member {
			if st.Joining == wire.JoinFounding {
				return "founding"
			}
			return "learner"
		}
		return roles[st.Role]
	}
	return fmt.Sprintf("role%d", st.Role)
}

// Query asks every replica of cfg at once and returns their answers in
// the configuration's order.
func Query(ctx context.Context, cfg *config.Config, timeout time.Duration) ([]Answer, error) {
	if timeout < 0 {
		return nil, fmt.Errorf("timeout %v is negative", timeout)
	}
	if timeout == 0 {
		timeout = cfg.ReplyTimeout
	}
	if timeout <= 0 {
		timeout = 2 * time.Second
	}
	var tlsm *certs.Material
	if cfg.TLSDir != "" {
		m, err := certs.Load(cfg.TLSDir, certs.GenericClient)
		if err != nil {
			return nil, err
		}
		tlsm = m
	}
	out := make([]Answer, cfg.N())
	done := make(chan struct{}, cfg.N())
	for i := range cfg.N() {
		h := cfg.Replica(i)
		out[i] = Answer{Alias: h.Alias, Addr: h.Addr()}
		go func() {
			defer func() { done <- struct{}{} }()
			qctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			out[i].Status, out[i].Err = ask(qctx, h, tlsm)
		}()
	}
	for range cfg.N() {
		<-done
	}
	return out, nil
}

// Ask asks replica i of cfg for its status, within ctx.
func Ask(ctx context.Context, cfg *config.Config, i int) (*wire.StatusReply, error) {
	var tlsm *certs.Material
	if cfg.TLSDir != "" {
		m, err := certs.Load(cfg.TLSDir, certs.GenericClient)
		if err != nil {
			return nil, err
		}
		tlsm = m
	}
	return ask(ctx, cfg.Replica(i), tlsm)
}

// ask sends one StatusRequest to replica h and waits for its reply.
func ask(ctx context.Context, h config.Host, tlsm *certs.Material) (*wire.StatusReply, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", h.Addr())
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	// Closing the connection unblocks a read when ctx ends early.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if tlsm != nil {
		if conn, err = tlsm.Client(ctx, conn, certs.Identity{Role: certs.Replica, Alias: h.Alias}); err != nil {
			if closedByPeer(err) {
				// What a replica without TLS does with a ClientHello.
				return nil, fmt.Errorf("TLS handshake: %w (the replica closed the connection: a cluster without TLS?)", err)
			}
			return nil, fmt.Errorf("TLS handshake: %w", err)
		}
	}
	// A fresh random client id: the replica keys its client connections
	// by id, and this one must not displace a live session's.
	nonce := rand.Uint64()
	var buf []byte
	buf = wire.AppendFrame(buf, &wire.Hello{Kind: wire.PeerClient, Client: wire.ClientID(rand.Uint64() | 1)})
	buf = wire.AppendFrame(buf, &wire.StatusRequest{Nonce: nonce})
	if _, err := conn.Write(buf); err != nil {
		return nil, err
	}
	r := wire.NewReader(conn, 1<<20)
	for {
		m, err := r.Next()
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("no answer: %w", ctx.Err())
			}
			if closedByPeer(err) {
				if tlsm == nil {
					// What a TLS replica does with a Hello in clear.
					return nil, errors.New("the replica closed the connection: a TLS cluster? give -tls DIR (or tls: DIR in the configuration); else an older binary, or a refused client")
				}
				return nil, errors.New("the replica closed the connection (an older binary, or a refused client)")
			}
			if errors.Is(err, wire.ErrMalformed) {
				return nil, fmt.Errorf("a reply this binary cannot read (a replica of another version?): %w", err)
			}
			return nil, err
		}
		if st, ok := m.(*wire.StatusReply); ok && st.Nonce == nonce {
			return st, nil
		}
	}
}

// closedByPeer reports whether err is the peer closing the connection.
func closedByPeer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)
}

// Run queries the replicas of o.Config, prints the table on o.Out and
// returns the exit status.
func Run(ctx context.Context, o Options) int {
	answers, err := Query(ctx, o.Config, o.Timeout)
	if err != nil {
		fmt.Fprintf(o.Err, "swiftpaxos: status: %v\n", err)
		return 1
	}
	Print(o.Out, answers)
	for _, l := range noLeader(answers) {
		fmt.Fprintln(o.Out, l)
	}
	ok := 0
	for _, a := range answers {
		if a.Err == nil {
			ok++
		}
	}
	if need := quorum.Majority(len(answers)); ok < need {
		fmt.Fprintf(o.Err, "swiftpaxos: status: %d of %d replicas answered, a majority needs %d\n", ok, len(answers), need)
		return 1
	}
	return 0
}

// Print writes the answers as one table.
func Print(w io.Writer, answers []Answer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "REPLICA\tADDRESS\tROLE\tMODE\tBALLOT\tLEADER\tCOMMIT\tAPPLIED\tLOG\tSNAPSHOT\tSESSIONS\tRESP\tRECORDS\tFSYNCS\tFSYNC\tLEASE\tUPTIME\t")
	for _, a := range answers {
		st := a.Status
		if st == nil {
			fmt.Fprintf(tw, "%s\t%s\tdown\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\n", a.Alias, a.Addr)
			continue
		}
		mode, fsyncs, fsync := "memory", "-", "-"
		if st.Durable {
			mode, fsyncs = "durable", strconv.FormatUint(st.Fsyncs, 10)
		}
		if st.Fsyncs > 0 {
			fsync = meanFsync(time.Duration(st.FsyncMeanNs))
		}
		leader := "-"
		if st.Leader != wire.NoReplica && int(st.Leader) < len(answers) {
			leader = answers[st.Leader].Alias
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t\n", a.Alias, a.Addr, roleText(st), mode, st.Ballot, leader,
			st.CommitIndex, st.AppliedIndex, st.LastSlot-st.SnapshotSlot, st.SnapshotSlot, st.Sessions, st.RESPConns, st.WitnessRecords,
			fsyncs, fsync, leaseText(st), (time.Duration(st.UptimeMs) * time.Millisecond).Round(100*time.Millisecond))
	}
	tw.Flush()
	for _, a := range answers {
		if a.Err != nil {
			fmt.Fprintf(w, "%s (%s): %v\n", a.Alias, a.Addr, a.Err)
		}
	}
	for _, a := range answers {
		if a.Status == nil {
			continue
		}
		switch roleText(a.Status) {
		case quietLeader:
			fmt.Fprintf(w, "%s leads but is quiet: it has heard no majority of members for longer than the longest election timeout (electionTimeoutMs), so it sends them nothing until it does, and they may elect another leader meanwhile (docs/DECISIONS.md 56)\n", a.Alias)
		case foundingLeader:
			fmt.Fprintf(w, "%s leads a new cluster but appends nothing until a majority of replicas have told it they are members (a durable one once that is on its disk); strong operations and writes wait meanwhile, weak reads are answered (docs/DECISIONS.md 26 and 37)\n", a.Alias)
		}
	}
}

// The ROLE of a leader that fell quiet, and of one still founding.
const (
	quietLeader    = "leader(quiet)"
	foundingLeader = "leader(founding)"
)

// roleText is the ROLE column: RoleName, and whether a leader is quiet
// or still founding.
func roleText(st *wire.StatusReply) string {
	role := RoleName(st)
	switch {
	case role != "leader":
	case st.Quiet:
		return quietLeader
	case st.Founding:
		return foundingLeader
	}
	return role
}

// leaseText is the LEASE column: "-" when leases are off or the replica
// does not lead, "none" for a leader without a lease (it answers leader
// reads after a round of its followers), else how long the lease holds.
func leaseText(st *wire.StatusReply) string {
	switch {
	case !st.Leases || RoleName(st) != "leader":
		return "-"
	case st.LeaseMs == 0:
		return "none"
	}
	return (time.Duration(st.LeaseMs) * time.Millisecond).String()
}

// noLeader explains, when replicas answered and none of them leads, why
// there may be no leader and what an operator can do; nil otherwise. The
// exit status does not change: the replicas answered, which is what
// status reports (a cluster between two leaders, or one being founded, is
// normal for a moment).
func noLeader(answers []Answer) []string {
	var answered, members, down int
	var learners, founding []string
	for _, a := range answers {
		st := a.Status
		switch {
		case st == nil:
			down++
			continue
		case RoleName(st) == "leader":
			return nil
		case RoleName(st) == "founding":
			founding = append(founding, a.Alias)
		case !st.Member:
			learners = append(learners, a.Alias)
		default:
			members++
		}
		answered++
	}
	if answered == 0 {
		return nil
	}
	lines := []string{fmt.Sprintf("no leader: none of the %d replicas that answered leads", answered)}
	if len(founding) > 0 && members == 0 && len(learners) == 0 {
		return append(lines, notFounded(answers, founding)...)
	}
	if len(learners) > 0 {
		lines = append(lines, fmt.Sprintf("  learners (%s) started without state after the cluster was founded, or restarted without it; they become members by catching up from a leader (docs/DECISIONS.md 21)",
			strings.Join(learners, ", ")))
	}
	need := quorum.Majority(len(answers))
	switch {
	case members >= need:
		lines = append(lines, fmt.Sprintf("  %s answered, a majority: an election should end within electionTimeoutMs; ask again, and if none does, read the replicas' logs", membersText(members)))
	case members+down >= need:
		lines = append(lines, fmt.Sprintf("  %s answered, a majority needs %d: bring back members that are down (a running one cut off, or a durable one restarted; one in memory restarts as a learner)", membersText(members), need))
	default:
		lines = append(lines, fmt.Sprintf("  %s answered, a majority needs %d, which the replicas down cannot make up: restart the whole cluster (in memory, its state is lost; with dataDir, replicas restart as members)", membersText(members), need))
	}
	return lines
}

// notFounded explains a cluster whose replicas that answered all wait to
// found it (docs/DECISIONS.md 37): a majority of replicas started with
// -cluster new founds it, otherwise every replica must be up.
func notFounded(answers []Answer, founding []string) []string {
	n, need := len(answers), quorum.Majority(len(answers))
	var isNew []string
	heard := uint64(0)
	for _, a := range answers {
		if st := a.Status; st != nil && RoleName(st) == "founding" {
			heard = max(heard, st.Fresh)
			if st.ClusterNew {
				isNew = append(isNew, a.Alias)
			}
		}
	}
	var lines []string
	if len(isNew) > 0 {
		lines = append(lines, fmt.Sprintf("  waiting for a majority to found the cluster: %d of %d up (%s), %d started with -cluster new (%s), a majority needs %d",
			len(founding), n, strings.Join(founding, ", "), len(isNew), strings.Join(isNew, ", "), need))
	} else {
		lines = append(lines, fmt.Sprintf("  waiting for every replica to found the cluster: %d of %d up (%s); start the others (a replica that was never a member may be started with -cluster new: a majority of those founds it; a replica restarted without its state must not be: docs/DECISIONS.md 37)",
			len(founding), n, strings.Join(founding, ", ")))
	}
	if heard < uint64(len(founding)) {
		lines = append(lines, fmt.Sprintf("  the replicas hear from at most %d of the %d that answered here: check the network between them", heard, len(founding)))
	}
	return lines
}

func membersText(n int) string {
	if n == 1 {
		return "1 member"
	}
	return fmt.Sprintf("%d members", n)
}

// meanFsync prints a mean fsync to three significant digits (a disk's in
// µs or ms, tmpfs's in ns).
func meanFsync(d time.Duration) string {
	switch {
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	case d >= time.Microsecond:
		return d.Round(time.Microsecond).String()
	}
	return d.String()
}
