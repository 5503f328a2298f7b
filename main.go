package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap/zapcore"

	"swiftpaxos/check"
	"swiftpaxos/client"
	"swiftpaxos/client/bench"
	"swiftpaxos/client/kvcli"
	"swiftpaxos/client/statuscli"
	"swiftpaxos/config"
	"swiftpaxos/config/certs"
	curpho "swiftpaxos/curp-ho"
	"swiftpaxos/curp-ho/horeplica"
	curpht "swiftpaxos/curp-ht"
	"swiftpaxos/curp-ht/htreplica"
	"swiftpaxos/metrics"
	"swiftpaxos/replica"
	"swiftpaxos/replica/server"
)

// protocol is one protocol's two sides.
type protocol struct {
	replica func() replica.Policy
	client  func() client.Policy
}

// protocols is the registry of protocol implementations.
var protocols = map[string]protocol{
	curpht.Name: {htreplica.NewPolicy, curpht.NewClientPolicy},
	curpho.Name: {horeplica.NewPolicy, curpho.NewClientPolicy},
}

const usage = `usage: swiftpaxos -run server -config FILE -alias ALIAS [-cluster new|existing] [-protocol P] [-tls DIR] [-data DIR] [-metrics ADDR]
                         [-log FILE] [-loglevel L] [-cpuprofile FILE] [-cost FILE] [-appliedlog FILE] [-check]
       swiftpaxos -run client -config FILE -alias ALIAS [-protocol P] [-tls DIR] [-metrics ADDR] [-log FILE] [-loglevel L]
                         [-cpuprofile FILE] [-threads N] [-results FILE] [-history FILE [-journal FILE]] [-check]
       swiftpaxos -run kv [-config FILE] [-alias CLIENT] [-protocol P] [-tls DIR] [-level strong|weak] [-v] [-timeout D]
                     [-log FILE] [-loglevel L] [-cpuprofile FILE] [COMMAND]
       swiftpaxos -run status [-config FILE] [-tls DIR] [-timeout D]
       swiftpaxos -run check -history PATH
       swiftpaxos -run hosts [-config FILE] [-protocol P] [-tls DIR] [-data DIR]
       swiftpaxos -run summary [-config FILE] -results DIR [-interrupted]
       swiftpaxos -run certs [-config FILE] -out DIR

Runs one process of a swiftpaxos deployment described by FILE (see
multi-client.conf): a replica (-run server) or a benchmark client process
(-run client). ALIAS names the process in FILE. -protocol overrides the
file's protocol. -cluster new starts a replica of a new cluster: a
majority of such replicas found it without the others; restart a replica
without it (docs/DECISIONS.md 37). A flag that the mode does not use (see Flags) is a
usage error. -run kv runs one COMMAND against the cluster of FILE, or
with none, one command per line of standard input: get KEY, put KEY VALUE,
del KEY, scan START END LIMIT (the keys of [START, END) that hold a value,
at most LIMIT), incr KEY [DELTA], cas KEY absent|value OLD|version N
set NEW|delete, each optionally after strong or weak (incr and cas are
strong only); a word in double quotes is a Go string literal (\x00 for
any byte); -v adds the path, the replica that answered and the latency;
it exits 0 when done and found, 1 when not found, not applied or failed,
2 on a usage error. -run status asks every replica for its role, ballot, commit and
applied index, log length, snapshot point, sessions, witness records and
uptime, prints one table (and a no leader line when none of those that
answered leads), and exits 1 unless a majority answered.
-run check checks a recorded history (a history*.jsonl file, or a
directory of them with the replicas' log-*.jsonl); it prints one line per
violation and exits 0 when OK, 1 on violations, 2 when the input cannot
be read or holds no operation. -run hosts lists the processes of FILE,
and -run summary merges the results of a run directory (results-*.json, and the replicas'
cost-*.json written with -cost) into summary.json and summary.txt (both
used by run-multi-client.sh). -run certs creates a test CA and a
certificate for every process of FILE, and one for ad-hoc clients, in DIR
(see config/certs); -tls DIR (or tls: DIR in FILE) turns mutual TLS on.

Flags:
`

