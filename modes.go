package main

import (
	"fmt"
	"io"

	"swiftpaxos/client/bench"
	"swiftpaxos/config"
	"swiftpaxos/config/certs"
)

// The modes run-multi-client.sh and an operator call once per run: the
// summary, the certificates, the list of processes.

// summarize merges a run's results (and checks its histories) for
// run-multi-client.sh; the exit status says whether the run can be trusted.
func summarize(dir string, cfg *config.Config, o bench.SummaryOptions, stdout, stderr io.Writer) int {
	if dir == "" {
		return usageError(stderr, "-run summary needs -results DIR")
	}
	sum, err := bench.Summarize(dir, cfg, stdout, o)
	if err != nil {
		fmt.Fprintf(stderr, "swiftpaxos: summary of %s: %v\n", dir, err)
		return 1
	}
	if !sum.OK() {
		fmt.Fprintf(stderr, "swiftpaxos: the run is not clean: interrupted=%v complete=%v errors=%d timeouts=%d check ok=%v\n",
			sum.Interrupted, sum.Complete, sum.Errors, sum.Timeouts, !sum.Check.Ran || sum.Check.OK)
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
// IP:PORT" or "client ALIAS IP", then "resp ALIAS IP:PORT" for each
// replica's RESP front-end when respPort is set), "option check true" when the file
// turns check mode on, "option tls DIR" when it turns TLS on and "option
// data DIR" when the replicas are durable, for run-multi-client.sh.
func printHosts(w io.Writer, cfg *config.Config) {
	if cfg.CheckerMode {
		fmt.Fprintln(w, "option check true")
	}
	if cfg.DataPath != "" {
		fmt.Fprintf(w, "option data %s\n", cfg.DataPath)
	}
	if cfg.TLSDir != "" {
		fmt.Fprintf(w, "option tls %s\n", cfg.TLSDir)
	}
	for _, h := range cfg.Replicas {
		fmt.Fprintf(w, "replica %s %s\n", h.Alias, h.Addr())
	}
	for i, h := range cfg.Replicas {
		if addr, ok := cfg.RESPAddr(i); ok {
			fmt.Fprintf(w, "resp %s %s\n", h.Alias, addr)
		}
	}
	for _, h := range cfg.Clients {
		fmt.Fprintf(w, "client %s %s\n", h.Alias, h.IP)
	}
}
