package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"syscall"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"swiftpaxos/check"
	"swiftpaxos/client"
	"swiftpaxos/config"
	"swiftpaxos/config/certs"
	curpho "swiftpaxos/curp-ho"
	curpht "swiftpaxos/curp-ht"
	"swiftpaxos/replica"
)

// protocols is the registry of protocol implementations.
var protocols = map[string]struct {
	replica func() replica.Policy
	client  func() client.Policy
}{
	curpht.Name: {curpht.NewReplicaPolicy, curpht.NewClientPolicy},
	curpho.Name: {curpho.NewReplicaPolicy, curpho.NewClientPolicy},
}

const usage = `usage: swiftpaxos -run server|client -config FILE -alias ALIAS [-protocol P] [-tls DIR] [-log FILE] [-loglevel L] [-cost FILE]
       swiftpaxos -run check -history PATH
       swiftpaxos -run hosts -config FILE
       swiftpaxos -run summary -config FILE -results DIR
       swiftpaxos -run certs -config FILE -out DIR

Runs one process of a swiftpaxos deployment described by FILE (see
multi-client.conf): a replica (-run server) or a benchmark client process
(-run client). ALIAS names the process in FILE. -protocol overrides the
file's protocol. -run check checks a recorded history (a history*.jsonl
file, or a directory of them with the replicas' log-*.jsonl); it prints
one line per violation and exits 0 when OK, 1 on violations, 2 when the
input cannot be read. -run hosts lists the processes of FILE, and -run summary
merges the results of a run directory (results-*.json, and the replicas'
cost-*.json written with -cost) into summary.json and summary.txt (both
used by run-multi-client.sh). -run certs creates a test CA and a
certificate for every process of FILE, and one for ad-hoc clients, in DIR
(see config/certs); -tls DIR (or tls: DIR in FILE) turns mutual TLS on.

Flags:
`

