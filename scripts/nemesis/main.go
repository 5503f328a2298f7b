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
	"strings"
	"syscall"
	"time"

	"swiftpaxos/config"
	"swiftpaxos/scripts/internal/nemesis"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `usage: nemesis plan -config CONF -kinds KINDS -every D -seed S
       nemesis run -config CONF -kinds KINDS -every D -seed S -start UNIX_MS [-tls DIR] [-status-timeout D]
       nemesis soak -p PROTOCOL [-d D] [-durable] [-kinds KINDS] [-every D] [-c CONF] [-o DIR] [-keep]`

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "nemesis: "+format+"\n", a...)
		return 2
	}
	if len(args) > 0 && args[0] == "soak" {
		return soakMain(ctx, args[1:], stdout, stderr)
	}
	if len(args) == 0 || (args[0] != "plan" && args[0] != "run") {
		return fail("want plan, run or soak\n%s", usage)
	}
	cmd := args[0]
	fs := flag.NewFlagSet("nemesis "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	confPath := fs.String("config", "", "the deployment's configuration file")
	kinds := fs.String("kinds", "", "comma-separated fault kinds: kill, restart, wipe, pause, partition, crash-all, client")
	every := fs.Duration("every", 0, "mean time between faults")
	seed := fs.Uint64("seed", 0, "the seed of the draw")
	startMs := fs.Int64("start", 0, "run: when the clients started, in Unix milliseconds")
	tlsDir := fs.String("tls", "", "run: the certificates of a TLS deployment, to ask the replicas their status")
	statusTimeout := fs.Duration("status-timeout", 300*time.Millisecond, "run: how long each replica may take to answer a status request")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		return fail("unexpected argument %q\n%s", fs.Arg(0), usage)
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, name := range []string{"config", "kinds", "every", "seed"} {
		if !given[name] {
			return fail("-%s is required\n%s", name, usage)
		}
	}
	if cmd == "plan" {
		for _, name := range []string{"start", "tls", "status-timeout"} {
			if given[name] {
				return fail("-%s is for nemesis run", name)
			}
		}
	} else if !given["start"] || *startMs <= 0 {
		return fail("nemesis run needs -start UNIX_MS (when the clients started)")
	}
	if *statusTimeout <= 0 {
		return fail("-status-timeout %v: give a duration above 0", *statusTimeout)
	}
	cfg, err := config.Load(*confPath)
	if err != nil {
		return fail("%v", err)
	}
	ks, err := nemesis.ParseKinds(*kinds)
	if err != nil {
		return fail("-kinds: %v", err)
	}
	o := nemesis.Options{Seed: *seed, Kinds: ks, Every: *every, Run: runTime(cfg),
		Replicas: cfg.N(), Clients: len(cfg.Clients), Durable: cfg.DataPath != ""}
	p, err := nemesis.Draw(o)
	if err != nil {
		return fail("%s", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	if cmd == "plan" {
		if err := p.Write(stdout); err != nil {
			fmt.Fprintf(stderr, "nemesis: %v\n", err)
			return 1
		}
		return 0
	}
	if *tlsDir != "" {
		if cfg.TLSDir, err = filepath.Abs(*tlsDir); err != nil {
			return fail("-tls: %v", err)
		}
	}
	ro := nemesis.RunnerOptions{
		Plan: p, Start: time.UnixMilli(*startMs),
		Hands:   nemesis.NewLineHands(stdin, stdout),
		Cluster: nemesis.StatusCluster{Config: cfg, Timeout: *statusTimeout},
		Clock:   nemesis.WallClock{}, Log: stderr,
	}
	for _, h := range cfg.Replicas {
		ro.Replicas = append(ro.Replicas, h.Alias)
	}
	for _, h := range cfg.Clients {
		ro.Clients = append(ro.Clients, h.Alias)
	}
	st, err := nemesis.Run(ctx, ro)
	fmt.Fprintf(stderr, "nemesis: started %s; skipped %s\n", counts(st.Started), counts(st.Skipped))
	switch {
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "nemesis: stopped before the end of the plan")
		return 1
	case err != nil:
		fmt.Fprintf(stderr, "nemesis: %v\n", err)
		return 1
	}
	return 0
}

// runTime is how long the clients run: the shortest runTime of any
// client process (0 when one has none: a run of reqs).
func runTime(cfg *config.Config) time.Duration {
	var d time.Duration
	for i, h := range cfg.Clients {
		rt := cfg.For(h.Alias).RunTime
		if i == 0 || rt < d {
			d = rt
		}
	}
	return d
}

// counts renders a per-kind count ("kill 2, pause 1", or "none").
func counts(c map[nemesis.Kind]int) string {
	var s []string
	for _, k := range nemesis.FaultKinds() {
		if c[k] > 0 {
			s = append(s, fmt.Sprintf("%s %d", k, c[k]))
		}
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