// exitUsage is the exit status of a command-line mistake.
const exitUsage = 2

// roles are the values of -run.
var roles = []string{"server", "client", "kv", "status", "check", "hosts", "summary", "certs"}

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

// usageError writes the one-line reason of a command-line mistake, then
// where the usage is, and returns exitUsage. The reason comes alone so
// that it is what a launcher shows of a process that would not start.
func usageError(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "swiftpaxos: "+format+"\n", args...)
	fmt.Fprintln(stderr, "(swiftpaxos -h prints the usage)")
	return exitUsage
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("swiftpaxos", flag.ContinueOnError)
	fs.SetOutput(stderr)
	role := fs.String("run", "", "role: "+strings.Join(roles, ", "))
	confPath := fs.String("config", "multi-client.conf", "configuration file")
	alias := fs.String("alias", "", "alias of this process in the configuration (kv: optional, a client whose binding and latency the session takes)")
	proto := fs.String("protocol", "", "protocol, overriding the configuration: "+strings.Join(protocolNames(), ", ")+" (hosts: only checks the name)")
	logFile := fs.String("log", "", "log file (default: stderr)")
	logLevel := fs.String("loglevel", "info", "log level: debug, info, warn, error")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	resultsPath := fs.String("results", "", "client: write the raw results as JSON to this file; summary: the run's directory")
	historyPath := fs.String("history", "", "client: record the history (JSON Lines) to this file; check: the history file or directory")
	journalPath := fs.String("journal", "", "client, with -history: also write the history to this new file as the run goes, each operation before it is sent, so that a process killed with kill -9 leaves its history (removed once the history is written; -run summary reads it for a client the launcher killed)")
	costPath := fs.String("cost", "", "server: when the replica stops, write what its process spent (CPU time, read/write calls, messages, allocations, GC pauses) as JSON to this file, for -run summary (a client puts the same in its -results)")
	appliedLog := fs.String("appliedlog", "", "server: stream the executed commands (JSON Lines) to this new file as they execute (it must not exist: one file per process lifetime)")
	clusterState := fs.String("cluster", "existing", "server: new = this replica's first start in this cluster, so a majority of new replicas found it without the others; existing = it may have been a member before (founds only with every replica fresh, otherwise rejoins as a learner)")
	threads := fs.Int("threads", 0, "client: sessions per process, overriding clientThreads")
	checkMode := fs.Bool("check", false, "client: check mode, unique written values (as checkerMode: true); server: accepted and unused (run-multi-client.sh gives it to every process)")
	tlsDir := fs.String("tls", "", "mutual TLS with the certificates in this directory, overriding the configuration's tls (hosts: listed as option tls)")
	dataDir := fs.String("data", "", "server: durable mode, the replica's files in DIR/ALIAS, overriding the configuration's dataDir; hosts: listed as option data")
	outDir := fs.String("out", "", "certs: the directory to create the certificates in")
	kvLevel := fs.String("level", "strong", "kv: the level of a command that names none: strong or weak")
	verbose := fs.Bool("v", false, "kv: print the path, the replica that answered and the latency of each operation (on stderr)")
	interrupted := fs.Bool("interrupted", false, "summary: the run was stopped before its end (the launcher's Ctrl-C): say so in the summary")
	metricsAddr := fs.String("metrics", "", "server, client: serve Prometheus metrics and /debug/pprof/ over HTTP at HOST:PORT (:PORT: loopback), overriding the configuration's metrics")
	timeout := fs.Duration("timeout", 0, "kv: how long a command given as arguments may take, or from standard input connecting, each line and ending the session; status: for each replica's answer; above 0 (default: the configuration's replyTimeout)")
	nameModes(fs)
	// The flag package reports a bad flag in one line; the usage goes to
	// stdout on -h, and is only pointed to otherwise.
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fmt.Fprint(stdout, usage)
			fs.PrintDefaults()
			return 0
		}
		fmt.Fprintln(stderr, "(swiftpaxos -h prints the usage)")
		return exitUsage
	}
	if fs.NArg() > 0 && *role != "kv" {
		return usageError(stderr, "unexpected argument %q", fs.Arg(0))
	}
	if !slices.Contains(roles, *role) {
		return usageError(stderr, "-run must be one of %s, not %q", strings.Join(roles, ", "), *role)
	}
	if name, modes := misplacedFlag(fs, *role); name != "" {
		return usageError(stderr, "-%s means nothing to -run %s (it is for -run %s)", name, *role, strings.Join(modes, ", "))
	}
	if *proto != "" {
		if _, ok := protocols[*proto]; !ok {
			return usageError(stderr, "unknown protocol %q (known: %s)", *proto, strings.Join(protocolNames(), ", "))
		}
	}
	// Without -timeout the configuration's replyTimeout applies; a zero
	// or negative one given on the command line is a mistake, not a
	// request for that default.
	if flagSet(fs, "timeout") && *timeout <= 0 {
		return usageError(stderr, "-timeout %v: give a duration above 0, or leave -timeout out for the configuration's replyTimeout", *timeout)
	}
	if *threads < 0 {
		return usageError(stderr, "-threads %d is negative", *threads)
	}
	if *alias == "" && (*role == "server" || *role == "client") {
		return usageError(stderr, "-run %s needs -alias ALIAS", *role)
	}
	if *journalPath != "" && *historyPath == "" {
		return usageError(stderr, "-journal needs -history: it is the history written as the run goes")
	}
	if *role == "check" {
		if *historyPath == "" {
			return usageError(stderr, "-run check needs -history PATH")
		}
		return check.RunCommand(*historyPath, check.Options{}, stdout, stderr)
	}
	if *role == "certs" && *outDir == "" {
		return usageError(stderr, "-run certs needs -out DIR")
	}
	if *clusterState != "new" && *clusterState != "existing" {
		return usageError(stderr, "-cluster must be new or existing, not %q", *clusterState)
	}
	if *kvLevel != "strong" && *kvLevel != "weak" {
		return usageError(stderr, "-level must be strong or weak, not %q", *kvLevel)
	}
	level, err := zapcore.ParseLevel(*logLevel)
	if err != nil {
		return usageError(stderr, "-loglevel: %v", err)
	}
	if *role == "kv" && !flagSet(fs, "loglevel") {
		// The session's own diagnostics are for debugging; a person
		// reads what kv prints.
		level = zapcore.ErrorLevel
	}

	cfg, err := config.Load(*confPath)
	var pathErr *os.PathError
	switch {
	case errors.As(err, &pathErr):
		// No file to read: the command line is wrong, not a file.
		return usageError(stderr, "-config %s: %v", *confPath, pathErr.Err)
	case err != nil:
		// FILE:LINE: message, one per problem, as editors jump to.
		fmt.Fprintln(stderr, err)
		return 1
	}
	if msg := aliasError(cfg, *role, *alias, *confPath); msg != "" {
		return usageError(stderr, "%s", msg)
	}
	// The warnings are about benchmark settings, which kv does not use.
	for _, w := range cfg.Warnings {
		if *role != "kv" && *role != "status" {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
	}
	if *tlsDir != "" {
		if cfg.TLSDir, err = filepath.Abs(*tlsDir); err != nil {
			fmt.Fprintf(stderr, "swiftpaxos: -tls: %v\n", err)
			return 1
		}
		// A directory named on the command line that lacks this
		// process's certificates is a command-line mistake; -run hosts
		// only lists it.
		if name := tlsIdentity(*role, *alias); name != "" {
			if _, err := certs.Load(cfg.TLSDir, name); err != nil {
				return usageError(stderr, "-tls %s: %s", *tlsDir, strings.TrimPrefix(err.Error(), "tls: "))
			}
		}
	}
	if *dataDir != "" {
		if cfg.DataPath, err = filepath.Abs(*dataDir); err != nil {
			fmt.Fprintf(stderr, "swiftpaxos: -data: %v\n", err)
			return 1
		}
	}
	switch *role {
	case "certs":
		return makeCerts(cfg, *outDir, stdout, stderr)
	case "hosts":
		printHosts(stdout, cfg)
		return 0
	case "status":
		return statuscli.Run(context.Background(), statuscli.Options{Config: cfg, Timeout: *timeout, Out: stdout, Err: stderr})
	case "summary":
		return summarize(*resultsPath, cfg, bench.SummaryOptions{Interrupted: *interrupted}, stdout, stderr)
	}
	if *threads > 0 {
		cfg.Override(func(p *config.Params) { p.ClientThreads = *threads })
		if _, ok := cfg.For(*alias).RunOps(len(cfg.Clients)); !ok {
			return usageError(stderr, "-threads %d with reqs: %d and %d client processes is more operations than a run can count (2^63-1)",
				*threads, cfg.For(*alias).Reqs, len(cfg.Clients))
		}
	}
	if *checkMode {
		cfg.Override(func(p *config.Params) { p.CheckerMode = true })
	}
	name := string(cfg.Protocol)
	if *proto != "" {
		name = *proto
	}
	cfg.Override(func(p *config.Params) { p.Protocol = config.Protocol(name) })
	p, ok := protocols[name]
	if !ok {
		return usageError(stderr, "protocol %q is not implemented in this build (known: %s)", name, strings.Join(protocolNames(), ", "))
	}

	log, closeLog, err := newLogger(*logFile, level, *alias)
	if err != nil {
		fmt.Fprintf(stderr, "swiftpaxos: %v\n", err)
		return 1
	}
	defer closeLog()

	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintf(stderr, "swiftpaxos: -cpuprofile: %v\n", err)
			return 1
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(stderr, "swiftpaxos: -cpuprofile: %v\n", err)
			return 1
		}
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var reg *prometheus.Registry
	if addr := cmp.Or(*metricsAddr, cfg.For(*alias).Metrics); addr != "" && (*role == "server" || *role == "client") {
		reg = metrics.NewRegistry()
		// The endpoint lives as long as the role: a benchmark client
		// that finishes must exit, not wait for a signal.
		mctx, stopMetrics := context.WithCancel(ctx)
		_, wait, err := metrics.Start(mctx, addr, reg, log)
		if err != nil {
			stopMetrics()
			fmt.Fprintf(stderr, "swiftpaxos: %s: %v\n", *alias, err)
			return 1
		}
		defer func() { stopMetrics(); wait() }()
	}
	switch *role {
	case "kv":
		kl := client.Strong
		if *kvLevel == "weak" {
			kl = client.Weak
		}
		return kvcli.Run(ctx, kvcli.Options{Config: cfg.For(*alias), Alias: *alias, Policy: p.client, Level: kl, Verbose: *verbose,
			Timeout: *timeout, Interactive: isTerminal(stdin) && fs.NArg() == 0, Log: log, In: stdin, Out: stdout, Err: stderr}, fs.Args())
	case "server":
		err = serveReplica(ctx, cfg, p, server.Options{Config: cfg, Alias: *alias, Policy: p.replica, Log: log, AppliedLogPath: *appliedLog, CostPath: *costPath, Metrics: registerer(reg),
			ClusterNew: *clusterState == "new"})
	case "client":
		err = bench.Run(ctx, bench.Options{Config: cfg, Alias: *alias, Policy: p.client, Log: log, Out: stdout, Progress: stderr, ResultsPath: *resultsPath, HistoryPath: *historyPath, JournalPath: *journalPath, Metrics: registerer(reg)})
	}
	if err != nil {
		// A client's errors already name the process; a replica's do not.
		if *role == "server" {
			fmt.Fprintf(stderr, "swiftpaxos: replica %s: %v\n", *alias, err)
		} else {
			fmt.Fprintf(stderr, "swiftpaxos: %v\n", err)
		}
		return 1
	}
	return 0
}

// registerer is reg as an interface that is nil when reg is: the
// options take a nil Registerer as "metrics off".
func registerer(reg *prometheus.Registry) prometheus.Registerer {
	if reg == nil {
		return nil
	}
	return reg
}

// flagSet reports whether the command line gave the flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func protocolNames() []string {
	names := make([]string, 0, len(protocols))
	for n := range protocols {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