// exitUsage is the exit status of a command-line mistake.
const exitUsage = 2

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("swiftpaxos", flag.ContinueOnError)
	fs.SetOutput(stderr)
	role := fs.String("run", "", "role: server, client, check, hosts, summary or certs")
	confPath := fs.String("config", "multi-client.conf", "configuration file")
	alias := fs.String("alias", "", "alias of this process in the configuration")
	proto := fs.String("protocol", "", "protocol, overriding the configuration: "+strings.Join(protocolNames(), ", "))
	logFile := fs.String("log", "", "log file (default: stderr)")
	logLevel := fs.String("loglevel", "info", "log level: debug, info, warn, error")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	resultsPath := fs.String("results", "", "client: write the raw results as JSON to this file; summary: the run's directory")
	historyPath := fs.String("history", "", "client: record the history (JSON Lines) to this file; check: the history file or directory")
	costPath := fs.String("cost", "", "server: when the replica stops, write what its process spent (CPU time, read/write calls, messages, allocations, GC pauses) as JSON to this file, for -run summary (a client puts the same in its -results)")
	appliedLog := fs.String("appliedlog", "", "server: stream the executed commands (JSON Lines) to this new file as they execute (it must not exist: one file per process lifetime)")
	threads := fs.Int("threads", 0, "client: sessions per process, overriding clientThreads")
	checkMode := fs.Bool("check", false, "check mode: unique written values (as checkerMode: true)")
	tlsDir := fs.String("tls", "", "server, client: mutual TLS with the certificates in this directory, overriding the configuration's tls")
	outDir := fs.String("out", "", "certs: the directory to create the certificates in")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fs.Usage()
			return 0
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "swiftpaxos: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return exitUsage
	}
	if !slices.Contains([]string{"server", "client", "check", "hosts", "summary", "certs"}, *role) {
		fmt.Fprintf(stderr, "swiftpaxos: -run must be server, client, check, hosts, summary or certs, not %q\n", *role)
		fs.Usage()
		return exitUsage
	}
	if *proto != "" {
		if _, ok := protocols[*proto]; !ok {
			fmt.Fprintf(stderr, "swiftpaxos: unknown protocol %q (known: %s)\n", *proto, strings.Join(protocolNames(), ", "))
			fs.Usage()
			return exitUsage
		}
	}
	if *threads < 0 {
		fmt.Fprintf(stderr, "swiftpaxos: -threads %d is negative\n", *threads)
		return exitUsage
	}
	if *alias == "" && (*role == "server" || *role == "client") {
		fmt.Fprintln(stderr, "swiftpaxos: -alias is required")
		fs.Usage()
		return exitUsage
	}
	if *role == "check" {
		if *historyPath == "" {
			fmt.Fprintln(stderr, "swiftpaxos: -run check needs -history PATH")
			fs.Usage()
			return exitUsage
		}
		return check.RunCommand(*historyPath, check.Options{}, stdout, stderr)
	}
	if *role == "certs" && *outDir == "" {
		fmt.Fprintln(stderr, "swiftpaxos: -run certs needs -out DIR")
		fs.Usage()
		return exitUsage
	}
	level, err := zapcore.ParseLevel(*logLevel)
	if err != nil {
		fmt.Fprintf(stderr, "swiftpaxos: -loglevel: %v\n", err)
		return exitUsage
	}

	cfg, err := config.Load(*confPath)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	if *tlsDir != "" {
		if cfg.TLSDir, err = filepath.Abs(*tlsDir); err != nil {
			fmt.Fprintf(stderr, "swiftpaxos: -tls: %v\n", err)
			return 1
		}
	}
	switch *role {
	case "certs":
		return makeCerts(cfg, *outDir, stdout, stderr)
	case "hosts":
		printHosts(stdout, cfg)
		return 0
	case "summary":
		return summarize(*resultsPath, cfg, stdout, stderr)
	}
	if *threads > 0 {
		cfg.Override(func(p *config.Params) { p.ClientThreads = *threads })
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
		fmt.Fprintf(stderr, "swiftpaxos: protocol %q is not implemented in this build (known: %s)\n", name, strings.Join(protocolNames(), ", "))
		return exitUsage
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

	switch *role {
	case "server":
		err = replica.Serve(ctx, replica.ServerOptions{Config: cfg, Alias: *alias, Policy: p.replica, Log: log, AppliedLogPath: *appliedLog, CostPath: *costPath})
	case "client":
		err = client.RunBenchmark(ctx, client.BenchOptions{Config: cfg, Alias: *alias, Policy: p.client, Log: log, Out: stdout, Progress: stderr, ResultsPath: *resultsPath, HistoryPath: *historyPath})
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

// summarize merges a run's results (and checks its histories) for
// run-multi-client.sh; the exit status says whether the run can be trusted.
func summarize(dir string, cfg *config.Config, stdout, stderr io.Writer) int {
	if dir == "" {
		fmt.Fprintln(stderr, "swiftpaxos: -run summary needs -results DIR")
		return exitUsage
	}
	sum, err := client.Summarize(dir, cfg, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "swiftpaxos: summary of %s: %v\n", dir, err)
		return 1
	}
	if !sum.OK() {
		fmt.Fprintf(stderr, "swiftpaxos: the run is not clean: complete=%v errors=%d timeouts=%d check ok=%v\n",
			sum.Complete, sum.Errors, sum.Timeouts, !sum.Check.Ran || sum.Check.OK)
		return 1
	}
	return 0
}

// makeCerts is -run certs.
func makeCerts(cfg *config.Config, dir string, stdout, stderr io.Writer) int {
	paths, err := certs.Generate(cfg, dir)
	if err != nil {
		fmt.Fprintf(stderr, "swiftpaxos: -run certs: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "created a test CA and %d certificates in %s:\n", len(paths)/2-1, dir)
	for _, p := range paths {
		fmt.Fprintln(stdout, p)
	}
	return 0
}

// printHosts lists the processes of cfg, one per line ("replica ALIAS
// IP:PORT" or "client ALIAS IP"), "option check true" when the file
// turns check mode on and "option tls DIR" when it turns TLS on, for
// run-multi-client.sh.
func printHosts(w io.Writer, cfg *config.Config) {
	if cfg.CheckerMode {
		fmt.Fprintln(w, "option check true")
	}
	if cfg.TLSDir != "" {
		fmt.Fprintf(w, "option tls %s\n", cfg.TLSDir)
	}
	for _, h := range cfg.Replicas {
		fmt.Fprintf(w, "replica %s %s\n", h.Alias, h.Addr())
	}
	for _, h := range cfg.Clients {
		fmt.Fprintf(w, "client %s %s\n", h.Alias, h.IP)
	}
}

func protocolNames() []string {
	names := make([]string, 0, len(protocols))
	for n := range protocols {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// newLogger builds the process's logger, writing to path (stderr when
// empty). With a path, a crash (an unhandled panic in any goroutine, or a
// fatal runtime error) is written to that file too, not only to stderr: a
// replica's panic is a bug, and its log is where one looks first.
func newLogger(path string, level zapcore.Level, alias string) (*zap.Logger, func(), error) {
	if path != "" {
		if err := crashOutputTo(path); err != nil {
			return nil, nil, err
		}
	}
	zc := zap.NewProductionConfig()
	zc.Level = zap.NewAtomicLevelAt(level)
	zc.Encoding = "console"
	zc.EncoderConfig.EncodeTime = zapcore.ISO8601TimeEncoder
	zc.Sampling = nil
	if path != "" {
		zc.OutputPaths = []string{path}
		zc.ErrorOutputPaths = []string{path}
	}
	log, err := zc.Build()
	if err != nil {
		return nil, nil, fmt.Errorf("logger: %w", err)
	}
	log = log.With(zap.String("alias", alias))
	return log, func() { _ = log.Sync() }, nil
}

// crashOutputTo makes the runtime print unhandled panics and fatal errors to
// the file at path as well as to stderr, for the rest of the process's
// life. The file is opened for appending, as zap opens it, so the crash
// report follows the last log line.
func crashOutputTo(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("log: %w", err)
	}
	defer f.Close() // SetCrashOutput keeps its own descriptor
	if err := debug.SetCrashOutput(f, debug.CrashOptions{}); err != nil {
		return fmt.Errorf("log: crash output: %w", err)
	}
	return nil
}
